import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { MAX_CORS_ORIGINS } from "../domain/corsOrigins";
import { success } from "../lib/jsend";
import { responses, security } from "../lib/openapi";
import { accountOrigins, CORS_CACHE_MS, parseAllowedOrigins } from "../middleware/cors";
import { replaceAccountOrigins } from "../services/corsOrigins";

/**
 * The origins whose browser pages may call the API with this account's keys (CORS). Without any, the
 * service's CORS_ALLOWED_ORIGINS applies; with some, they alone (and the service's own pages).
 */

const PATH = "/auth/v1/cors_origins";

const CorsOrigins = z
  .object({
    origins: z.array(z.string()).openapi({
      description: "This application's own origins; empty: the service's setting applies",
      example: ["https://app.example", "http://localhost:5173"],
    }),
    service_origins: z.union([z.literal("*"), z.array(z.string())]).openapi({
      description: "The service's CORS_ALLOWED_ORIGINS (`*`: any origin)",
    }),
    elsewhere_within_seconds: z
      .number()
      .int()
      .openapi({ description: "other worker isolates apply a change within this many seconds" }),
  })
  .openapi("CorsOrigins");

const getRoute = createRoute({
  method: "get",
  path: PATH,
  tags: ["Auth"],
  summary: "The origins whose browser pages may call the API with this application's keys",
  security,
  responses: responses(CorsOrigins, "The application's origins and the service's"),
});

const putRoute = createRoute({
  method: "put",
  path: PATH,
  tags: ["Auth"],
  summary: "Replace this application's browser origins (CORS); an empty list returns to the service's",
  description: `Origins as browsers send them: scheme, host and port only (\`https://app.example\`). At most ${MAX_CORS_ORIGINS}. A browser request with this application's key from any other origin is answered 403.`,
  security,
  request: {
    body: {
      content: {
        "application/json": {
          schema: z
            .object({ origins: z.array(z.string().max(2048)).max(100) })
            .openapi("CorsOriginsPut", { example: { origins: ["https://app.example"] } }),
        },
      },
      required: true,
    },
  },
  responses: responses(CorsOrigins, "The application's origins as stored"),
});

function view(origins: string[], serviceSetting: string | undefined) {
  const service = parseAllowedOrigins(serviceSetting);
  return {
    origins,
    service_origins: service === "*" ? ("*" as const) : [...service].sort(),
    elsewhere_within_seconds: CORS_CACHE_MS / 1000,
  };
}

export const corsOriginRoutes = createRouter()
  .openapi(getRoute, async (c) =>
    success(c, view(await accountOrigins(c, c.var.account.id), c.env.CORS_ALLOWED_ORIGINS)),
  )
  .openapi(putRoute, async (c) => {
    const origins = await replaceAccountOrigins(c.var.db, c.var.account.id, c.req.valid("json").origins);
    return success(c, view(origins, c.env.CORS_ALLOWED_ORIGINS));
  });
