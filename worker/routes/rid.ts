import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Problem } from "../domain/problem";
import type { AppEnv } from "../env";
import { requireScope } from "../interuss/auth";
import { notificationWindow } from "../interuss/flightPlanning";
import {
  AUTH_ERRORS,
  bodyOf,
  errorResponse,
  interussValidationHook,
  jsonResponse,
  renderInterussError,
} from "../interuss/http";
import { limitPerSubject } from "../interuss/rateLimit";
import { createTest, deleteTest, TestExists, TestNotFound } from "../interuss/ridInjection";
import { InvalidInput } from "../interuss/volumes";
import { isObject } from "../lib/json";
import { publicOrigin } from "../lib/publicOrigin";
import { isoTime } from "../lib/time";
import { RID_SCOPES } from "../rid/constants";
import { parseRecentDuration, parseView } from "../rid/view";
import { flightDetails, flightsInView } from "../services/remoteId";
import { DssUnavailable } from "../services/ridDss";
import { operatorNotificationsBetween } from "../store/ridNotifications";

/**
 * ASTM F3411-22a network Remote ID, Service Provider side (`/rid/v2/uss/…`), and the qualifier's RID
 * test-data injection (`/interuss/rid/v1/…`). Bodies are the standard's and the interface's own JSON,
 * errors `{"message"}` (an exception to CONTRACT §1); the credential is the authority's bearer token
 * with the endpoint's scope (worker/interuss/auth.ts), rate limited per token subject. The logic is
 * in worker/rid/ (pure), worker/services/remoteId.ts and worker/interuss/ridInjection.ts.
 */

const USS = "/rid/v2/uss";
const INJECT = "/interuss/rid/v1";

const guarded = (scope: string) => ({
  security: [{ InterussBearer: [scope] }],
  middleware: [requireScope(scope), limitPerSubject()],
});

const Time = z.object({ value: z.string(), format: z.literal("RFC3339") });
const Position = z.object({
  lat: z.number(),
  lng: z.number(),
  alt: z.number().openapi({ description: "WGS84 ellipsoid height, meters" }),
  accuracy_h: z.string(),
  accuracy_v: z.string(),
  extrapolated: z.boolean(),
  pressure_altitude: z.number().optional(),
  height: z
    .object({ distance: z.number(), reference: z.enum(["TakeoffLocation", "GroundLevel"]) })
    .optional(),
});
const RIDFlight = z
  .object({
    id: z.string(),
    aircraft_type: z.string(),
    current_state: z.object({
      timestamp: Time,
      timestamp_accuracy: z.number(),
      operational_status: z.string(),
      position: Position,
      track: z.number(),
      speed: z.number(),
      speed_accuracy: z.string(),
      vertical_speed: z.number(),
    }),
    simulated: z.boolean(),
    recent_positions: z.array(z.object({ time: Time, position: Position })),
  })
  .openapi("RIDFlight");
const GetFlightsResponse = z
  .object({ timestamp: Time, flights: z.array(RIDFlight) })
  .openapi("GetFlightsResponse");
const UASID = z
  .object({
    serial_number: z.string().optional(),
    registration_id: z.string().optional(),
    utm_id: z.string().optional(),
    specific_session_id: z.string().optional(),
  })
  .openapi("UASID");
const OperatorLocation = z
  .object({
    position: z.object({ lat: z.number(), lng: z.number() }),
    altitude: z.object({ value: z.number(), reference: z.literal("W84"), units: z.literal("M") }).optional(),
    altitude_type: z.enum(["Takeoff", "Dynamic", "Fixed"]).optional(),
  })
  .openapi("OperatorLocation");
const RIDFlightDetails = z
  .object({
    id: z.string(),
    eu_classification: z.object({ category: z.string().optional(), class: z.string().optional() }).optional(),
    uas_id: UASID.optional(),
    operator_id: z.string().optional(),
    operator_location: OperatorLocation.optional(),
    operation_description: z.string().optional(),
    auth_data: z.object({ format: z.number().optional(), data: z.string().optional() }).optional(),
  })
  .openapi("RIDFlightDetails");
