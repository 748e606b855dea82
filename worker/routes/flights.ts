import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createRouter } from "../app";
import { flightView, planView } from "../domain/flightViews";
import type { AppEnv, Bindings, Db } from "../env";
import { badRequest, conflict, notFound } from "../lib/errors";
import { success } from "../lib/jsend";
import {
  booleanFlag,
  geometryInput,
  recordId,
  responses,
  security,
  securityWithToken,
  timeInput,
} from "../lib/openapi";
import { parseTime } from "../lib/time";
import { ownFlight, pilotsFlight, readableFlight } from "../middleware/ownFlight";
import { optionalToken, pilotIdOf, requireToken } from "../middleware/token";
import { Flight, FlightPlan } from "../schemas/flights";
import { createRequestedFlight, type FlightGeometry } from "../services/flightCreation";
import { endedFlightView } from "../services/flightEnding";
import { flightPage, readableFlightView } from "../services/flightListing";
import { removeFlight } from "../services/flightRemoval";
import { type FlightFilter, type FlightRow, findPlan } from "../store/flights";

const DEFAULT_BUFFER_METERS = 100;

const FlightView = Flight;
const PlanView = FlightPlan;
const flightParams = z.object({ flight_id: recordId("flight_id") });

/** The body every SDK sends to `/point`, `/polygon` and `/path` (C++ `codec/json/flights.cpp`). */
const flightFields = {
  latitude: z.number().min(-90).max(90).openapi({ description: "Take-off latitude" }),
  longitude: z.number().min(-180).max(180).openapi({ description: "Take-off longitude" }),
  max_altitude: z.number().min(0).max(10_000).optional().openapi({ description: "Meters AGL" }),
  start_time: timeInput.optional(),
  end_time: timeInput.optional(),
  public: z.boolean().optional(),
  notify: z.boolean().optional(),
  aircraft_id: z.string().max(64).nullable().optional(),
};

const PointCreate = z
  .object({
    ...flightFields,
    buffer: z.number().gt(0).max(100_000).optional().openapi({ description: "Radius, meters (100)" }),
  })
  .openapi("FlightByPoint");

const AreaCreate = z
  .object({
    ...flightFields,
    buffer: z
      .number()
      .min(0)
      .max(100_000)
      .optional()
      .openapi({ description: "Meters around a path (default 100); a polygon is its own area" }),
    geometry: geometryInput,
  })
  .openapi("FlightByArea");

type CreateInput = z.infer<typeof PointCreate> | z.infer<typeof AreaCreate>;

const createRouteFor = <T extends typeof PointCreate | typeof AreaCreate>(
  shape: "point" | "polygon" | "path",
  schema: T,
  summary: string,
) =>
  createRoute({
    method: "post",
    path: `/flight/v2/${shape}`,
    tags: ["Flights"],
    summary,
    security: securityWithToken,
    middleware: [requireToken] as const,
    request: { body: { content: { "application/json": { schema } }, required: true } },
    responses: responses(FlightView, "The flight, as `GET /flight/v2/{flight_id}` returns it"),
  });

const createByPoint = createRouteFor(
  "point",
  PointCreate,
  "Create a flight around a point: the buffer circle (default 100 m) is its area",
);
const createByPolygon = createRouteFor("polygon", AreaCreate, "Create a flight over a GeoJSON Polygon");
const createByPath = createRouteFor(
  "path",
  AreaCreate,
  "Create a flight along a GeoJSON LineString, buffered by `buffer` meters (default 100)",
);

const getFlight = createRoute({
  method: "get",
  path: "/flight/v2/{flight_id}",
  tags: ["Flights"],
  summary: "Read a flight: the pilot's own, or any public flight",
  security,
  middleware: [optionalToken, readableFlight] as const,
  request: { params: flightParams, query: z.object({ enhance: booleanFlag }) },
  responses: responses(FlightView, "The flight"),
});

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  cursor: z.string().max(200).optional(),
  pilot_id: z.string().max(64).optional(),
  start_after: timeInput.optional(),
  start_before: timeInput.optional(),
  end_after: timeInput.optional(),
  end_before: timeInput.optional(),
  from: timeInput.optional().openapi({ description: "mobile clients' name for end_after" }),
  to: timeInput.optional().openapi({ description: "mobile clients' name for start_before" }),
  geometry: z
    .string()
    .max(1_000_000)
    .optional()
    .openapi({ description: "GeoJSON geometry; flights intersecting it" }),
  country: z.string().max(100).optional(),
  state: z.string().max(100).optional(),
  city: z.string().max(100).optional(),
  enhance: booleanFlag,
});

const list = createRoute({
  method: "get",
  path: "/flight/v2",
  tags: ["Flights"],
  summary: "List flights, newest start first: with a token the pilot's own, else public ones",
  security,
  middleware: [optionalToken] as const,
  request: { query: ListQuery },
  responses: responses(
    z.object({
      results: z.array(FlightView),
      paging: z.object({ limit: z.number(), total: z.number(), next: z.string().nullable() }),
    }),
    "A page of flights",
  ),
});

const lifecycle = (method: "post" | "delete", path: string, summary: string, data: z.ZodType) =>
  createRoute({
    method,
    path,
    tags: ["Flights"],
    summary,
    security: securityWithToken,
    middleware: [requireToken, ownFlight] as const,
    request: { params: flightParams },
    responses: responses(data, "Done"),
  });
