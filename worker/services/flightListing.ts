import { bracketGeometry } from "../domain/bracketQuery";
import { geometryProblem } from "../domain/flightArea";
import { flightJson, flightView, planView } from "../domain/flightViews";
import { type Geometry, unwrapGeometry } from "../domain/geojson";
import type { Db } from "../env";
import { decodeCursor, encodeCursor } from "../lib/cursor";
import { badRequest, problemError } from "../lib/errors";
import {
  enhancements,
  type FlightCursor,
  type FlightFilter,
  type FlightPlanRow,
  type FlightRow,
  findFlight,
  type ListedFlight,
  listFlights,
  listIntersectingFlights,
} from "../store/flights";

/** A flight as `GET /flight/v2/{flight_id}` answers it; `enhance` adds what the SDKs' enhanced reads carry. */
export async function readableFlightView(db: Db, flight: FlightRow, enhance: boolean | undefined) {
  if (!enhance) return flightView(flight);
  const extra = await enhancements(db, [flight]);
  return { ...flightView(flight), ...extra.get(flight.id) };
}

/** A plan as `GET /flight/v2/plan/{plan_id}` answers it: with its flight's `public` and `notify` once submitted. */
export async function readablePlanView(db: Db, plan: FlightPlanRow) {
  const flight = plan.flightId ? await findFlight(db, plan.accountId, plan.flightId) : null;
  return planView(plan, flight);
}

export interface FlightPageRequest {
  limit: number;
  /** The previous page's `paging.next`. */
  cursor: string | undefined;
  /** GeoJSON text: only flights intersecting it. */
  geometry: string | undefined;
  /** The request's query, read for the Swift SDK's bracket-encoded `geometry[…]` when `geometry` is absent. */
  query: URLSearchParams;
  enhance: boolean | undefined;
}

export interface FlightPage {
  /** Each flight as JSON text, its area passed on as stored where the list kept it unparsed. */
  results: string[];
  total: number;
  next: string | null;
}

/** A page of flights, newest start first, with the cursor of the next page (null on the last). */
export async function flightPage(
  db: Db,
  filter: FlightFilter,
  request: FlightPageRequest,
): Promise<FlightPage> {
  const { limit } = request;
  const geometry = request.geometry ?? bracketGeometryText(request.query);
  const cursor = request.cursor ? flightCursor(request.cursor) : undefined;
  // A geometry filter is finished in code: exact intersection after the SQL bbox pre-filter.
  const { rows, total } =
    geometry === undefined
      ? await listFlights(db, filter, limit + 1, cursor)
      : await listIntersectingFlights(db, filter, parseFilterGeometry(geometry), limit + 1, cursor);
  const page = rows.slice(0, limit);
  const next = rows.length > limit ? cursorOf(page[page.length - 1]!) : null;
  return { results: await pageJson(db, page, request.enhance), total, next };
}

async function pageJson(db: Db, rows: (FlightRow | ListedFlight)[], enhance: boolean | undefined) {
  const extra = enhance ? await enhancements(db, rows) : undefined;
  return rows.map((row) =>
    flightJson(
      row,
      "geometryJson" in row ? row.geometryJson : JSON.stringify(row.geometry),
      extra?.get(row.id),
    ),
  );
}

/** A flight list position: newest start first, then id. */
function cursorOf(row: Pick<FlightRow, "startTime" | "id">): string {
  return encodeCursor([row.startTime, row.id]);
}

function flightCursor(cursor: string): FlightCursor {
  return decodeCursor(cursor, ([startTime, id]) =>
    typeof startTime === "number" && typeof id === "string" ? { startTime, id } : undefined,
  );
}

/** The Swift SDK's bracket-encoded `geometry[…]` (domain/bracketQuery.ts) as the JSON the filter reads. */
function bracketGeometryText(query: URLSearchParams): string | undefined {
  const found = bracketGeometry(query);
  if (found === null) return undefined;
  if (!found.ok) throw badRequest("geometry", found.message);
  return JSON.stringify(found.geometry);
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
  if (problem) throw problemError([problem]);
  return inner as Geometry;
}
