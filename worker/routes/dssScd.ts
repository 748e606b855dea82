import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { SCD_SCOPES, scdDssOf } from "../dss/scdDss";
import type { AppEnv } from "../env";
import { callerOf, requireScope } from "../interuss/auth";
import {
  AUTH_ERRORS,
  errorResponse,
  interussValidationHook,
  jsonResponse,
  renderInterussError,
} from "../interuss/http";
import { limitPerSubject } from "../interuss/rateLimit";
import { absent, answer, Time, Volume4D } from "./dss";

/**
 * ASTM F3548-21 Discovery and Synchronization Service (`/dss/v1/…`, astm-utm/Protocol `utm.yaml`
 * 1.0.0): operational intent and constraint references, subscriptions, reports and USS availability,
 * kept by worker/dss/scdDss.ts's one Durable Object. The caller is its token's `sub`; errors are the
 * standard's `{"message"}` (with the missing entities on a key conflict).
 */

const DSS = "/dss/v1";
const {
  strategicCoordination: SC,
  constraintManagement: CM,
  constraintProcessing: CP,
  conformanceMonitoring: CMSA,
  availabilityArbitration: AA,
} = SCD_SCOPES;

/** An F3548 route's tag, its scopes (any one) in the document, and their check and rate limit. */
export const utmGuarded = (tag: string, ...scopes: string[]) => ({
  tags: [tag],
  security: scopes.map((s) => ({ InterussBearer: [s] })),
  middleware: [requireScope(scopes[0]!, ...scopes.slice(1)), limitPerSubject()],
});
const guarded = (tag: string, ...scopes: string[]) => utmGuarded(`UTM DSS: ${tag}`, ...scopes);

const State = z.enum(["Accepted", "Activated", "Nonconforming", "Contingent"]);
const Availability = z.enum(["Unknown", "Normal", "Down"]).openapi("UssAvailabilityState");
const EntityReference = z.object({
  id: z.string(),
  manager: z.string(),
  uss_availability: Availability,
  version: z.number(),
  ovn: z.string().openapi({ description: "The OVN to its manager; 'Available from USS' to others" }),
  time_start: Time,
  time_end: Time,
  uss_base_url: z.string(),
});
export const OperationalIntentReference = EntityReference.extend({
  state: State,
  subscription_id: z.string(),
}).openapi("OperationalIntentReference");
const ConstraintReference = EntityReference.openapi("ConstraintReference");
const Subscription = z
  .object({
    id: z.string(),
    version: z.string(),
    notification_index: z.number(),
    time_start: Time,
    time_end: Time,
    uss_base_url: z.string(),
    notify_for_operational_intents: z.boolean(),
    notify_for_constraints: z.boolean(),
    implicit_subscription: z.boolean(),
    dependent_operational_intents: z.array(z.string()),
  })
  .openapi("UtmSubscription");
const SubscriberToNotify = z
  .object({
    uss_base_url: z.string(),
    subscriptions: z.array(z.object({ subscription_id: z.string(), notification_index: z.number() })),
  })
  .openapi("UtmSubscriberToNotify");
const AirspaceConflict = z
  .object({
    message: z.string(),
    // Absent when the 409 is a stale OVN rather than a key that misses entities.
    missing_operational_intents: z.array(OperationalIntentReference).optional(),
    missing_constraints: z.array(ConstraintReference).optional(),
  })
  .openapi("AirspaceConflictResponse");
const AvailabilityStatus = z
  .object({ status: z.object({ uss: z.string(), availability: Availability }), version: z.string() })
  .openapi("UssAvailabilityStatusResponse");
const ExchangeRecord = z
  .object({
    url: z.string(),
    method: z.string(),
    headers: z.array(z.string()).optional(),
    recorder_role: z.enum(["Client", "Server"]),
    request_time: Time,
    request_body: z.string().optional(),
    response_time: Time.optional(),
    response_body: z.string().optional(),
    response_code: z.number().int().optional(),
    problem: z.string().optional(),
    // Required by utm.yaml, but InterUSS's qualifier reports without it and InterUSS's DSS keeps those.
    request_source: z.string().optional(),
  })
  .openapi("ExchangeRecord");
