import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { success } from "../lib/jsend";
import { responses } from "../lib/openapi";

const health = createRoute({
  method: "get",
  path: "/health",
  tags: ["Service"],
  summary: "Liveness: answers without touching storage",
  responses: responses(z.object({ status: z.literal("ok") }), "The worker is up"),
});

export const healthRoutes = createRouter().openapi(health, (c) => success(c, { status: "ok" as const }));
