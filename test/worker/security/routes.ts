import { planBody, square } from "../flightFixtures";

/**
 * The security table: every route of the app, by how it is guarded. `coverage.test.ts` walks the
 * app's routes and fails naming any route found in none of these lists, so a new route cannot miss
 * its guard silently. Adding a route is adding a line here (and, when its path names a new kind of
 * record, creating the victim's one in `matrix.ts` `fixture()`).
 *
 * How a protected route is guarded:
 * - key: an API key only;
 * - optionalToken: an API key, and a token that must be valid when sent (reads that show more to the owner);
 * - token: an API key and a valid token of the calling account;
 * - ownPilot: a token whose pilot is the `{pilot}` in the path.
 */
export type Guard = "key" | "optionalToken" | "token" | "ownPilot";

export interface ProtectedRoute {
  method: string;
  /** `{name}` is replaced by the victim's record id of that name (see `Fixture.ids` in matrix.ts). */
  path: string;
  guard: Guard;
  body?: unknown;
  /** Statuses that differ from the guard's, by case name (see CASES in matrix.ts). */
  overrides?: Record<string, number>;
}

export const OTHER_ACCOUNT = "another account, with its own key and pilot";
export const SAME_ACCOUNT = "another pilot of the same account";
const OTHER_ACCOUNT_404 = { [OTHER_ACCOUNT]: 404 };
/** Private records: whoever is not the pilot is told they do not exist. */
const PRIVATE_404 = { ...OTHER_ACCOUNT_404, [SAME_ACCOUNT]: 404 };

/** A path along the test square's edges, for the path queries. */
const SANTA_MONICA_PATH = { type: "LineString", coordinates: square.coordinates[0]!.slice(0, 3) };
const geometryQuery = (geometry: unknown) => `geometry=${encodeURIComponent(JSON.stringify(geometry))}`;

/** Tokens, keys, pilots, aircraft and the development outbox. */
export const PILOT_ROUTES: ProtectedRoute[] = [
  { method: "POST", path: "/auth/v1/anonymous/token", guard: "key", body: { user_id: "matrix" } },
  // Revokes the calling key: "own credentials" runs last, so the refusals see it live.
  { method: "POST", path: "/auth/v1/key/revoke", guard: "key" },
  // The account's browser origins (CORS): account-level, the API key alone.
  { method: "GET", path: "/auth/v1/cors_origins", guard: "key" },
  { method: "PUT", path: "/auth/v1/cors_origins", guard: "key", body: { origins: ["https://app.example"] } },
  // The SDK login routes: the API key picks the application, whose identity provider signs the pilot
  // in; the victim's application has none, which is a 400 naming the setting (test/worker/pilotLogin.test.ts).
  // Without a key, only a client_id or realm naming an application does (test/worker/sdkLogin.test.ts).
  ...[
    "/oauth/ro",
    "/delegation",
    "/realms/airmap/protocol/openid-connect/token",
    "/realms/airmap/protocol/openid-connect/logout",
  ].map((path) => ({
    method: "POST",
    path,
    guard: "key" as const,
    body: { grant_type: "password", username: "matrix", password: "matrix", refresh_token: "matrix" },
    overrides: { "own credentials": 400 },
  })),
  // The operator's agreements (npm run agreements), the same for every account: the list and text
  // with the API key, a pilot's acceptance with a token (test/worker/swiftAgreements.test.ts). No
  // agreement is set here, so the guarded request past its guard meets a 404.
  { method: "GET", path: "/agreements/v2/authority/faa-laanc", guard: "key" },
  ...["", "/pdf", "/agreed", "/agree"].map((suffix) => ({
    method: suffix === "/agree" ? "POST" : "GET",
    path: `/agreements/v2/agreement/matrix-none${suffix}`,
    guard: suffix === "" ? ("key" as const) : ("token" as const),
    body: suffix === "/agree" ? {} : undefined,
    overrides: { "own credentials": 404 },
  })),
  { method: "GET", path: "/pilot/v2/profile", guard: "token" },
  { method: "GET", path: "/pilot/v2/{pilot}", guard: "optionalToken" },
  { method: "PATCH", path: "/pilot/v2/{pilot}", guard: "ownPilot", body: { first_name: "Matrix" } },
  { method: "POST", path: "/pilot/v2/{pilot}/phone/send_token", guard: "ownPilot", body: {} },
  {
    method: "POST",
    path: "/pilot/v2/{pilot}/phone/verify_token",
    guard: "ownPilot",
    body: { token: "000000" },
  },
  { method: "POST", path: "/pilot/v2/{pilot}/email/send_token", guard: "ownPilot", body: {} },
  {
    method: "POST",
    path: "/pilot/v2/{pilot}/email/verify_token",
    guard: "ownPilot",
    body: { token: "000000" },
  },
  { method: "GET", path: "/pilot/v2/{pilot}/aircraft", guard: "ownPilot" },
  {
    method: "POST",
    path: "/pilot/v2/{pilot}/aircraft",
    guard: "ownPilot",
    body: { nickname: "Matrix", model_id: "model|dji-mini-2" },
  },
  { method: "GET", path: "/pilot/v2/{pilot}/aircraft/{aircraft}", guard: "ownPilot" },
  {
    method: "PATCH",
    path: "/pilot/v2/{pilot}/aircraft/{aircraft}",
    guard: "ownPilot",
    body: { nickname: "M" },
  },
  { method: "DELETE", path: "/pilot/v2/{pilot}/aircraft/{aircraft}", guard: "ownPilot" },
  { method: "GET", path: "/aircraft/v2/manufacturer", guard: "key" },
  { method: "GET", path: "/aircraft/v2/model", guard: "key" },
  { method: "GET", path: "/aircraft/v2/model/model%7Cdji-mini-2", guard: "key" },
  // Development-only routes (the tests run as development): still behind the key.
  { method: "GET", path: "/dev/v1/outbox?pilot_id={pilot}", guard: "key" },
  { method: "GET", path: "/dev/v1/db-ping", guard: "key" },
];

