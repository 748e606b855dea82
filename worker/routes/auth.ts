import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, validationError } from "../app";
import { FEDERATED_USER_PREFIX } from "../domain/identityProvider";
import { success } from "../lib/jsend";
import { signingKey, signToken, TOKEN_LIFETIME_SECONDS } from "../lib/jwt";
import { responses, security, successOf } from "../lib/openapi";
import { JwkSet } from "../schemas/service";
import { ensurePilot } from "../store/pilots";

const TokenRequest = z
  .object({
    user_id: z
      .string()
      .min(1)
      .max(128)
      .refine((id) => !id.startsWith(FEDERATED_USER_PREFIX), {
        message: `must not start with "${FEDERATED_USER_PREFIX}": that names pilots of the account's identity provider`,
      })
      .openapi({ example: "user-1234" }),
  })
  .openapi("AnonymousTokenRequest");

const issueToken = createRoute({
  method: "post",
  path: "/auth/v1/anonymous/token",
  tags: ["Auth"],
  summary: "Issue an ES256 access token for a caller-chosen user id; its `sub` is the pilot id",
  security,
  request: {
    body: {
      content: {
        "application/json": { schema: TokenRequest },
        "application/x-www-form-urlencoded": { schema: TokenRequest },
      },
    },
  },
  responses: responses(z.object({ id_token: z.string() }), "A token valid for 24 hours"),
});

const jwks = createRoute({
  method: "get",
  path: "/.well-known/jwks.json",
  tags: ["Auth"],
  summary: "Public keys that verify the access tokens (JWK Set, also wrapped in JSend)",
  responses: {
    ...responses(JwkSet, "JWK Set"),
    200: {
      content: { "application/json": { schema: successOf(JwkSet).extend({ keys: JwkSet.shape.keys }) } },
      description: "The JWK Set in `data`, and its `keys` at the top level for standard JWKS readers",
    },
  },
});

export const authRoutes = createRouter()
  .openapi(issueToken, async (c) => {
    const json = c.req.valid("json") as Record<string, unknown>;
    const form = c.req.valid("form") as Record<string, unknown>;
    // Both media types are declared optional, so validate whichever body arrived here.
    const parsed = TokenRequest.safeParse(Object.keys(json).length > 0 ? json : form);
    if (!parsed.success) throw validationError(parsed.error.issues);
    const account = c.var.account;
    const now = Date.now();
    const pilotId = await ensurePilot(c.var.db, account.id, parsed.data.user_id, now);
    const iat = Math.floor(now / 1000);
    const idToken = await signToken(
      { iss: c.env.JWT_ISSUER, sub: pilotId, aud: account.id, iat, exp: iat + TOKEN_LIFETIME_SECONDS },
      await signingKey(c.env.JWT_PRIVATE_KEY),
    );
    return success(c, { id_token: idToken });
  })
  .openapi(jwks, async (c) => {
    const key = await signingKey(c.env.JWT_PRIVATE_KEY);
    const keys = [{ ...key.publicJwk }];
    // Standard JWKS readers look for a top-level `keys`; JSend clients read `data`.
    return c.json({ status: "success" as const, data: { keys }, keys }, 200);
  });