export const ErrorReport = z
  .object({ report_id: z.string().max(128).optional(), exchange: ExchangeRecord })
  .openapi("ErrorReport");

const PutIntent = z
  .object({
    extents: z.array(Volume4D).min(1),
    key: absent(z.array(z.string())),
    state: State,
    uss_base_url: z.url(),
    subscription_id: absent(z.uuid()),
    new_subscription: absent(
      z.object({ uss_base_url: z.url(), notify_for_constraints: absent(z.boolean()) }),
    ),
    requested_ovn_suffix: absent(z.string()),
  })
  .openapi("PutOperationalIntentReferenceParameters");
const PutConstraint = z
  .object({ extents: z.array(Volume4D).min(1), uss_base_url: z.url() })
  .openapi("PutConstraintReferenceParameters");
const PutSubscription = z
  .object({
    extents: Volume4D,
    uss_base_url: z.url(),
    notify_for_operational_intents: absent(z.boolean()),
    notify_for_constraints: absent(z.boolean()),
  })
  .openapi("PutSubscriptionParameters");
const Query = z.object({ area_of_interest: Volume4D }).openapi("QueryParameters");

export const json = <T extends z.ZodType>(schema: T) => ({
  content: { "application/json": { schema } },
  required: true,
});
const entity = z.object({ entityid: z.uuid() });
const entityOvn = z.object({ entityid: z.uuid(), ovn: z.string().min(1).max(128) });
const subscription = z.object({ subscriptionid: z.uuid() });
const subscriptionVersion = z.object({ subscriptionid: z.uuid(), version: z.string().min(1).max(128) });
const IntentChange = z
  .object({
    operational_intent_reference: OperationalIntentReference,
    subscribers: z.array(SubscriberToNotify),
  })
  .openapi("ChangeOperationalIntentReferenceResponse");
const ConstraintChange = z
  .object({ constraint_reference: ConstraintReference, subscribers: z.array(SubscriberToNotify) })
  .openapi("ChangeConstraintReferenceResponse");
const SubscriptionChange = z
  .object({
    subscription: Subscription,
    operational_intent_references: z.array(OperationalIntentReference).optional(),
    constraint_references: z.array(ConstraintReference).optional(),
  })
  .openapi("PutSubscriptionResponse");

const QUERY_ERRORS = {
  400: errorResponse("Invalid area of interest"),
  413: errorResponse("The area is over 2,500 km²"),
  ...AUTH_ERRORS,
};
const INTENT_WRITE_ERRORS = {
  400: errorResponse("Invalid parameters, or a mutation the standard does not allow"),
  409: jsonResponse(AirspaceConflict, "The key misses current OVNs (listed), or the OVN is not current"),
  412: errorResponse("The USS is marked Down"),
  ...AUTH_ERRORS,
};
const WRITE_ERRORS = {
  400: errorResponse("Invalid parameters"),
  404: errorResponse("No such entity"),
  409: errorResponse("The entity exists (create), or the OVN or version is not current"),
  ...AUTH_ERRORS,
};

const intents = `${DSS}/operational_intent_references`;
const constraints = `${DSS}/constraint_references`;
const subscriptions = `${DSS}/subscriptions`;
const I = "operational intent references";
const C = "constraint references";
const S = "subscriptions";