/** Flight plans, flights, their telemetry and live views: another account never learns a record exists (404). */
export const FLIGHT_ROUTES: ProtectedRoute[] = [
  { method: "POST", path: "/flight/v2/plan", guard: "token", body: planBody() },
  { method: "GET", path: "/flight/v2/plan/{plan}", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  {
    method: "PATCH",
    path: "/flight/v2/plan/{plan}",
    guard: "ownPilot",
    body: { max_altitude_agl: 50 },
    overrides: OTHER_ACCOUNT_404,
  },
  { method: "POST", path: "/flight/v2/plan/{plan}/submit", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  { method: "GET", path: "/flight/v2/plan/{plan}/briefing", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  { method: "GET", path: "/flight/v2/plan/{plan}/features", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  { method: "DELETE", path: "/flight/v2/plan/{plan}", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  {
    method: "GET",
    path: "/flight/v2/plan/batch/authorizations?flight_plan_ids={plan}",
    guard: "ownPilot",
    // The batch answers the plans that exist for the caller: another account's is left out, as an unknown id is (200, []).
    overrides: { [OTHER_ACCOUNT]: 200 },
  },
  { method: "POST", path: "/flight/v2/point", guard: "token", body: { latitude: 34.01, longitude: -118.48 } },
  // The SDKs' flight routes (sdk-routes.md).
  {
    method: "POST",
    path: "/flight/v2/polygon",
    guard: "token",
    body: { latitude: 34.015, longitude: -118.485, geometry: square },
  },
  {
    method: "POST",
    path: "/flight/v2/path",
    guard: "token",
    body: { latitude: 34.015, longitude: -118.485, geometry: SANTA_MONICA_PATH },
  },
  { method: "GET", path: "/flight/v2/?limit=5", guard: "optionalToken", overrides: { [OTHER_ACCOUNT]: 200 } },
  // The victim's flight is private: whoever is not its pilot is told it does not exist.
  {
    method: "GET",
    path: "/flight/v2/{flight}",
    guard: "optionalToken",
    overrides: { "no token": 404, [SAME_ACCOUNT]: 404 },
  },
  { method: "POST", path: "/flight/v2/{flight}/start-comm", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  { method: "POST", path: "/flight/v2/{flight}/end-comm", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  // Reading another pilot's private flight is 404, as for the flight itself.
  { method: "GET", path: "/flight/v2/{flight}/telemetry", guard: "ownPilot", overrides: PRIVATE_404 },
  { method: "POST", path: "/flight/v2/{flight}/end", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  { method: "POST", path: "/flight/v2/{planned}/delete", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  { method: "DELETE", path: "/flight/v2/{planned}", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  { method: "GET", path: "/flight/v2/{submitted}/plan", guard: "ownPilot", overrides: PRIVATE_404 },
  {
    method: "GET",
    path: "/archive/v1/telemetry/position?flight_id={flight}",
    guard: "ownPilot",
    overrides: PRIVATE_404,
  },
  // Live flights: a private flight's conformance, tickets, pages and HTTP ingest are its pilot's alone
  // (the briefing page needs a flight made from a plan).
  ...[
    "GET /flight/v2/{flight}/conformance",
    "POST /flight/v2/{flight}/ticket",
    "GET /flight/v2/{flight}/live",
    "GET /flight/v2/{submitted}/briefing",
  ].map((line) => {
    const [method, path] = line.split(" ") as [string, string];
    return {
      method,
      path,
      guard: "optionalToken" as const,
      overrides: { "no token": 404, [SAME_ACCOUNT]: 404 },
    };
  }),
  {
    method: "POST",
    path: "/flight/v2/{flight}/telemetry",
    guard: "ownPilot",
    body: {
      states: [
        {
          // Now: states are taken from 1 h before the flight's start (proto/recordTime.ts).
          timestamp: { value: new Date().toISOString(), format: "RFC3339" },
          position: { lat: 34.015, lng: -118.485, alt: 60 },
          track: 0,
          speed: 0,
          vertical_speed: 0,
        },
      ],
    },
    overrides: PRIVATE_404,
  },
  // Development only: switches a flight's monitoring; the account's key finds only its own flights.
  {
    method: "POST",
    path: "/dev/v1/flights/{flight}/monitoring",
    guard: "key",
    body: { enabled: true },
    overrides: OTHER_ACCOUNT_404,
  },
];

/**
 * Rules, evaluation, advisories, status, airspace and weather: the API key alone (the C++ SDK sends
 * no token), the plan-id routes included. No rulesets, airspace or weather provider in this
 * database: the owner gets past the key to a 400/404/503.
 */
export const AIRSPACE_ROUTES: ProtectedRoute[] = [
  { method: "POST", path: "/rules/v1", guard: "key", body: { geometry: square } },
  {
    method: "GET",
    path: "/rules/v1/{plan}/evaluation",
    guard: "key",
    overrides: { ...OTHER_ACCOUNT_404, "no token": 200 },
  },
  {
    method: "POST",
    path: "/rules/v1/evaluation",
    guard: "key",
    body: { geometry: square, rulesets: "usa_part_107" },
    overrides: { "own credentials": 400 },
  },
  {
    method: "GET",
    path: "/rules/v1/rule?rulesets=usa_part_107",
    guard: "key",
    overrides: { "own credentials": 400 },
  },
  {
    method: "GET",
    path: "/rules/v1?rulesets=usa_part_107",
    guard: "key",
    overrides: { "own credentials": 400 },
  },
  { method: "GET", path: "/rules/v1/usa_part_107", guard: "key", overrides: { "own credentials": 404 } },
  {
    method: "GET",
    path: `/advisory/v1/airspace?${geometryQuery(square)}&rulesets=usa_part_107`,
    guard: "key",
    overrides: { "own credentials": 400 },
  },
  {
    method: "POST",
    path: "/advisory/v1/airspace",
    guard: "key",
    body: { geometry: square, rulesets: "usa_part_107" },
    overrides: { "own credentials": 400 },
  },
  {
    method: "POST",
    path: "/advisory/v2/airspace",
    guard: "key",
    body: { geometry: square, rulesets: "usa_part_107" },
    overrides: { "own credentials": 400 },
  },
  // A plan's advisories: its account's key reads them without a token; another account's finds nothing.
  {
    method: "GET",
    path: "/advisory/v1/airspace/{plan}",
    guard: "key",
    overrides: { ...OTHER_ACCOUNT_404, "no token": 200 },
  },
  {
    method: "GET",
    path: "/advisory/v1/weather?latitude=34.01&longitude=-118.48",
    guard: "key",
    overrides: { "own credentials": 503 },
  },
  { method: "GET", path: "/status/v2/point?latitude=34.01&longitude=-118.48", guard: "key" },
  { method: "GET", path: `/status/v2/polygon?${geometryQuery(square)}`, guard: "key" },
  { method: "POST", path: "/status/v2/polygon", guard: "key", body: { geometry: square } },
  { method: "GET", path: `/status/v2/path?${geometryQuery(SANTA_MONICA_PATH)}`, guard: "key" },
  { method: "POST", path: "/status/v2/path", guard: "key", body: { geometry: SANTA_MONICA_PATH } },
  { method: "GET", path: `/airspace/v2/search?${geometryQuery(square)}`, guard: "key" },
  { method: "POST", path: "/airspace/v2/search", guard: "key", body: { geometry: square } },
  { method: "GET", path: "/airspace/v2/list?ids=ourairports:KSMO", guard: "key" },
  {
    method: "GET",
    path: "/airspace/v2/ourairports:KSMO",
    guard: "key",
    overrides: { "own credentials": 404 },
  },
  // An id with a raw `/` (the C++ SDK sends them unencoded).
  { method: "GET", path: "/airspace/v2/faa/KSMO", guard: "key", overrides: { "own credentials": 404 } },
];

/** Elevation, system status, the conformance webhook and deep links: account-level, the API key alone. */
export const SERVICE_ROUTES: ProtectedRoute[] = [
  // No tiles in this database: points answer null, a carpet finds no data (404).
  { method: "GET", path: "/elevation/v1/ele?points=34.01,-118.48", guard: "key" },
  { method: "POST", path: "/elevation/v1/ele", guard: "key", body: { points: [[34.01, -118.48]] } },
  {
    method: "GET",
    path: "/elevation/v1/ele/carpet?points=34.01,-118.48,34.02,-118.47",
    guard: "key",
    overrides: { "own credentials": 404 },
  },
  {
    method: "POST",
    path: "/elevation/v1/ele/carpet",
    guard: "key",
    body: { points: "34.01,-118.48,34.02,-118.47" },
    overrides: { "own credentials": 404 },
  },
  { method: "GET", path: "/elevation/v1/ele/path?points=34.01,-118.48,34.02,-118.47", guard: "key" },
  {
    method: "POST",
    path: "/elevation/v1/ele/path",
    guard: "key",
    body: { points: "34.01,-118.48,34.02,-118.47" },
  },
  { method: "GET", path: "/airspace/v2/sources", guard: "key" },
  { method: "GET", path: "/system/v1/status", guard: "key" },
  { method: "GET", path: "/system/v1/sign_in_metrics", guard: "key" },
  // A WebSocket: with the key and no Upgrade header, 426 (test/worker/swiftRequests.test.ts opens it).
  { method: "GET", path: "/system/v1/status/monitor", guard: "key", overrides: { "own credentials": 426 } },
  // A fresh account has no webhook to show or remove.
  {
    method: "PUT",
    path: "/webhooks/v1/conformance",
    guard: "key",
    body: { url: "https://hooks.example.com/windsock" },
  },
  { method: "GET", path: "/webhooks/v1/conformance", guard: "key", overrides: { "own credentials": 404 } },
  { method: "DELETE", path: "/webhooks/v1/conformance", guard: "key", overrides: { "own credentials": 404 } },
  // With the pilot's token the link carries a single-use sign-in for that pilot; another account's
  // pilot builds links for their own account.
  {
    method: "POST",
    path: "/deeplink/v1/create_flight",
    guard: "optionalToken",
    body: { geometry: square },
    overrides: { [OTHER_ACCOUNT]: 200 },
  },
  { method: "GET", path: "/deeplink/v1/callbacks", guard: "key" },
  {
    method: "POST",
    path: "/deeplink/v1/callbacks",
    guard: "key",
    body: { url: "https://hooks.example.com/cb" },
  },
];

export const PROTECTED_ROUTES: ProtectedRoute[] = [
  ...PILOT_ROUTES,
  ...FLIGHT_ROUTES,
  ...AIRSPACE_ROUTES,
  ...SERVICE_ROUTES,
];

/**
 * Routes answered without an API key, as the app declares them (`METHOD /hono/path`). Each is
 * public on purpose; index.ts `PUBLIC_PATHS` lets them through.
 */
export const PUBLIC_ROUTES: string[] = [
  // The identity provider's discovery document where the Swift SDK looks for it, keyless as AppAuth
  // asks (test/worker/sdkLogin.test.ts): the provider's public document, nothing of the account's.
  "GET /realms/:realm/.well-known/openid-configuration",
  // Liveness, for load balancers and `npm start`.
  "GET /health",
  // Public keys that verify pilot tokens.
  "GET /.well-known/jwks.json",
  // The API reference and its assets.
  "GET /openapi.json",
  "GET /docs",
  "GET /favicon.ico",
  // The deep-link page: it acts as the account its link names (test/worker/deeplink*.test.ts).
  "GET /create_flight/v1",
  "POST /create_flight/v1",
  // The outer deep link and the app association files (test/worker/appLinks.test.ts).
  "GET /deeplink/v1/open",
  "GET /.well-known/apple-app-site-association",
  "GET /.well-known/assetlinks.json",
  // Its sign-in at the application's identity provider: state, nonce and PKCE single-use (test/e2e/pilots.test.ts).
  "GET /create_flight/v1/sign_in",
  "GET /create_flight/v1/signed_in",
  // A browser's live stream carries a signed ticket instead; without one it asks for the API key
  // (test/worker/live.test.ts). Not in the matrix: its 200 is an endless event stream.
  "GET /flight/v2/:flight_id/telemetry/stream",
  // Its track as a file, read like the live page: a ticket, else the API key and the pilot's
  // token (test/worker/trackExport.test.ts).
  "GET /flight/v2/:flight_id/track",
  // The pages' vector basemap: TileJSON and tiles MapLibre reads, as keyless as the pages
  // (test/worker/basemap.test.ts).
  "GET /maps/v1/basemap.json",
  "GET /maps/v1/basemap/:z/:x/:y",
  // The front page and the airspace map with its status on a click: what a visitor meets
  // (test/worker/front.test.ts, test/browser/front.test.ts).
  "GET /",
  "GET /map",
  "GET /map/status",
];

/**
 * Routes that take no API key but a bearer credential of their own: a request without it must get
 * 401, which coverage.test.ts checks for each. The InterUSS and F3411 routes take the authority's
 * access tokens (worker/interuss/auth.ts; scopes tested in test/worker/interuss*.test.ts,
 * test/worker/rid*.test.ts); `/internal/` takes the relay's secret.
 */
export const BEARER_ROUTES: string[] = [
  "GET /interuss/geospatial_map/v1/status",
  "GET /interuss/geospatial_map/v1/geospatial_data_sources",
  "PUT /interuss/geospatial_map/v1/geospatial_data_sources/:geospatial_data_source_id",
  "GET /interuss/geospatial_map/v1/geospatial_data_sources/:geospatial_data_source_id",
  "DELETE /interuss/geospatial_map/v1/geospatial_data_sources/:geospatial_data_source_id",
  "POST /interuss/geospatial_map/v1/map/queries",
  "GET /interuss/flight_planning/v1/status",
  "PUT /interuss/flight_planning/v1/flight_plans/:flight_plan_id",
  "DELETE /interuss/flight_planning/v1/flight_plans/:flight_plan_id",
  "POST /interuss/flight_planning/v1/clear_area_requests",
  "GET /interuss/flight_planning/v1/user_notifications",
  // ASTM F3411 Remote ID (USS interface) and its InterUSS test-data injection.
  "GET /rid/v2/uss/flights",
  "GET /rid/v2/uss/flights/:id/details",
  "POST /rid/v2/uss/identification_service_areas/:id",
  "PUT /interuss/rid/v1/tests/:test_id",
  "DELETE /interuss/rid/v1/tests/:test_id/:version",
  "GET /interuss/rid/v1/user_notifications",
  // ASTM F3411-22a DSS (worker/routes/dss.ts; scopes tested in test/worker/dss.test.ts).
  "GET /rid/v2/dss/identification_service_areas",
  "GET /rid/v2/dss/identification_service_areas/:id",
  "PUT /rid/v2/dss/identification_service_areas/:id",
  "PUT /rid/v2/dss/identification_service_areas/:id/:version",
  "DELETE /rid/v2/dss/identification_service_areas/:id/:version",
  "DELETE /rid/v2/dss/identification_service_areas/:id",
  "GET /rid/v2/dss/subscriptions",
  "GET /rid/v2/dss/subscriptions/:id",
  "PUT /rid/v2/dss/subscriptions/:id",
  "PUT /rid/v2/dss/subscriptions/:id/:version",
  "DELETE /rid/v2/dss/subscriptions/:id/:version",
  "DELETE /rid/v2/dss/subscriptions/:id",
  // ASTM F3548-21 DSS (worker/routes/dssScd.ts; scopes tested in test/worker/dssScd.test.ts).
  "POST /dss/v1/operational_intent_references/query",
  "GET /dss/v1/operational_intent_references/:entityid",
  "PUT /dss/v1/operational_intent_references/:entityid",
  "PUT /dss/v1/operational_intent_references/:entityid/:ovn",
  "DELETE /dss/v1/operational_intent_references/:entityid/:ovn",
  "DELETE /dss/v1/operational_intent_references/:entityid",
  "POST /dss/v1/constraint_references/query",
  "GET /dss/v1/constraint_references/:entityid",
  "PUT /dss/v1/constraint_references/:entityid",
  "PUT /dss/v1/constraint_references/:entityid/:ovn",
  "DELETE /dss/v1/constraint_references/:entityid/:ovn",
  "DELETE /dss/v1/constraint_references/:entityid",
  "POST /dss/v1/subscriptions/query",
  "GET /dss/v1/subscriptions/:subscriptionid",
  "PUT /dss/v1/subscriptions/:subscriptionid",
  "PUT /dss/v1/subscriptions/:subscriptionid/:version",
  "DELETE /dss/v1/subscriptions/:subscriptionid/:version",
  "DELETE /dss/v1/subscriptions/:subscriptionid",
  "POST /dss/v1/reports",
  "PUT /dss/v1/uss_availability/:uss_id",
  "GET /dss/v1/uss_availability/:uss_id",
  // ASTM F3548-21 between USSs (worker/routes/ussScd.ts; scopes tested in test/worker/ussScd.test.ts).
  "GET /uss/v1/operational_intents/:entityid",
  "GET /uss/v1/operational_intents/:entityid/telemetry",
  "POST /uss/v1/operational_intents",
  "POST /uss/v1/reports",
  // The relay's internal API (RELAY_SECRET).
  "GET /internal/v1/flights/:flight_id/session",
  "POST /internal/v1/telemetry",
  "POST /internal/v1/traffic/clients",
];
