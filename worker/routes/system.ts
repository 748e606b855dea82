import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { type Component as ComponentData, LEVELS } from "../domain/systemStatus";
import { failBody, success } from "../lib/jsend";
import { responses, security } from "../lib/openapi";
import { signInCounts } from "../services/providerLogin";
import { systemMonitorMessage, systemStatus } from "../services/systemStatus";

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

const monitor = createRoute({
  method: "get",
  path: "/system/v1/status/monitor",
  tags: ["Service"],
  summary:
    "The status as a WebSocket, as the Swift and Android SDKs open it: one text message `{level, message}` on connecting, another whenever the level or message changes (checked every minute)",
  security,
  responses: {
    101: { description: "Switching to the WebSocket" },
    426: { description: "Not a WebSocket upgrade request" },
  },
});

/** How often an open monitor checks the status again. */
export const MONITOR_INTERVAL_MS = 60_000;
/** A monitor closes (1000) after this long; the SDKs reconnect. */
export const MONITOR_LIFETIME_MS = 60 * 60_000;

export const systemRoutes = createRouter()
  .openapi(status, async (c) => success(c, await systemStatus(c.var.db, c.env)))
  .openapi(signInMetrics, (c) => success(c, signInCounts(c.var.account.id)))
  .openapi(monitor, async (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket")
      return c.json(
        failBody(426, "Open /system/v1/status/monitor as a WebSocket (Upgrade: websocket)", []),
        426 as never,
      );
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    server.accept();
    const db = c.var.db;
    const env = c.env;
    let last = "";
    const report = async () => {
      const text = JSON.stringify(await systemMonitorMessage(db, env));
      if (text !== last) server.send(text);
      last = text;
    };
    await report();
    const timer = setInterval(
      () => report().catch(() => server.close(1011, "status unavailable")),
      MONITOR_INTERVAL_MS,
    );
    const end = setTimeout(() => server.close(1000, "reconnect"), MONITOR_LIFETIME_MS);
    server.addEventListener("close", () => {
      clearInterval(timer);
      clearTimeout(end);
    });
    return new Response(null, { status: 101, webSocket: client }) as never;
  });
