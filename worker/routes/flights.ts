import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createRouter } from "../app";
import { bufferCircle, geometryError, geometryProblem } from "../domain/flightArea";
import { flightState } from "../domain/flightState";
import { flightView } from "../domain/flightViews";
import { bboxOf, type Geometry, unwrapGeometry } from "../domain/geojson";
import type { AppEnv } from "../env";
import { decodeCursor, encodeCursor } from "../lib/cursor";
import { badRequest, conflict, forbidden, notFound } from "../lib/errors";
import { newId } from "../lib/ids";
import { success } from "../lib/jsend";
import { booleanFlag, recordId, responses, security, securityWithToken, timeInput } from "../lib/openapi";
import { isoTime, parseTime } from "../lib/time";
import { optionalToken, requireToken } from "../middleware/token";
import { authorizationsForPlan, locatePoint } from "../store/airspace";
import {
  deletePlannedFlight,
  endFlight,
  enhancements,
  type FlightCursor,
  type FlightFilter,
  type FlightRow,
  findFlight,
  insertFlight,
  listFlights,
  listIntersectingFlights,
  ownsAircraft,
} from "../store/flights";
import { closeSessions } from "../store/telemetrySessions";
import { telemetryOf } from "../telemetry/flightTelemetry";

const FOUR_HOURS_MS = 4 * 60 * 60 * 1000;

const FlightView = z.record(z.string(), z.unknown()).openapi("Flight");
const flightParams = z.object({ flight_id: recordId("flight_id") });

const PointCreate = z
  .object({
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    max_altitude: z.number().min(0).max(10_000).optional(),
    buffer: z.number().gt(0).max(100_000).optional(),
    start_time: timeInput.optional(),
    end_time: timeInput.optional(),
    public: z.boolean().optional(),
    notify: z.boolean().optional(),
    aircraft_id: z.string().max(64).nullable().optional(),
  })
  .openapi("FlightByPoint");

const createByPoint = createRoute({
  method: "post",
  path: "/flight/v2/point",
  tags: ["Flights"],
  summary: "Create a flight around a point: the buffer circle (default 100 m) is its area",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { body: { content: { "application/json": { schema: PointCreate } }, required: true } },
  responses: responses(FlightView, "The flight, with its `id`"),
});

