import type { Hono } from "hono";
import { hc } from "hono/client";
import type { AppEnv } from "./env";
// Type-only imports: a client (a tool, a browser app) never loads the worker's code.
import type { advisoryRoutes } from "./routes/advisory";
import type { aircraftRoutes } from "./routes/aircraft";
import type { airspaceRoutes } from "./routes/airspace";
import type { archiveRoutes } from "./routes/archive";
import type { authRoutes } from "./routes/auth";
import type { authorizationRoutes } from "./routes/authorizations";
import type { briefingRoutes } from "./routes/briefing";
import type { corsOriginRoutes } from "./routes/corsOrigins";
import type { deeplinkRoutes } from "./routes/deeplink";
import type { devRoutes } from "./routes/dev";
import type { elevationRoutes } from "./routes/elevation";
import type { flightPlanRoutes } from "./routes/flightPlans";
import type { flightRoutes } from "./routes/flights";
import type { healthRoutes } from "./routes/health";
import type { keyRoutes } from "./routes/keys";
import type { liveRoutes } from "./routes/live";
import type { pilotRoutes } from "./routes/pilots";
import type { rulesRoutes } from "./routes/rules";
import type { statusRoutes } from "./routes/status";
import type { systemRoutes } from "./routes/system";
import type { telemetryRoutes } from "./routes/telemetry";
import type { weatherRoutes } from "./routes/weather";
import type { webhookRoutes } from "./routes/webhooks";

/**
 * A router's routes. A path built at run time (a template string) is typed `string`, an index
 * signature that would swallow every other path, so such routes are left out of the client.
 */
type SchemaOf<R> =
  R extends Hono<AppEnv, infer S, "/">
    ? { [P in keyof S as string extends P ? never : P]: { [M in keyof S[P]]: OneBody<S[P][M]> } }
    : never;

/** A route that takes JSON or a form gets JSON from the client (hc would ask for both at once). */
type OneBody<E> = E extends { input: infer I }
  ? I extends { json: unknown; form: unknown }
    ? Omit<E, "input"> & { input: Omit<I, "form"> }
    : E
  : E;

/**
 * The API as Hono's `hc` sees it: the routes of every JSend router worker/index.ts mounts at "/" (add
 * a router here when index.ts mounts one; the InterUSS and Remote ID interfaces are for qualifiers, not
 * apps, and stay out). Paths, parameters, bodies and JSend answers are typed from
 * the same zod schemas that validate requests.
 */
export type AppType = Hono<
  AppEnv,
  SchemaOf<typeof healthRoutes> &
    SchemaOf<typeof authRoutes> &
    SchemaOf<typeof devRoutes> &
    SchemaOf<typeof elevationRoutes> &
    SchemaOf<typeof briefingRoutes> &
    SchemaOf<typeof flightPlanRoutes> &
    SchemaOf<typeof flightRoutes> &
    SchemaOf<typeof pilotRoutes> &
    SchemaOf<typeof aircraftRoutes> &
    SchemaOf<typeof telemetryRoutes> &
    SchemaOf<typeof liveRoutes> &
    SchemaOf<typeof deeplinkRoutes> &
    SchemaOf<typeof rulesRoutes> &
    SchemaOf<typeof advisoryRoutes> &
    SchemaOf<typeof statusRoutes> &
    SchemaOf<typeof weatherRoutes> &
    SchemaOf<typeof airspaceRoutes> &
    SchemaOf<typeof systemRoutes> &
    SchemaOf<typeof keyRoutes> &
    SchemaOf<typeof corsOriginRoutes> &
    SchemaOf<typeof authorizationRoutes> &
    SchemaOf<typeof archiveRoutes> &
    SchemaOf<typeof webhookRoutes>,
  "/"
>;

export interface ClientOptions {
  /** The application's API key, sent as `X-API-Key`. */
  apiKey: string;
  /** A pilot's `id_token`, sent as `Authorization: Bearer`. */
  token?: string;
  /** Another fetch, e.g. a test's `SELF.fetch`. */
  fetch?: typeof fetch;
}

/**
 * A typed client of the API: `windsock(base, { apiKey }).flight.v2.plan.$post({ json: … })`, with
 * `await res.json()` typed as the route's JSend answer.
 */
export function windsock(baseUrl: string, options: ClientOptions) {
  const headers: Record<string, string> = { "X-API-Key": options.apiKey };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  return hc<AppType>(baseUrl, { headers, ...(options.fetch ? { fetch: options.fetch } : {}) });
}
