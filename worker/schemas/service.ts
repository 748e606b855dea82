import { z } from "@hono/zod-openapi";

/** Shapes of the service's own answers: public keys and empty acknowledgements. */

/** One public key (RFC 7517) that verifies the pilots' tokens: ES256 on P-256. */
export const Jwk = z
  .object({
    kty: z
      .string()
      .optional()
      .openapi({ enum: ["EC"] }),
    crv: z
      .string()
      .optional()
      .openapi({ enum: ["P-256"] }),
    x: z.string().optional().openapi({ description: "base64url of the x coordinate" }),
    y: z.string().optional().openapi({ description: "base64url of the y coordinate" }),
    kid: z.string(),
    alg: z.literal("ES256"),
    use: z.literal("sig"),
  })
  .openapi("Jwk", {
    example: {
      kty: "EC",
      crv: "P-256",
      x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
      y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
      kid: "2c7e1f0a",
      alg: "ES256",
      use: "sig",
    },
  });

export const JwkSet = z.object({ keys: z.array(Jwk) }).openapi("JwkSet");

/** An empty `data`: the request was done and there is nothing to report. */
export const Empty = z.object({}).strict().openapi("Empty", { description: "Nothing more to say" });