const getFlight = createRoute({
  method: "get",
  path: "/flight/v2/{flight_id}",
  tags: ["Flights"],
  summary: "Read a flight: the pilot's own, or any public flight",
  security,
  middleware: [optionalToken] as const,
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

const lifecycle = (action: "end" | "delete", summary: string, data: z.ZodType) =>
  createRoute({
    method: "post",
    path: `/flight/v2/{flight_id}/${action}`,
    tags: ["Flights"],
    summary,
    security: securityWithToken,
    middleware: [requireToken] as const,
    request: { params: flightParams },
    responses: responses(data, "Done"),
  });
const end = lifecycle(
  "end",
  "End an active flight now (409 unless active)",
  z.object({ end_time: z.string() }),
);
const remove = lifecycle(
  "delete",
  "Delete a flight before it starts (409 after)",
  z.object({ id: z.string() }),
);

/** A flight the caller may read: the own, or a public one of the account; otherwise 404. */
async function readableFlight(c: Context<AppEnv>, flightId: string): Promise<FlightRow> {
  const flight = await findFlight(c.var.db, c.var.account.id, flightId);
  if (!flight || (!flight.public && flight.pilotId !== c.var.pilotId)) throw notFound("Flight");
  return flight;
}

/** A flight the caller may change: 404 when unknown to the account, 403 when another pilot's. */
export async function ownFlight(c: Context<AppEnv>, flightId: string): Promise<FlightRow> {
  const flight = await findFlight(c.var.db, c.var.account.id, flightId);
  if (!flight) throw notFound("Flight");
  if (flight.pilotId !== c.var.pilotId) throw forbidden("This flight belongs to another pilot");
  return flight;
}

async function views(c: Context<AppEnv>, rows: FlightRow[], enhance: boolean | undefined) {
  if (!enhance) return rows.map(flightView);
  const extra = await enhancements(c.var.db, rows);
  return rows.map((row) => ({ ...flightView(row), ...extra.get(row.id) }));
}

/** A flight list position: newest start first, then id. */
function cursorOf(row: FlightRow): string {
  return encodeCursor([row.startTime, row.id]);
}

function flightCursor(cursor: string): FlightCursor {
  return decodeCursor(cursor, ([startTime, id]) =>
    typeof startTime === "number" && typeof id === "string" ? { startTime, id } : undefined,
  );
}

/** The list's `geometry` filter: a GeoJSON geometry (or `{geometry}` as the deep link carries it). */
function parseFilterGeometry(text: string): Geometry {
  let geometry: unknown;
  try {
    geometry = JSON.parse(text);
  } catch {
    throw badRequest("geometry", "not valid JSON");
  }
  const inner = unwrapGeometry(geometry);
  // Any positive buffer: a Point or LineString filter is tested as it is, not buffered.
  const problem = geometryProblem(inner, 1);
  if (problem) throw geometryError(problem);
  return inner as Geometry;
}

export const flightRoutes = createRouter()
  .openapi(createByPoint, async (c) => {
    const input = c.req.valid("json");
    const pilotId = c.var.pilotId!;
    const now = Date.now();
    const startTime = input.start_time ? parseTime(input.start_time, now)! : now;
    const endTime = input.end_time ? parseTime(input.end_time, now)! : startTime + FOUR_HOURS_MS;
    if (endTime < startTime) throw badRequest("end_time", "must not be before start_time");
    if (input.aircraft_id && !(await ownsAircraft(c.var.db, pilotId, input.aircraft_id))) {
      throw badRequest("aircraft_id", "not one of the pilot's aircraft");
    }
    const buffer = input.buffer ?? 100;
    const area = bufferCircle([input.longitude, input.latitude], buffer);
    const maxAltitude = input.max_altitude ?? 0;
    const [place, authorizations] = await Promise.all([
      locatePoint(c.var.db, input.latitude, input.longitude),
      authorizationsForPlan(c.var.db, {
        area,
        maxAltitudeAgl: maxAltitude,
        rulesets: [],
        startTime,
        endTime,
      }),
    ]);
    const flight = await insertFlight(c.var.db, {
      id: newId("flight"),
      accountId: c.var.account.id,
      pilotId,
      flightPlanId: null,
      aircraftId: input.aircraft_id ?? null,
      latitude: input.latitude,
      longitude: input.longitude,
      buffer,
      geometry: area,
      ...bboxOf(area),
      maxAltitude,
      startTime,
      endTime,
      createdAt: now,
      public: input.public ?? false,
      notify: input.notify ?? false,
      ...place,
      authorizations,
    });
    return success(c, flightView(flight));
  })
  .openapi(getFlight, async (c) => {
    const flight = await readableFlight(c, c.req.valid("param").flight_id);
    const [view] = await views(c, [flight], c.req.valid("query").enhance);
    return success(c, view!);
  })
  .openapi(list, async (c) => {
    const q = c.req.valid("query");
    const now = Date.now();
    const time = (value: string | undefined) => (value === undefined ? undefined : parseTime(value, now));
    const viewer = c.var.pilotId;
    const ownList = viewer !== undefined && (q.pilot_id === undefined || q.pilot_id === viewer);
    const filter: FlightFilter = {
      accountId: c.var.account.id,
      pilotId: ownList ? viewer : q.pilot_id,
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
    const cursor = q.cursor ? flightCursor(q.cursor) : undefined;
    // A geometry filter is finished in code: exact intersection after the SQL bbox pre-filter.
    const { rows, total } =
      q.geometry === undefined
        ? await listFlights(c.var.db, filter, limit + 1, cursor)
        : await listIntersectingFlights(c.var.db, filter, parseFilterGeometry(q.geometry), limit + 1, cursor);
    const page = rows.slice(0, limit);
    const next = rows.length > limit ? cursorOf(page[page.length - 1]!) : null;
    return success(c, { results: await views(c, page, q.enhance), paging: { limit, total, next } });
  })
  .openapi(end, async (c) => {
    const flight = await ownFlight(c, c.req.valid("param").flight_id);
    const now = Date.now();
    const state = flightState(flight, now);
    if (state !== "active") throw conflict(`Only an active flight can end; this one is ${state}`);
    const ended = await endFlight(c.var.db, flight.id, now);
    if (!ended) throw conflict("This flight is no longer active");
    await closeSessions(c.var.db, flight.id, now);
    return success(c, { end_time: isoTime(ended.endTime) });
  })
  .openapi(remove, async (c) => {
    const flight = await ownFlight(c, c.req.valid("param").flight_id);
    const now = Date.now();
    if (flightState(flight, now) !== "planned" || !(await deletePlannedFlight(c.var.db, flight, now))) {
      throw conflict("A flight can be deleted only before it starts");
    }
    // A pilot may open a telemetry session before take-off: none of it outlives the flight.
    await closeSessions(c.var.db, flight.id, now);
    await telemetryOf(c.env, flight.id).erase();
    return success(c, { id: flight.id });
  });
