import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import {
  createRouter,
  refuseOtherMethods,
  renderError,
  renderNotFound,
  requireDocumentedBodyType,
} from "./app";
import type { AppEnv } from "./env";
import { standardsErrorBodies } from "./interuss/http";
import { ApiError } from "./lib/errors";
import { limitAccountWork } from "./middleware/accountWork";
import { chargeKeyIfLive, requireApiKey } from "./middleware/apiKey";
import { CACHE, cacheable } from "./middleware/cache";
import { corsMiddleware } from "./middleware/cors";
import { d1Session } from "./middleware/d1Session";
import { readDialect } from "./middleware/dialect";
import { pageProblems } from "./middleware/pageProblems";
import { limitPublicRequests } from "./middleware/publicRateLimit";
import { holdRefusals } from "./middleware/tarpit";
import { pageAccount } from "./pages/api";
import { advisoryRoutes } from "./routes/advisory";
import { agreementRoutes } from "./routes/agreements";
import { aircraftRoutes } from "./routes/aircraft";
import { airspaceRoutes } from "./routes/airspace";
import { airspaceSourceRoutes } from "./routes/airspaceSources";
import { appLinkRoutes } from "./routes/appLinks";
import { archiveRoutes } from "./routes/archive";
import { authRoutes } from "./routes/auth";
import { authorizationRoutes } from "./routes/authorizations";
import { basemapRoutes } from "./routes/basemap";
import { briefingRoutes } from "./routes/briefing";
import { briefingPageRoutes } from "./routes/briefingPage";
import { corsOriginRoutes } from "./routes/corsOrigins";
import { createFlightPageRoutes, deeplinkRoutes } from "./routes/deeplink";
import { devRoutes } from "./routes/dev";
import { mountDocs } from "./routes/docs";
import { dssRoutes } from "./routes/dss";
import { dssScdRoutes } from "./routes/dssScd";
import { elevationRoutes } from "./routes/elevation";
import { flightPlanRoutes } from "./routes/flightPlans";
import { flightRoutes } from "./routes/flights";
import { frontRoutes } from "./routes/front";
import { healthRoutes } from "./routes/health";
import { interussRoutes } from "./routes/interuss";
import { keyRoutes } from "./routes/keys";
import { liveRoutes } from "./routes/live";
import { pilotLoginRoutes } from "./routes/pilotLogin";
import { pilotRoutes } from "./routes/pilots";
import { ridRoutes } from "./routes/rid";
import { rulesRoutes } from "./routes/rules";
import { statusRoutes } from "./routes/status";
import { systemRoutes } from "./routes/system";
import { telemetryRoutes } from "./routes/telemetry";
import { trackExportRoutes } from "./routes/trackExport";
import { trafficRoutes } from "./routes/traffic";
import { ussScdRoutes } from "./routes/ussScd";
import { weatherRoutes } from "./routes/weather";
import { webhookRoutes } from "./routes/webhooks";
import { scheduledAirspaceSync } from "./services/airspaceSources";
import { forgetExpiredSignIns } from "./services/pageSignIn";
import { noteRelaySeen } from "./services/relayHeartbeat";
import { dbFor } from "./store/db";

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Paths answered without an API key: liveness, public keys, the docs and the deep-link page; and the
 * relay's internal API, which checks its own credential.
 */
const PUBLIC_PATHS = [
  // The front page and the airspace map (routes/front.ts).
  /^\/$/,
  /^\/map(\/status)?\/?$/,
  /^\/health\/?$/,
  /^\/\.well-known\//,
  /^\/openapi\.json$/,
  /^\/docs(\/|$)/,
  /^\/favicon\.ico$/,
  /^\/create_flight\/v1\/?$/,
  /^\/deeplink\/v1\/open\/?$/,
  // The SDKs' sign-in, which they send without a key (middleware/loginApplication.ts finds the application).
  /^\/(oauth\/ro|delegation|realms\/[^/]+\/protocol\/openid-connect\/(token|logout))$/,
  /^\/realms\/[^/]+\/\.well-known\/openid-configuration$/,
  // The page's sign-in at the account's identity provider (worker/services/pageSignIn.ts).
  /^\/create_flight\/v1\/sign(ed)?_in$/,
  /^\/internal\//,
  // InterUSS interfaces, F3411 Remote ID and F3548 (DSS, USS): the authority's bearer tokens instead (worker/interuss/auth.ts).
  /^\/interuss\//,
  /^\/rid\/v2\//,
  /^\/(dss|uss)\/v1\//,
  // A browser's live stream and pages (live, briefing) carry a signed ticket instead; without one, the route asks for the API key.
  /^\/flight\/v2\/[^/]+\/(telemetry\/stream|live|briefing|track)\/?$/,
  // The pages' vector basemap, as keyless as the pages.
  /^\/maps\/v1\/basemap(\.json$|\/)/,
];

const app = createRouter();

// Outermost: a refusal to a caller who keeps asking goes out late (middleware/tarpit.ts).
app.use("*", holdRefusals);
// A flight's pages refused in a browser: a page in words instead of JSend.
app.use("/flight/v2/:flight_id/live", pageProblems);
app.use("/flight/v2/:flight_id/briefing", pageProblems);
app.use("/flight/v2/:flight_id/track", pageProblems);
// CORS first: a preflight needs no API key, and every answer (errors too) carries the headers.
app.use("*", corsMiddleware);
// ETag, 304 and Cache-Control where answers are cacheable (worker/middleware/cache.ts).
for (const path of ["/.well-known/jwks.json", "/openapi.json", "/docs", "/favicon.ico", "/maps/v1/*"])
  app.use(path, cacheable(CACHE.publicShort));
