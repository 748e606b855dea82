import { drizzle } from "drizzle-orm/d1";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import * as schema from "../schema";
import { createRouter, renderError, renderNotFound } from "./app";
import type { AppEnv } from "./env";
import { ApiError } from "./lib/errors";
import { requireApiKey } from "./middleware/apiKey";
import { pageAccount } from "./pages/api";
import { advisoryRoutes } from "./routes/advisory";
import { aircraftRoutes } from "./routes/aircraft";
import { authRoutes } from "./routes/auth";
import { briefingRoutes } from "./routes/briefing";
import { createFlightPageRoutes, deeplinkRoutes } from "./routes/deeplink";
import { devRoutes } from "./routes/dev";
import { mountDocs } from "./routes/docs";
import { elevationRoutes } from "./routes/elevation";
import { flightPlanRoutes } from "./routes/flightPlans";
import { flightRoutes } from "./routes/flights";
import { healthRoutes } from "./routes/health";
import { pilotRoutes } from "./routes/pilots";
import { rulesRoutes } from "./routes/rules";
import { statusRoutes } from "./routes/status";
import { telemetryRoutes } from "./routes/telemetry";

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Paths answered without an API key: liveness, public keys, the docs and the deep-link page; and the
 * relay's internal API, which checks its own credential.
 */
const PUBLIC_PATHS = [
  /^\/health\/?$/,
  /^\/\.well-known\//,
  /^\/openapi\.json$/,
  /^\/docs\/?$/,
  /^\/create_flight\/v1\/?$/,
  /^\/internal\//,
];

const app = createRouter();

app.use(
  "*",
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, "Request body over 1 MiB", [{ name: "body", message: "at most 1 MiB" }]);
    },
  }),
);
app.use(
  "*",
  createMiddleware<AppEnv>(async (c, next) => {
    c.set("db", drizzle(c.env.DB, { schema }));
    await next();
  }),
);
app.use(
  "*",
  createMiddleware<AppEnv>(async (c, next) => {
    if (PUBLIC_PATHS.some((p) => p.test(c.req.path))) return next();
    // The flight-creation page calls the API in-process as the account its link names.
    const actingAccount = pageAccount(c.env);
    if (actingAccount) {
      c.set("account", actingAccount);
      return next();
    }
    return requireApiKey(c, next);
  }),
);
// Development-only routes are refused before routing anywhere else.
app.use("/dev/*", async (c, next) => {
  // A plain 404: renderNotFound would see the route and answer 405.
  if (c.env.ENVIRONMENT !== "development")
    throw new ApiError(404, `No route for ${c.req.method} ${c.req.path}`);
  await next();
});

app.route("/", healthRoutes);
app.route("/", authRoutes);
app.route("/", devRoutes);
app.route("/", elevationRoutes);
app.route("/", briefingRoutes);
app.route("/", flightPlanRoutes);
app.route("/", flightRoutes);
app.route("/", pilotRoutes);
app.route("/", aircraftRoutes);
app.route("/", telemetryRoutes);
app.route("/", deeplinkRoutes);
app.route("/", rulesRoutes);
app.route("/", advisoryRoutes);
app.route("/", statusRoutes);
app.route("/", createFlightPageRoutes(app.fetch));
mountDocs(app);

app.onError(renderError);
app.notFound(renderNotFound(app));

export default app;
export { FlightTelemetry } from "./telemetry/flightTelemetry";