const GetFlightDetailsResponse = z.object({ details: RIDFlightDetails }).openapi("GetFlightDetailsResponse");
/** An injected flight as the qualifier sent it (injection.yaml TestFlight), echoed back. */
const TestFlight = z
  .object({
    injection_id: z.string(),
    aircraft_type: z.string().optional(),
    telemetry: z.array(
      z.object({
        timestamp: z.string().optional(),
        timestamp_accuracy: z.number().optional(),
        operational_status: z.string().optional(),
        position: z
          .object({ lat: z.number().optional(), lng: z.number().optional(), alt: z.number().optional() })
          .optional(),
        track: z.number().optional(),
        speed: z.number().optional(),
        vertical_speed: z.number().optional(),
        height: z.object({ distance: z.number().optional(), reference: z.string().optional() }).optional(),
      }),
    ),
    // The injection interface's details place the operator at a bare LatLngPoint.
    details_responses: z.array(
      z.object({
        effective_after: z.string(),
        details: z.object({
          id: z.string().optional(),
          uas_id: UASID.optional(),
          operator_id: z.string().optional(),
          operator_location: z
            .union([OperatorLocation, z.object({ lat: z.number(), lng: z.number() })])
            .optional(),
          operation_description: z.string().optional(),
        }),
      }),
    ),
  })
  .openapi("TestFlight");
const ChangeTestResponse = z
  .object({ injected_flights: z.array(TestFlight), version: z.string() })
  .openapi("ChangeTestResponse");
const DeleteTestResponse = z.object({ injected_flights: z.array(TestFlight) }).openapi("DeleteTestResponse");
const RidUserNotification = z
  .object({
    observed_at: z.object({ value: z.string(), format: z.literal("RFC3339") }),
    message: z.string().optional(),
  })
  .openapi("RidUserNotification");
const NotificationsResponse = z
  .object({ user_notifications: z.array(RidUserNotification) })
  .openapi("RidQueryUserNotificationsResponse");

const routes = {
  flights: createRoute({
    method: "get",
    path: `${USS}/flights`,
    tags: ["Remote ID"],
    summary: "F3411-22a: flights with a position in the view during the last 60 s, every account's",
    ...guarded(RID_SCOPES.displayProvider),
    request: {
      query: z.object({
        view: z.string().optional().openapi({ description: "lat1,lng1,lat2,lng2; diagonal at most 7 km" }),
        recent_positions_duration: z.string().optional().openapi({ description: "seconds, 0 to 60" }),
      }),
    },
    responses: {
      200: jsonResponse(GetFlightsResponse, "The flights"),
      400: errorResponse("view or recent_positions_duration invalid"),
      413: errorResponse(
        "The view's diagonal is over NetMaxDisplayAreaDiagonalKm (7 km), or over 1,000 live flights report near it",
      ),
      ...AUTH_ERRORS,
    },
  }),
  details: createRoute({
    method: "get",
    path: `${USS}/flights/{id}/details`,
    tags: ["Remote ID"],
    summary: "F3411-22a: a reported flight's details (operator location, UAS id)",
    ...guarded(RID_SCOPES.displayProvider),
    request: { params: z.object({ id: z.string().min(1).max(255) }) },
    responses: {
      200: jsonResponse(GetFlightDetailsResponse, "The details"),
      404: errorResponse("No such flight"),
      ...AUTH_ERRORS,
    },
  }),
  isaNotification: createRoute({
    method: "post",
    path: `${USS}/identification_service_areas/{id}`,
    tags: ["Remote ID"],
    summary:
      "F3411-22a: an Identification Service Area changed (acknowledged; this service keeps no subscriptions)",
    ...guarded(RID_SCOPES.serviceProvider),
    request: {
      params: z.object({ id: z.uuid() }),
      body: bodyOf("PutIdentificationServiceAreaNotificationParameters"),
    },
    responses: {
      204: { description: "Received" },
      400: errorResponse("Invalid notification"),
      ...AUTH_ERRORS,
    },
  }),
  createTest: createRoute({
    method: "put",
    path: `${INJECT}/tests/{test_id}`,
    tags: ["InterUSS"],
    summary: "RID injection: create test flights whose states are stored as telemetry",
    ...guarded(RID_SCOPES.injectTestData),
    request: {
      params: z.object({ test_id: z.string().min(1).max(100) }),
      body: bodyOf("CreateTestParameters"),
    },
    responses: {
      200: jsonResponse(ChangeTestResponse, "Injected"),
      400: errorResponse("Invalid test data"),
      409: errorResponse("Test already exists"),
      503: errorResponse(
        "A DSS is configured and the test's Identification Service Area could not be registered",
      ),
      ...AUTH_ERRORS,
    },
  }),
  deleteTest: createRoute({
    method: "delete",
    path: `${INJECT}/tests/{test_id}/{version}`,
    tags: ["InterUSS"],
    summary: "RID injection: remove a test's flights and their telemetry",
    ...guarded(RID_SCOPES.injectTestData),
    request: {
      params: z.object({ test_id: z.string().min(1).max(100), version: z.string().min(1).max(100) }),
    },
    responses: {
      200: jsonResponse(DeleteTestResponse, "Deleted"),
      404: errorResponse("No such test at that version"),
      ...AUTH_ERRORS,
    },
  }),
  notifications: createRoute({
    method: "get",
    path: `${INJECT}/user_notifications`,
    tags: ["InterUSS"],
    summary:
      "RID injection: the operator notifications F3411 requires (updates below 1 Hz, missing fields), with their times",
    ...guarded(RID_SCOPES.injectTestData),
    request: { query: z.object({ after: z.string().optional(), before: z.string().optional() }) },
    responses: {
      200: jsonResponse(NotificationsResponse, "The notifications"),
      400: errorResponse("Invalid request"),
      ...AUTH_ERRORS,
    },
  }),
};