const end = lifecycle(
  "post",
  "/flight/v2/{flight_id}/end",
  "End a flight now: an active one at once, a planned one before it flies; an ended one answers its recorded `end_time`",
  FlightView,
);
const DeletedView = z.object({ id: z.string() });
const remove = lifecycle(
  "post",
  "/flight/v2/{flight_id}/delete",
  "Delete a planned or ended flight (409 while active: end it first)",
  DeletedView,
);
const removeByMethod = lifecycle(
  "delete",
  "/flight/v2/{flight_id}",
  "Delete a planned or ended flight (409 while active); the same as POST …/delete",
  DeletedView,
);

const getFlightPlan = createRoute({
  method: "get",
  path: "/flight/v2/{flight_id}/plan",
  tags: ["Flights"],
  summary: "The plan the pilot's flight was submitted from (404 for a flight made without a plan)",
  security: securityWithToken,
  middleware: [requireToken, pilotsFlight("its plan")] as const,
  request: { params: flightParams },
  responses: responses(PlanView, "The flight plan"),
});

/** A flight by point, polygon or path: the one creation path, for the token's pilot. */
async function createFlightFrom(c: Context<AppEnv>, input: CreateInput, geometry: FlightGeometry) {
  const now = Date.now();
  const flight = await createRequestedFlight(
    c.var.db,
    {
      accountId: c.var.account.id,
      pilotId: c.var.pilotId!,
      latitude: input.latitude,
      longitude: input.longitude,
      geometry,
      buffer: input.buffer ?? DEFAULT_BUFFER_METERS,
      maxAltitude: input.max_altitude ?? 0,
      start: input.start_time,
      end: input.end_time,
      public: input.public ?? false,
      notify: input.notify ?? false,
      aircraftId: input.aircraft_id ?? null,
    },
    now,
  );
  return success(c, flightView(flight));
}

/** The geometry a `/polygon` or `/path` body must carry: 400 naming `geometry` for another type. */
function geometryOfType(input: z.infer<typeof AreaCreate>, type: "Polygon" | "LineString"): FlightGeometry {
  const { geometry } = input;
  if (geometry.type !== type) {
    const other =
      type === "Polygon" ? "/flight/v2/path for a LineString" : "/flight/v2/polygon for a Polygon";
    throw badRequest("geometry", `must be a ${type} here (use ${other})`);
  }
  return geometry as unknown as FlightGeometry;
}

/** Deletes the pilot's planned or ended flight, with everything recorded for it. */
async function deleteFlight(env: Bindings, db: Db, flight: FlightRow) {
  if (!(await removeFlight(env, db, flight, Date.now())))
    throw conflict("This flight is active: end it first, then delete it");
  return { id: flight.id };
}

export const flightRoutes = createRouter()
  .openapi(createByPoint, (c) => {
    const input = c.req.valid("json");
    return createFlightFrom(c, input, { type: "Point", coordinates: [input.longitude, input.latitude] });
  })
  .openapi(createByPolygon, (c) => {
    const input = c.req.valid("json");
    return createFlightFrom(c, input, geometryOfType(input, "Polygon"));
  })
  .openapi(createByPath, (c) => {
    const input = c.req.valid("json");
    return createFlightFrom(c, input, geometryOfType(input, "LineString"));
  })
  .openapi(getFlight, async (c) => {
    return success(c, await readableFlightView(c.var.db, c.var.flight, c.req.valid("query").enhance));
  })
  .openapi(list, async (c) => {
    const q = c.req.valid("query");
    const now = Date.now();
    const time = (value: string | undefined) => (value === undefined ? undefined : parseTime(value, now));
    const viewer = c.var.pilotId;
    const asked = q.pilot_id === undefined ? undefined : pilotIdOf(c, q.pilot_id);
    const ownList = viewer !== undefined && (asked === undefined || asked === viewer);
    const filter: FlightFilter = {
      accountId: c.var.account.id,
      pilotId: ownList ? viewer : asked,
      onlyPublic: !ownList,
      startAfter: time(q.start_after),
      startBefore: time(q.start_before ?? q.to),
      endAfter: time(q.end_after ?? q.from),
      endBefore: time(q.end_before),
      country: q.country,
      state: q.state,
      city: q.city,
    };
    const limit = q.limit ?? 100;
    const page = await flightPage(c.var.db, filter, {
      limit,
      cursor: q.cursor,
      geometry: q.geometry,
      query: new URL(c.req.url).searchParams,
      enhance: q.enhance,
    });
    const results = page.results.join(",");
    const paging = JSON.stringify({ limit, total: page.total, next: page.next });
    // The JSend body `success` would write, assembled around the stored areas (the Flight schema still types it).
    const body = `{"status":"success","data":{"results":[${results}],"paging":${paging}}}`;
    return c.body(body, 200, { "Content-Type": "application/json" }) as never;
  })
  .openapi(end, async (c) => {
    const ended = await endedFlightView(c.env, c.var.db, c.var.account.id, c.var.flight, Date.now());
    if (!ended) throw notFound("Flight");
    return success(c, ended);
  })
  .openapi(remove, async (c) => success(c, await deleteFlight(c.env, c.var.db, c.var.flight)))
  .openapi(removeByMethod, async (c) => success(c, await deleteFlight(c.env, c.var.db, c.var.flight)))
  .openapi(getFlightPlan, async (c) => {
    const { flight } = c.var;
    const plan = flight.flightPlanId ? await findPlan(c.var.db, c.var.account.id, flight.flightPlanId) : null;
    if (!plan) throw notFound("Flight plan");
    return success(c, planView(plan, flight));
  });