// Rulesets (`/rules/v1/{ruleset_id}`), not a plan's evaluation, which changes with the plan.
for (const path of ["/elevation/v1/*", "/rules/v1/:ruleset_id", "/aircraft/v2/*"])
  app.use(path, cacheable(CACHE.privateHour));
app.use(
  "*",
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, "Request body over 1 MiB", [{ name: "body", message: "at most 1 MiB" }]);
    },
  }),
);
// D1 through a session: reads at the nearest replica, the bookmark in and out (middleware/d1Session.ts).
app.use("*", d1Session);
app.use("*", readDialect);
// Requests without an API key: per client address and per ticket (the key's own bucket holds the rest).
app.use("*", limitPublicRequests);
app.use(
  "*",
  createMiddleware<AppEnv>(async (c, next) => {
    if (PUBLIC_PATHS.some((p) => p.test(c.req.path))) return chargeKeyIfLive(c, next);
    // The flight-creation page calls the API in-process as the account its link names.
    const actingAccount = pageAccount(c.env);
    if (actingAccount) {
      c.set("account", actingAccount);
      return next();
    }
    return requireApiKey(c, next);
  }),
);
// Expensive routes: a few at once and a share of the time per account (middleware/accountWork.ts).
app.use("*", limitAccountWork);
// The system status reports the relay as seen when it last got past its credential check here.
app.use("/internal/*", async (c, next) => {
  await next();
  // The traffic broker shares the credential; only the relay's own calls say the relay is up.
  if (c.res.status < 400 && !c.req.path.startsWith("/internal/v1/traffic/")) noteRelaySeen();
});
// Development-only routes are refused before routing anywhere else.
app.use("/dev/*", async (c, next) => {
  // A plain 404: renderNotFound would see the route and answer 405.
  if (c.env.ENVIRONMENT !== "development")
    throw new ApiError(404, `No route for ${c.req.method} ${c.req.path}`);
  await next();
});
// The standards interfaces answer even these refusals in their own {"message"} (CONTRACT §13).
app.use("/interuss/*", standardsErrorBodies);
app.use("/rid/*", standardsErrorBodies);
app.use("/dss/*", standardsErrorBodies);
app.use("/uss/*", standardsErrorBodies);
// 405 for a method the path's own routes lack; 415 for a body type its route does not document.
app.use("*", refuseOtherMethods(app));
app.use("*", requireDocumentedBodyType(app));

app.route("/", healthRoutes);
app.route("/", frontRoutes);
app.route("/", authRoutes);
app.route("/", pilotLoginRoutes);
app.route("/", keyRoutes);
app.route("/", corsOriginRoutes);
app.route("/", devRoutes);
app.route("/", elevationRoutes);
app.route("/", briefingRoutes);
// Before flightPlanRoutes: `/flight/v2/plan/batch/…` is not a plan id.
app.route("/", authorizationRoutes);
app.route("/", flightPlanRoutes);
app.route("/", flightRoutes);
app.route("/", pilotRoutes);
app.route("/", agreementRoutes);
app.route("/", aircraftRoutes);
app.route("/", telemetryRoutes);
app.route("/", trafficRoutes);
app.route("/", archiveRoutes);
app.route("/", liveRoutes);
app.route("/", trackExportRoutes);
app.route("/", briefingPageRoutes);
app.route("/", webhookRoutes);
app.route("/", appLinkRoutes);
app.route("/", deeplinkRoutes);
app.route("/", rulesRoutes);
app.route("/", advisoryRoutes);
app.route("/", statusRoutes);
app.route("/", weatherRoutes);
// Before airspaceRoutes: `/airspace/v2/{id}` would take "sources" for an id.
app.route("/", airspaceSourceRoutes);
app.route("/", airspaceRoutes);
app.route("/", systemRoutes);
app.route("/", basemapRoutes);
app.route("/", interussRoutes);
app.route("/", ridRoutes);
app.route("/", dssRoutes);
app.route("/", dssScdRoutes);
app.route("/", ussScdRoutes);
app.route("/", createFlightPageRoutes(app.fetch));
mountDocs(app);

app.onError(renderError);
app.notFound(renderNotFound(app));

/**
 * The app, with the Cron Trigger's handler beside its fetch (wrangler.toml `[triggers]`): the airspace
 * feeds' tick, and expired page sign-ins and link grants deleted.
 */
export default Object.assign(app, {
  scheduled(_controller: ScheduledController, env: AppEnv["Bindings"], ctx: ExecutionContext) {
    ctx.waitUntil(scheduledAirspaceSync(env));
    ctx.waitUntil(forgetExpiredSignIns(dbFor(env.DB)));
  },
});
export type { AppType } from "./client";
export { RidDss } from "./dss/ridDss";
export { ScdDss } from "./dss/scdDss";
export { AccountStreams } from "./telemetry/accountStreams";
export { FlightTelemetry } from "./telemetry/flightTelemetry";
