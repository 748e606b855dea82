import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { type Component as ComponentData, LEVELS } from "../domain/systemStatus";
import { success } from "../lib/jsend";
import { responses, security } from "../lib/openapi";
import { signInCounts } from "../services/providerLogin";
import { systemStatus } from "../services/systemStatus";

const Level = z.enum(LEVELS);
// Named, so the OpenAPI document can refer to the recursive schema instead of unrolling it forever.
const Component: z.ZodType<ComponentData> = z
  .lazy(() =>
    z.object({
      id: z.string(),
      name: z.string(),
      level: Level,
      children: z.array(Component),
      updated_at: z.string().nullable(),
    }),
  )
  .openapi("SystemComponent");

const status = createRoute({
  method: "get",
  path: "/system/v1/status",
  tags: ["Service"],
  summary:
    "Health of the service's parts, checked on each call: database, airspace data, elevation tiles, telemetry, weather",
  security,
  responses: responses(
    z.object({
      level: Level.openapi({ description: "The worst known level of the components" }),
      components: z.array(Component),
    }),
    "Overall level and components",
  ),
});

const signInMetrics = createRoute({
  method: "get",
  path: "/system/v1/sign_in_metrics",
  tags: ["Service"],
  summary:
    "The application's SDK sign-ins since this isolate started: attempts, successes, failures the provider refused, and attempts held back by the back-off",
  security,
  responses: responses(
    z.object({
      attempts: z.number().int(),
      succeeded: z.number().int(),
      failed: z.number().int(),
      throttled: z.number().int(),
    }),
    "Counts of this isolate",
  ),
});

export const systemRoutes = createRouter()
  .openapi(status, async (c) => success(c, await systemStatus(c.var.db, c.env)))
  .openapi(signInMetrics, (c) => success(c, signInCounts(c.var.account.id)));
