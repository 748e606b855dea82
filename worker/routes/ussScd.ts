import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { SCD_SCOPES } from "../dss/scdDss";
import type { AppEnv } from "../env";
import { callerOf } from "../interuss/auth";
import {
  AUTH_ERRORS,
  errorResponse,
  interussValidationHook,
  jsonResponse,
  renderInterussError,
} from "../interuss/http";
import { InvalidInput } from "../interuss/volumes";
import {
  ownIntent,
  ownIntentTelemetry,
  receiveIntentNotification,
  receiveUssReport,
} from "../services/ussPeers";
import { absent, answer, Volume4D } from "./dss";
import { ErrorReport, json, OperationalIntentReference, utmGuarded } from "./dssScd";

/**
 * ASTM F3548-21 between USSs (`/uss/v1/…`, astm-utm/Protocol `utm.yaml` 1.0.0, the p2p_utm
 * operations): other USSs read the details of Windsock's operational intents, tell it of changes to
 * theirs and report problems. Windsock manages no constraints and subscribes to none, so the
 * constraint operations are not served. Errors are the standard's `{"message"}`.
 */

const USS = "/uss/v1";
const { strategicCoordination: SC, conformanceMonitoring: CMSA } = SCD_SCOPES;

const guarded = (...scopes: string[]) => utmGuarded("UTM USS: operational intents", ...scopes);

const Details = z
  .object({
    volumes: z.array(Volume4D),
    off_nominal_volumes: z.array(Volume4D),
    priority: z.number().int(),
  })
  .openapi("OperationalIntentDetails");
const OperationalIntent = z
  .object({ reference: OperationalIntentReference, details: Details })
  .openapi("OperationalIntent");
const Notification = z
  .object({
    operational_intent_id: z.uuid(),
    // Checked in depth by the service (worker/services/operationalIntents.ts), which keeps it as sent.
    operational_intent: absent(z.looseObject({ reference: z.looseObject({}), details: z.looseObject({}) })),
    subscriptions: z
      .array(z.object({ subscription_id: z.string().min(1), notification_index: z.number().int() }))
      .min(1)
      // A USS notifies for its few subscriptions there; more is no notification but a load.
      .max(100),
  })
  .openapi("PutOperationalIntentDetailsParameters");
const Telemetry = z
  .object({
    operational_intent_id: z.string(),
    telemetry: z.object({
      time_measured: z.object({ value: z.string(), format: z.literal("RFC3339") }),
      position: z.object({ latitude: z.number(), longitude: z.number() }),
    }),
  })
  .openapi("GetOperationalIntentTelemetryResponse");

const entity = z.object({ entityid: z.uuid() });
const intents = `${USS}/operational_intents`;

const routes = {
  details: createRoute({
    method: "get",
    path: `${intents}/{entityid}`,
    summary: "F3548-21 USS: the details and reference of one of Windsock's operational intents",
    ...guarded(SC),
    request: { params: entity },
    responses: {
      200: jsonResponse(z.object({ operational_intent: OperationalIntent }), "The operational intent"),
      400: errorResponse("The id is not an EntityID"),
      404: errorResponse("Windsock manages no such operational intent"),
      ...AUTH_ERRORS,
    },
  }),
  telemetry: createRoute({
    method: "get",
    path: `${intents}/{entityid}/telemetry`,
    summary: "F3548-21 USS: the latest position of an off-nominal operational intent's aircraft",
    ...guarded(CMSA),
    request: { params: entity },
    responses: {
      200: jsonResponse(Telemetry, "Its latest position"),
      400: errorResponse("The id is not an EntityID"),
      404: errorResponse("Windsock manages no such operational intent"),
      409: errorResponse("The operational intent is not Nonconforming or Contingent"),
      412: errorResponse("No position reported in the last two minutes"),
      ...AUTH_ERRORS,
    },
  }),
  notify: createRoute({
    method: "post",
    path: intents,
    summary: "F3548-21 USS: another USS tells Windsock of its changed (or removed) operational intent",
    ...guarded(SC),
    request: { body: json(Notification) },
    responses: {
      204: { description: "Received" },
      400: errorResponse("Invalid notification"),
      403: errorResponse("The sender does not manage that operational intent (or lacks the scope)"),
      409: errorResponse("An older version than one received before, or the same version changed"),
      401: AUTH_ERRORS[401],
      429: AUTH_ERRORS[429],
    },
  }),
  report: createRoute({
    method: "post",
    path: `${USS}/reports`,
    summary: "F3548-21 USS: another USS reports a problem it met with Windsock (kept for the operator)",
    ...guarded(...Object.values(SCD_SCOPES)),
    request: { body: json(ErrorReport) },
    responses: {
      201: jsonResponse(ErrorReport, "Kept, with its report_id"),
      400: errorResponse("Invalid report"),
      ...AUTH_ERRORS,
    },
  }),
};

export const ussScdRoutes = new OpenAPIHono<AppEnv>({ strict: false, defaultHook: interussValidationHook })
  .openapi(routes.details, async (c) => {
    return answer(c, await ownIntent(c.var.db, c.req.valid("param").entityid)) as never;
  })
  .openapi(routes.telemetry, async (c) => {
    return answer(c, await ownIntentTelemetry(c.var.db, c.env.DB, c.req.valid("param").entityid)) as never;
  })
  .openapi(routes.notify, async (c) => {
    const received = await receiveIntentNotification(
      c.var.db,
      c.env,
      callerOf(c).sub,
      c.req.valid("json"),
      Date.now(),
    );
    return received.ok ? c.body(null, 204) : (answer(c, received) as never);
  })
  .openapi(routes.report, async (c) => {
    return c.json(await receiveUssReport(c.var.db, callerOf(c).sub, c.req.valid("json"), Date.now()), 201);
  });

ussScdRoutes.onError(renderInterussError([[InvalidInput, 400]]));