const firstProblem = (problems: Problem[]) => {
  const p = problems[0]!;
  return {
    status: problems.some((x) => x.tooLarge) ? (413 as const) : (400 as const),
    message: `${p.field}: ${p.message}`,
  };
};

const renderKnownError = renderInterussError([
  [InvalidInput, 400],
  [TestExists, 409],
  [TestNotFound, 404],
]);

function renderRidError(e: Error, c: Context<AppEnv>) {
  if (e instanceof DssUnavailable) return c.json({ message: `DSS registration failed: ${e.message}` }, 503);
  return renderKnownError(e, c);
}

export const ridRoutes = new OpenAPIHono<AppEnv>({ strict: false, defaultHook: interussValidationHook })
  .openapi(routes.flights, async (c) => {
    const query = c.req.valid("query");
    const view = parseView(query.view);
    if (!view.ok) {
      const { status, message } = firstProblem(view.problems);
      return c.json({ message }, status);
    }
    const recent = parseRecentDuration(query.recent_positions_duration);
    if (!recent.ok) return c.json({ message: firstProblem(recent.problems).message }, 400);
    const found = await flightsInView(c.env, view.value, recent.value, Date.now());
    if (!found.ok) {
      const { status, message } = firstProblem(found.problems);
      return c.json({ message }, status);
    }
    return c.json(found.value, 200);
  })
  .openapi(routes.details, async (c) => {
    const { id } = c.req.valid("param");
    const details = await flightDetails(c.env, id, Date.now());
    if (!details) return c.json({ message: `No flight ${id} is reported` }, 404);
    return c.json({ details }, 200);
  })
  .openapi(routes.isaNotification, (c) => {
    const body = c.req.valid("json");
    const subscriptions = body.subscriptions;
    if (!Array.isArray(subscriptions) || subscriptions.length === 0)
      return c.json({ message: "subscriptions: at least one SubscriptionState" }, 400);
    if (!subscriptions.every((s) => isObject(s) && typeof s.subscription_id === "string"))
      return c.json({ message: "subscriptions: each needs subscription_id" }, 400);
    return c.body(null, 204);
  })
  .openapi(routes.createTest, async (c) => {
    const { test_id: testId } = c.req.valid("param");
    const ownBase = `${publicOrigin(c)}/rid/v2`;
    const created = await createTest(c.var.db, c.env, testId, c.req.valid("json"), Date.now(), ownBase);
    // The qualifier's own TestFlight objects, checked on the way in by worker/rid/injection.ts, echoed.
    return c.json(created as z.infer<typeof ChangeTestResponse>, 200);
  })
  .openapi(routes.deleteTest, async (c) => {
    const { test_id: testId, version } = c.req.valid("param");
    const deleted = await deleteTest(c.var.db, c.env, testId, version, Date.now());
    return c.json(deleted as z.infer<typeof DeleteTestResponse>, 200);
  })
  .openapi(routes.notifications, async (c) => {
    const { after, before } = c.req.valid("query");
    const now = Date.now();
    const window = notificationWindow(after, before, now);
    // A notification dated ahead (an injected state still to come) has not been observed yet.
    const rows = await operatorNotificationsBetween(c.var.db, window.after, Math.min(window.before, now));
    return c.json(
      {
        user_notifications: rows.map((n) => ({
          observed_at: { value: isoTime(n.observedAt), format: "RFC3339" as const },
          message: n.message,
        })),
      },
      200,
    );
  });

ridRoutes.onError(renderRidError);
