import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AreaTooLarge, BadOutline, parsePolygonString, polygonCells } from "../dss/cells";
import type { Outcome } from "../dss/outcome";
import { ridDssOf } from "../dss/ridDss";
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
import { RID_SCOPES } from "../rid/constants";

/**
 * ASTM F3411-22a Discovery and Synchronization Service (`/rid/v2/dss/…`, uastech/standards
 * `remoteid/updated.yaml` 2.1.0): ISAs and subscriptions, kept by worker/dss/ridDss.ts's one Durable
 * Object. The caller's identity is its token's `sub`; errors are the standard's `{"message"}`.
 */

const DSS = "/rid/v2/dss";
const { serviceProvider: SP, displayProvider: DP } = RID_SCOPES;

const guarded = (scope: string, ...alternatives: string[]) => ({
  tags: ["Remote ID DSS"],
  security: [scope, ...alternatives].map((s) => ({ InterussBearer: [s] })),
  middleware: [requireScope(scope, ...alternatives), limitPerSubject()],
});

/** An optional member that may also come as null (the standards' clients send null for absent). */
export const absent = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

export const Time = z.object({ value: z.string(), format: z.literal("RFC3339") }).openapi("RidTime");
const LatLng = z.object({ lat: z.number(), lng: z.number() });
const Altitude = z.object({ value: z.number(), reference: z.literal("W84"), units: z.literal("M") });
export const Volume4D = z
  .object({
    volume: z.object({
      outline_polygon: absent(z.object({ vertices: z.array(LatLng) })),
      outline_circle: absent(
        z.object({ center: LatLng, radius: z.object({ value: z.number(), units: z.string() }) }),
      ),
      altitude_lower: absent(Altitude),
      altitude_upper: absent(Altitude),
    }),
    time_start: absent(Time),
    time_end: absent(Time),
  })
  .openapi("RidVolume4D");
const PutParameters = z
  .object({ extents: Volume4D, uss_base_url: z.url() })
  .openapi("PutIdentificationServiceAreaOrSubscriptionParameters");
const IdentificationServiceArea = z
  .object({
    id: z.string(),
    owner: z.string(),
    uss_base_url: z.string(),
    time_start: Time,
    time_end: Time,
    version: z.string(),
  })
  .openapi("IdentificationServiceArea");
const Subscription = IdentificationServiceArea.extend({ notification_index: z.number() }).openapi(
  "RidSubscription",
);
const SubscriberToNotify = z
  .object({
    url: z.string(),
    subscriptions: z.array(z.object({ subscription_id: z.string(), notification_index: z.number() })),
  })
  .openapi("SubscriberToNotify");
const IsaChange = z
  .object({ service_area: IdentificationServiceArea, subscribers: z.array(SubscriberToNotify) })
  .openapi("PutIdentificationServiceAreaResponse");

const id = z.object({ id: z.uuid() });
const idVersion = z.object({ id: z.uuid(), version: z.string().min(1).max(100) });
const body = { content: { "application/json": { schema: PutParameters } }, required: true };
const WRITE_ERRORS = {
  400: errorResponse("Invalid extents or URL, or an area over 2,500 km²"),
  404: errorResponse("No such entity (update)"),
  409: errorResponse("The id exists already (create), or the version is not the current one (update)"),
  ...AUTH_ERRORS,
};