const routes = {
  queryIntents: createRoute({
    method: "post",
    path: `${intents}/query`,
    summary: "F3548-21 DSS: operational intent references in an area, altitudes and time",
    ...guarded(I, SC, CMSA),
    request: { body: json(Query) },
    responses: {
      200: jsonResponse(
        z.object({ operational_intent_references: z.array(OperationalIntentReference) }),
        "The references",
      ),
      ...QUERY_ERRORS,
    },
  }),
  getIntent: createRoute({
    method: "get",
    path: `${intents}/{entityid}`,
    summary: "F3548-21 DSS: one operational intent reference",
    ...guarded(I, SC, CMSA),
    request: { params: entity },
    responses: {
      200: jsonResponse(
        z.object({ operational_intent_reference: OperationalIntentReference }),
        "The reference",
      ),
      404: errorResponse("No such operational intent"),
      ...AUTH_ERRORS,
    },
  }),
  createIntent: createRoute({
    method: "put",
    path: `${intents}/{entityid}`,
    summary: "F3548-21 DSS: create an operational intent reference (Accepted); answers the subscribers",
    ...guarded(I, SC, CMSA),
    request: { params: entity, body: json(PutIntent) },
    responses: { 201: jsonResponse(IntentChange, "Created"), ...INTENT_WRITE_ERRORS },
  }),
  updateIntent: createRoute({
    method: "put",
    path: `${intents}/{entityid}/{ovn}`,
    summary: "F3548-21 DSS: update an operational intent reference at its current OVN",
    ...guarded(I, SC, CMSA),
    request: { params: entityOvn, body: json(PutIntent) },
    responses: { 200: jsonResponse(IntentChange, "Updated"), ...INTENT_WRITE_ERRORS },
  }),
  deleteIntent: createRoute({
    method: "delete",
    path: `${intents}/{entityid}/{ovn}`,
    summary: "F3548-21 DSS: delete an operational intent reference at its current OVN",
    ...guarded(I, SC, CMSA),
    request: { params: entityOvn },
    responses: {
      200: jsonResponse(IntentChange, "Deleted"),
      ...WRITE_ERRORS,
      412: errorResponse("The USS is marked Down"),
    },
  }),
  queryConstraints: createRoute({
    method: "post",
    path: `${constraints}/query`,
    summary: "F3548-21 DSS: constraint references in an area, altitudes and time",
    ...guarded(C, CM, CP),
    request: { body: json(Query) },
    responses: {
      200: jsonResponse(z.object({ constraint_references: z.array(ConstraintReference) }), "The references"),
      ...QUERY_ERRORS,
    },
  }),
  getConstraint: createRoute({
    method: "get",
    path: `${constraints}/{entityid}`,
    summary: "F3548-21 DSS: one constraint reference",
    ...guarded(C, CM, CP),
    request: { params: entity },
    responses: {
      200: jsonResponse(z.object({ constraint_reference: ConstraintReference }), "The reference"),
      404: errorResponse("No such constraint"),
      ...AUTH_ERRORS,
    },
  }),
  createConstraint: createRoute({
    method: "put",
    path: `${constraints}/{entityid}`,
    summary: "F3548-21 DSS: create a constraint reference; answers the subscribers",
    ...guarded(C, CM),
    request: { params: entity, body: json(PutConstraint) },
    responses: { 201: jsonResponse(ConstraintChange, "Created"), ...WRITE_ERRORS },
  }),
  updateConstraint: createRoute({
    method: "put",
    path: `${constraints}/{entityid}/{ovn}`,
    summary: "F3548-21 DSS: update a constraint reference at its current OVN",
    ...guarded(C, CM),
    request: { params: entityOvn, body: json(PutConstraint) },
    responses: { 200: jsonResponse(ConstraintChange, "Updated"), ...WRITE_ERRORS },
  }),
  deleteConstraint: createRoute({
    method: "delete",
    path: `${constraints}/{entityid}/{ovn}`,
    summary: "F3548-21 DSS: delete a constraint reference at its current OVN",
    ...guarded(C, CM),
    request: { params: entityOvn },
    responses: { 200: jsonResponse(ConstraintChange, "Deleted"), ...WRITE_ERRORS },
  }),
  querySubscriptions: createRoute({
    method: "post",
    path: `${subscriptions}/query`,
    summary: "F3548-21 DSS: the caller's subscriptions in an area",
    ...guarded(S, CP, SC),
    request: { body: json(Query) },
    responses: {
      200: jsonResponse(z.object({ subscriptions: z.array(Subscription) }), "The subscriptions"),
      ...QUERY_ERRORS,
    },
  }),
  getSubscription: createRoute({
    method: "get",
    path: `${subscriptions}/{subscriptionid}`,
    summary: "F3548-21 DSS: one of the caller's subscriptions",
    ...guarded(S, CP, SC),
    request: { params: subscription },
    responses: {
      200: jsonResponse(z.object({ subscription: Subscription }), "The subscription"),
      404: errorResponse("No such subscription"),
      ...AUTH_ERRORS,
    },
  }),
  createSubscription: createRoute({
    method: "put",
    path: `${subscriptions}/{subscriptionid}`,
    summary: "F3548-21 DSS: create a subscription (at most 24 h); answers what it covers",
    ...guarded(S, CP, SC),
    request: { params: subscription, body: json(PutSubscription) },
    responses: { 200: jsonResponse(SubscriptionChange, "Created"), ...WRITE_ERRORS },
  }),
  updateSubscription: createRoute({
    method: "put",
    path: `${subscriptions}/{subscriptionid}/{version}`,
    summary: "F3548-21 DSS: update a subscription at its current version",
    ...guarded(S, CP, SC),
    request: { params: subscriptionVersion, body: json(PutSubscription) },
    responses: { 200: jsonResponse(SubscriptionChange, "Updated"), ...WRITE_ERRORS },
  }),
  deleteSubscription: createRoute({
    method: "delete",
    path: `${subscriptions}/{subscriptionid}/{version}`,
    summary: "F3548-21 DSS: delete a subscription no operational intent depends on",
    ...guarded(S, CP, SC),
    request: { params: subscriptionVersion },
    responses: { 200: jsonResponse(z.object({ subscription: Subscription }), "Deleted"), ...WRITE_ERRORS },
  }),
  makeReport: createRoute({
    method: "post",
    path: `${DSS}/reports`,
    summary: "F3548-21 DSS: report a communication problem (kept by the DSS)",
    ...guarded("reports", CM, CP, SC, CMSA, AA),
    request: { body: json(ErrorReport) },
    responses: {
      201: jsonResponse(ErrorReport, "Kept, with its report_id"),
      400: errorResponse("Invalid report"),
      ...AUTH_ERRORS,
    },
  }),
  setAvailability: createRoute({
    method: "put",
    path: `${DSS}/uss_availability/{uss_id}`,
    summary: "F3548-21 DSS: set a USS's availability at its current version",
    ...guarded("USS availability", AA),
    request: {
      params: z.object({ uss_id: z.string().min(1) }),
      body: json(z.object({ old_version: z.string(), availability: Availability })),
    },
    responses: {
      200: jsonResponse(AvailabilityStatus, "Set"),
      400: errorResponse("Invalid parameters"),
      409: errorResponse("old_version is not the current version"),
      ...AUTH_ERRORS,
    },
  }),
  getAvailability: createRoute({
    method: "get",
    path: `${DSS}/uss_availability/{uss_id}`,
    summary: "F3548-21 DSS: a USS's availability (Unknown until set)",
    ...guarded("USS availability", AA, SC, CMSA),
    request: { params: z.object({ uss_id: z.string().min(1) }) },
    responses: { 200: jsonResponse(AvailabilityStatus, "The availability"), ...AUTH_ERRORS },
  }),
};

