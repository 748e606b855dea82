import { areaSizeError } from "../domain/airspace/inputs";
import { flightArea, geometryError, geometryProblem } from "../domain/flightArea";
import { bboxOf, type LineString, type Point, type Polygon } from "../domain/geojson";
import type { Db } from "../env";
import { badRequest } from "../lib/errors";
import { newId } from "../lib/ids";
import { parseTime } from "../lib/time";
import { authorizationsForPlan, locatePoint } from "../store/airspace";
import { type FlightPlanRow, type FlightRow, insertFlight, ownsAircraft, submitPlan } from "../store/flights";

/**
 * The one way a flight comes into being, whether from a point, a polygon, a path (the SDKs'
 * `/flight/v2/point|polygon|path`) or a submitted plan: its area is checked and sized the same way,
 * and where it is (city, state, country) and its LAANC authorizations are decided the same way.
 */

const FOUR_HOURS_MS = 4 * 60 * 60 * 1000;

export type FlightGeometry = Polygon | LineString | Point;

/** A flight asked for directly (not through a plan); times and area already resolved. */
export interface DirectFlight {
  accountId: string;
  pilotId: string;
  /** Take-off point. */
  latitude: number;
  longitude: number;
  geometry: FlightGeometry;
  buffer: number;
  maxAltitude: number;
  startTime: number;
  endTime: number;
  public: boolean;
  notify: boolean;
  aircraftId: string | null;
}

/** start defaults to now, end to start + 4 h (CONTRACT §4); end before start is 400. */
export function flightWindow(start: string | undefined, end: string | undefined, now: number) {
  const startTime = start === undefined ? now : parseTime(start, now);
  if (startTime === undefined) throw badRequest("start_time", "use ISO 8601 with an offset or Z, or `now`");
  const endTime = end === undefined ? startTime + FOUR_HOURS_MS : parseTime(end, now);
  if (endTime === undefined) throw badRequest("end_time", "use ISO 8601 with an offset or Z, or `now`");
  if (endTime < startTime) throw badRequest("end_time", "must not be before start_time");
  return { startTime, endTime };
}

/**
 * The flight area of a geometry: a Polygon as it is, a LineString or Point buffered by `buffer`
 * meters. Every problem names its field: 400 (413 for a geometry of too many positions).
 */
export function checkedFlightArea(geometry: unknown, buffer: number): Polygon {
  const problem = geometryProblem(geometry, buffer);
  if (problem) throw geometryError(problem);
  const area = flightArea(geometry as FlightGeometry, buffer);
  const tooWide = areaSizeError(area);
  if (tooWide) throw tooWide;
  return area;
}

/** 400 naming `aircraft_id` unless it is one of the pilot's own aircraft. */
export async function checkAircraft(db: Db, pilotId: string, aircraftId: string | null | undefined) {
  if (aircraftId && !(await ownsAircraft(db, pilotId, aircraftId)))
    throw badRequest("aircraft_id", "not one of the pilot's aircraft");
}

interface Decided {
  latitude: number;
  longitude: number;
  area: Polygon;
  maxAltitudeAgl: number;
  rulesets: string[];
  startTime: number;
  endTime: number;
}

/** Where the take-off is and what LAANC says about the area, looked up side by side. */
async function placeAndAuthorizations(db: Db, flight: Decided) {
  const [place, authorizations] = await Promise.all([
    locatePoint(db, flight.latitude, flight.longitude),
    authorizationsForPlan(db, flight),
  ]);
  return { ...place, authorizations };
}

/** Creates a flight from a point, polygon or path request. */
export async function createDirectFlight(db: Db, request: DirectFlight, now: number): Promise<FlightRow> {
  const area = checkedFlightArea(request.geometry, request.buffer);
  await checkAircraft(db, request.pilotId, request.aircraftId);
  const decided = await placeAndAuthorizations(db, {
    latitude: request.latitude,
    longitude: request.longitude,
    area,
    maxAltitudeAgl: request.maxAltitude,
    // No rulesets chosen: the default selection where the flight is (as for a plan without any).
    rulesets: [],
    startTime: request.startTime,
    endTime: request.endTime,
  });
  return insertFlight(db, {
    id: newId("flight"),
    accountId: request.accountId,
    pilotId: request.pilotId,
    flightPlanId: null,
    aircraftId: request.aircraftId,
    latitude: request.latitude,
    longitude: request.longitude,
    buffer: request.buffer,
    geometry: area,
    ...bboxOf(area),
    maxAltitude: request.maxAltitude,
    startTime: request.startTime,
    endTime: request.endTime,
    createdAt: now,
    public: request.public,
    notify: request.notify,
    ...decided,
  });
}

/** Creates the plan's flight; null when another submit claimed the plan first. */
export async function createPlanFlight(
  db: Db,
  plan: FlightPlanRow,
  options: { public: boolean },
  now: number,
): Promise<FlightRow | null> {
  const decided = await placeAndAuthorizations(db, {
    latitude: plan.takeoffLatitude,
    longitude: plan.takeoffLongitude,
    area: plan.area,
    maxAltitudeAgl: plan.maxAltitudeAgl,
    rulesets: plan.rulesets,
    startTime: plan.startTime,
    endTime: plan.endTime,
  });
  return submitPlan(db, plan.id, {
    id: newId("flight"),
    accountId: plan.accountId,
    pilotId: plan.pilotId,
    latitude: plan.takeoffLatitude,
    longitude: plan.takeoffLongitude,
    buffer: plan.buffer,
    geometry: plan.area,
    ...bboxOf(plan.area),
    maxAltitude: plan.maxAltitudeAgl,
    startTime: plan.startTime,
    endTime: plan.endTime,
    createdAt: now,
    public: options.public,
    notify: false,
    ...decided,
  });
}