const routes = {
  searchIsas: createRoute({
    method: "get",
    path: `${DSS}/identification_service_areas`,
    summary: "F3411-22a DSS: ISAs over an area and time window",
    ...guarded(DP),
    request: {
      query: z.object({
        area: z.string().openapi({ description: "lat1,lng1,lat2,lng2,… (at least 3 points)" }),
        earliest_time: z.string().optional(),
        latest_time: z.string().optional(),
      }),
    },
    responses: {
      200: jsonResponse(z.object({ service_areas: z.array(IdentificationServiceArea) }), "The ISAs"),
      400: errorResponse("Invalid area or time"),
      413: errorResponse("The area is over 2,500 km²"),
      ...AUTH_ERRORS,
    },
  }),
  getIsa: createRoute({
    method: "get",
    path: `${DSS}/identification_service_areas/{id}`,
    summary: "F3411-22a DSS: one ISA",
    ...guarded(DP, SP),
    request: { params: id },
    responses: {
      200: jsonResponse(z.object({ service_area: IdentificationServiceArea }), "The ISA"),
      404: errorResponse("No such ISA"),
      ...AUTH_ERRORS,
    },
  }),
  createIsa: createRoute({
    method: "put",
    path: `${DSS}/identification_service_areas/{id}`,
    summary: "F3411-22a DSS: create an ISA; answers the subscribers to notify",
    ...guarded(SP),
    request: { params: id, body },
    responses: { 200: jsonResponse(IsaChange, "Created"), ...WRITE_ERRORS },
  }),
  updateIsa: createRoute({
    method: "put",
    path: `${DSS}/identification_service_areas/{id}/{version}`,
    summary: "F3411-22a DSS: update an ISA at its current version",
    ...guarded(SP),
    request: { params: idVersion, body },
    responses: { 200: jsonResponse(IsaChange, "Updated"), ...WRITE_ERRORS },
  }),
  deleteIsa: createRoute({
    method: "delete",
    path: `${DSS}/identification_service_areas/{id}/{version}`,
    summary: "F3411-22a DSS: delete an ISA at its current version",
    ...guarded(SP),
    request: { params: idVersion },
    responses: { 200: jsonResponse(IsaChange, "Deleted"), ...WRITE_ERRORS },
  }),
  searchSubscriptions: createRoute({
    method: "get",
    path: `${DSS}/subscriptions`,
    summary: "F3411-22a DSS: the caller's subscriptions over an area",
    ...guarded(DP),
    request: { query: z.object({ area: z.string() }) },
    responses: {
      200: jsonResponse(z.object({ subscriptions: z.array(Subscription) }), "The subscriptions"),
      400: errorResponse("Invalid area"),
      413: errorResponse("The area is over 2,500 km²"),
      ...AUTH_ERRORS,
    },
  }),
  getSubscription: createRoute({
    method: "get",
    path: `${DSS}/subscriptions/{id}`,
    summary: "F3411-22a DSS: one of the caller's subscriptions",
    ...guarded(DP, SP),
    request: { params: id },
    responses: {
      200: jsonResponse(z.object({ subscription: Subscription }), "The subscription"),
      404: errorResponse("No such subscription"),
      ...AUTH_ERRORS,
    },
  }),
  createSubscription: createRoute({
    method: "put",
    path: `${DSS}/subscriptions/{id}`,
    summary: "F3411-22a DSS: create a subscription (at most 24 h); answers the ISAs it covers",
    ...guarded(DP),
    request: { params: id, body },
    responses: {
      200: jsonResponse(
        z.object({ subscription: Subscription, service_areas: z.array(IdentificationServiceArea) }),
        "Created",
      ),
      ...WRITE_ERRORS,
      429: errorResponse(
        "Too many requests, or the caller has 10 subscriptions over part of this area already",
      ),
    },
  }),
  updateSubscription: createRoute({
    method: "put",
    path: `${DSS}/subscriptions/{id}/{version}`,
    summary: "F3411-22a DSS: update a subscription at its current version",
    ...guarded(DP),
    request: { params: idVersion, body },
    responses: {
      200: jsonResponse(
        z.object({ subscription: Subscription, service_areas: z.array(IdentificationServiceArea) }),
        "Updated",
      ),
      ...WRITE_ERRORS,
      429: errorResponse(
        "Too many requests, or the caller has 10 subscriptions over part of this area already",
      ),
    },
  }),
  deleteSubscription: createRoute({
    method: "delete",
    path: `${DSS}/subscriptions/{id}/{version}`,
    summary: "F3411-22a DSS: delete a subscription at its current version",
    ...guarded(DP),
    request: { params: idVersion },
    responses: { 200: jsonResponse(z.object({ subscription: Subscription }), "Deleted"), ...WRITE_ERRORS },
  }),
};

