import { createRoute } from "@hono/zod-openapi";
import { TrafficClient, TrafficClientRequest } from "../../proto/traffic";
import { createRouter } from "../app";
import { success } from "../lib/jsend";
import { responses } from "../lib/openapi";
import { requireRelayCredential } from "../middleware/relayCredential";
import { admitTrafficClient } from "../services/trafficClients";

const trafficClient = createRoute({
  method: "post",
  path: "/internal/v1/traffic/clients",
  hide: true,
  middleware: [requireRelayCredential] as const,
  request: { body: { content: { "application/json": { schema: TrafficClientRequest } }, required: true } },
  responses: responses(TrafficClient, "The client may monitor the flight until the earlier of its two times"),
});

/** The traffic broker's internal API: whether an MQTT client may monitor a flight. */
export const trafficRoutes = createRouter().openapi(trafficClient, async (c) => {
  const { flight_id, token } = c.req.valid("json");
  return success(c, await admitTrafficClient(c.env, c.var.db, flight_id, token, Date.now()));
});