const dss = (c: Context<AppEnv>) => scdDssOf(c.env);
const sub = (c: Context<AppEnv>) => callerOf(c).sub;

const ovnMissing = (c: Context<AppEnv>) =>
  c.json({ message: "the path must end with the entity's current OVN or version" }, 400);

export const dssScdRoutes = new OpenAPIHono<AppEnv>({ strict: false, defaultHook: interussValidationHook })
  .openapi(routes.queryIntents, async (c) => {
    const area = c.req.valid("json").area_of_interest;
    return answer(c, await dss(c).queryOperationalIntents(sub(c), area)) as never;
  })
  .openapi(routes.getIntent, async (c) => {
    return answer(c, await dss(c).getOperationalIntent(sub(c), c.req.valid("param").entityid)) as never;
  })
  .openapi(routes.createIntent, async (c) => {
    const { entityid } = c.req.valid("param");
    return answer(
      c,
      await dss(c).putOperationalIntent(callerOf(c), entityid, undefined, c.req.valid("json")),
      201,
    ) as never;
  })
  .openapi(routes.updateIntent, async (c) => {
    const { entityid, ovn } = c.req.valid("param");
    return answer(
      c,
      await dss(c).putOperationalIntent(callerOf(c), entityid, ovn, c.req.valid("json")),
    ) as never;
  })
  .openapi(routes.deleteIntent, async (c) => {
    const { entityid, ovn } = c.req.valid("param");
    return answer(c, await dss(c).deleteOperationalIntent(sub(c), entityid, ovn)) as never;
  })
  .openapi(routes.queryConstraints, async (c) => {
    const area = c.req.valid("json").area_of_interest;
    return answer(c, await dss(c).queryConstraints(sub(c), area)) as never;
  })
  .openapi(routes.getConstraint, async (c) => {
    return answer(c, await dss(c).getConstraint(sub(c), c.req.valid("param").entityid)) as never;
  })
  .openapi(routes.createConstraint, async (c) => {
    const { entityid } = c.req.valid("param");
    return answer(
      c,
      await dss(c).putConstraint(sub(c), entityid, undefined, c.req.valid("json")),
      201,
    ) as never;
  })
  .openapi(routes.updateConstraint, async (c) => {
    const { entityid, ovn } = c.req.valid("param");
    return answer(c, await dss(c).putConstraint(sub(c), entityid, ovn, c.req.valid("json"))) as never;
  })
  .openapi(routes.deleteConstraint, async (c) => {
    const { entityid, ovn } = c.req.valid("param");
    return answer(c, await dss(c).deleteConstraint(sub(c), entityid, ovn)) as never;
  })
  .openapi(routes.querySubscriptions, async (c) => {
    const area = c.req.valid("json").area_of_interest;
    return answer(c, await dss(c).querySubscriptions(sub(c), area)) as never;
  })
  .openapi(routes.getSubscription, async (c) => {
    return answer(c, await dss(c).getSubscription(sub(c), c.req.valid("param").subscriptionid)) as never;
  })
  .openapi(routes.createSubscription, async (c) => {
    const { subscriptionid } = c.req.valid("param");
    return answer(
      c,
      await dss(c).putSubscription(sub(c), subscriptionid, undefined, c.req.valid("json")),
    ) as never;
  })
  .openapi(routes.updateSubscription, async (c) => {
    const { subscriptionid, version } = c.req.valid("param");
    return answer(
      c,
      await dss(c).putSubscription(sub(c), subscriptionid, version, c.req.valid("json")),
    ) as never;
  })
  .openapi(routes.deleteSubscription, async (c) => {
    const { subscriptionid, version } = c.req.valid("param");
    return answer(c, await dss(c).deleteSubscription(sub(c), subscriptionid, version)) as never;
  })
  .openapi(routes.makeReport, async (c) => {
    return answer(c, await dss(c).makeReport(sub(c), c.req.valid("json")), 201) as never;
  })
  .openapi(routes.setAvailability, async (c) => {
    const { old_version, availability } = c.req.valid("json");
    return answer(
      c,
      await dss(c).setAvailability(c.req.valid("param").uss_id, old_version, availability),
    ) as never;
  })
  .openapi(routes.getAvailability, async (c) => {
    return c.json(await dss(c).getAvailability(c.req.valid("param").uss_id), 200);
  })
  // Without an OVN or version the path is no operation of the standard's (so not in the document).
  .delete(`${intents}/:entityid`, requireScope(SC, CMSA), limitPerSubject(), ovnMissing)
  .delete(`${constraints}/:entityid`, requireScope(CM), limitPerSubject(), ovnMissing)
  .delete(`${subscriptions}/:subscriptionid`, requireScope(CP, SC), limitPerSubject(), ovnMissing);

dssScdRoutes.onError(renderInterussError([]));