const versionMissing = (c: Context<AppEnv>) =>
  c.json({ message: "version: the path must end with the entity's current version" }, 400);

const dss = (c: Context<AppEnv>) => ridDssOf(c.env);

/** The caller: its token's `sub`. */
const owner = (c: Context<AppEnv>) => callerOf(c).sub;

/** A search area's cells; too large is 413 here (a write's is 400). */
function searchCells(area: string): string[] {
  try {
    return polygonCells(parsePolygonString(area));
  } catch (e) {
    if (e instanceof BadOutline) throw new InvalidQuery(`area: ${e.message}`);
    throw e;
  }
}

function searchTime(value: string | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new InvalidQuery(`${field}: an RFC 3339 time is required`);
  return ms;
}

class InvalidQuery extends Error {}

/** An outcome as the standards' HTTP: the value with `status`, or `{"message", …details}`. */
export const answer = <T>(c: Context<AppEnv>, outcome: Outcome<T>, status: 200 | 201 = 200) =>
  outcome.ok
    ? c.json(outcome.value as T & object, status)
    : c.json({ message: outcome.message, ...outcome.details }, outcome.status);

export const dssRoutes = new OpenAPIHono<AppEnv>({ strict: false, defaultHook: interussValidationHook })
  .openapi(routes.searchIsas, async (c) => {
    const query = c.req.valid("query");
    const cells = searchCells(query.area);
    const earliest = searchTime(query.earliest_time, 0, "earliest_time");
    const latest = searchTime(query.latest_time, Number.MAX_SAFE_INTEGER, "latest_time");
    return c.json({ service_areas: await dss(c).searchIsas(cells, earliest, latest) }, 200);
  })
  .openapi(routes.getIsa, async (c) => answer(c, await dss(c).getIsa(c.req.valid("param").id)) as never)
  .openapi(routes.createIsa, async (c) => {
    const { id } = c.req.valid("param");
    return answer(c, await dss(c).putIsa(owner(c), id, undefined, c.req.valid("json"))) as never;
  })
  .openapi(routes.updateIsa, async (c) => {
    const { id, version } = c.req.valid("param");
    return answer(c, await dss(c).putIsa(owner(c), id, version, c.req.valid("json"))) as never;
  })
  .openapi(routes.deleteIsa, async (c) => {
    const { id, version } = c.req.valid("param");
    return answer(c, await dss(c).deleteIsa(owner(c), id, version)) as never;
  })
  .openapi(routes.searchSubscriptions, async (c) => {
    const cells = searchCells(c.req.valid("query").area);
    return c.json({ subscriptions: await dss(c).searchSubscriptions(owner(c), cells) }, 200);
  })
  .openapi(routes.getSubscription, async (c) => {
    return answer(c, await dss(c).getSubscription(owner(c), c.req.valid("param").id)) as never;
  })
  .openapi(routes.createSubscription, async (c) => {
    const { id } = c.req.valid("param");
    return answer(c, await dss(c).putSubscription(owner(c), id, undefined, c.req.valid("json"))) as never;
  })
  .openapi(routes.updateSubscription, async (c) => {
    const { id, version } = c.req.valid("param");
    return answer(c, await dss(c).putSubscription(owner(c), id, version, c.req.valid("json"))) as never;
  })
  .openapi(routes.deleteSubscription, async (c) => {
    const { id, version } = c.req.valid("param");
    return answer(c, await dss(c).deleteSubscription(owner(c), id, version)) as never;
  })
  // Without a version the path is no operation of the standard's (so not in the document); InterUSS's
  // DSS and the qualifier say 400.
  .delete(`${DSS}/identification_service_areas/:id`, requireScope(SP), limitPerSubject(), versionMissing)
  .delete(`${DSS}/subscriptions/:id`, requireScope(DP), limitPerSubject(), versionMissing);

dssRoutes.onError(
  renderInterussError([
    [InvalidQuery, 400],
    [AreaTooLarge, 413],
  ]),
);
