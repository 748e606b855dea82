import { flightArea, geometryProblem } from "../domain/flightArea";
import { leadTimeProblem, takeoffProblem } from "../domain/flightSanity";
import { bboxOf, type Geometry, type LineString, type Point, type Polygon } from "../domain/geojson";
import type { Problem } from "../domain/problem";
import type { Db } from "../env";
import { badRequest, conflict, forbidden, problemError } from "../lib/errors";
import { newId } from "../lib/ids";
import { parseTime } from "../lib/time";
import type { PlanAhead } from "../middleware/ownFlight";
import { rememberPlan, samePlan } from "../middleware/recentPlans";
import {
  type FlightPlanRow,
  type FlightRow,
  insertFlight,
  insertPlan,
  ownsAircraft,
  submitPlan,
  updateUnsubmittedPlan,
} from "../store/flights";
import { unknownRulesetIds } from "../store/rulesets";
import { areaSizeError, authorizationsForPlan, locatePoint, unknownRulesetsError } from "./airspace";

/**
 * The one way a flight comes into being, whether from a point, a polygon, a path (the SDKs'
 * `/flight/v2/point|polygon|path`) or a submitted plan: its area is checked and sized the same way,
 * and where it is (city, state, country) and its LAANC authorizations are decided the same way.
 * Plans are checked here too, as the flight they will become.
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

const fail = (problem: Problem | null) => {
  if (problem) throw problemError([problem]);
};

/**
 * start defaults to now, end to start + 4 h (CONTRACT §4); end before start is 400, and so is a
 * time more than a year ahead (a mistyped year).
 */
export function flightWindow(start: string | undefined, end: string | undefined, now: number) {
  const startTime = start === undefined ? now : parseTime(start, now);
  if (startTime === undefined) throw badRequest("start_time", "use ISO 8601 with an offset or Z, or `now`");
  fail(leadTimeProblem("start_time", startTime, now));
  const endTime = end === undefined ? startTime + FOUR_HOURS_MS : parseTime(end, now);
  if (endTime === undefined) throw badRequest("end_time", "use ISO 8601 with an offset or Z, or `now`");
  if (endTime < startTime) throw badRequest("end_time", "must not be before start_time");
  fail(leadTimeProblem("end_time", endTime, now));
  return { startTime, endTime };
}

/**
 * The flight area of a geometry: a Polygon as it is, a LineString or Point buffered by `buffer`
 * meters. Every problem names its field: 400 (413 for a geometry of too many positions).
 */
export function checkedFlightArea(geometry: unknown, buffer: number): Polygon {
  fail(geometryProblem(geometry, buffer));
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

/** A plan as the API takes it (`POST /flight/v2/plan`; a PATCH merged onto the stored plan). */
export interface PlanRequest {
  takeoff_latitude: number;
  takeoff_longitude: number;
  pilot_id?: string;
  start_time: string;
  end_time: string;
  max_altitude_agl: number;
  min_altitude_agl?: number;
  buffer?: number;
  geometry: unknown;
  aircraft_id?: string | null;
  rulesets?: string[];
  flight_description?: string;
  flight_features?: Record<string, number | string | boolean | null>;
}

/** Checks what the schema cannot: pilot, times, altitude order, rulesets, geometry, take-off, aircraft. */
async function checkedPlan(db: Db, input: PlanRequest, pilotId: string, now: number) {
  if (input.pilot_id !== undefined && input.pilot_id !== pilotId) {
    throw forbidden("pilot_id must be the token's pilot");
  }
  const { startTime, endTime } = flightWindow(input.start_time, input.end_time, now);
  const minAltitude = input.min_altitude_agl ?? 0;
  if (minAltitude > input.max_altitude_agl)
    throw badRequest("min_altitude_agl", "must not exceed max_altitude_agl");
  const unknownRulesets = await unknownRulesetIds(db, input.rulesets ?? []);
  if (unknownRulesets.length > 0) throw unknownRulesetsError(unknownRulesets);
  const buffer = input.buffer ?? 0;
  const area = checkedFlightArea(input.geometry, buffer);
  fail(takeoffProblem([input.takeoff_longitude, input.takeoff_latitude], area));
  await checkAircraft(db, pilotId, input.aircraft_id);
  return {
    takeoffLatitude: input.takeoff_latitude,
    takeoffLongitude: input.takeoff_longitude,
    startTime,
    endTime,
    maxAltitudeAgl: input.max_altitude_agl,
    minAltitudeAgl: minAltitude,
    buffer,
    geometry: input.geometry as Geometry,
    area,
    ...bboxOf(area),
    aircraftId: input.aircraft_id ?? null,
    rulesets: input.rulesets ?? [],
    flightDescription: input.flight_description ?? "",
    flightFeatures: input.flight_features ?? {},
  };
}

/** Creates a plan for the pilot, checked as the flight it will become. */
export async function createPlan(
  db: Db,
  owner: { accountId: string; pilotId: string },
  input: PlanRequest,
  now: number,
): Promise<FlightPlanRow> {
  const fields = await checkedPlan(db, input, owner.pilotId, now);
  return insertPlan(db, { id: newId("flight_plan"), ...owner, ...fields, flightId: null, createdAt: now });
}

/** Back to the request's shape, so a change is checked as the whole plan it produces. */
function planRequest(plan: FlightPlanRow): PlanRequest {
  return {
    takeoff_latitude: plan.takeoffLatitude,
    takeoff_longitude: plan.takeoffLongitude,
    start_time: new Date(plan.startTime).toISOString(),
    end_time: new Date(plan.endTime).toISOString(),
    max_altitude_agl: plan.maxAltitudeAgl,
    min_altitude_agl: plan.minAltitudeAgl,
    buffer: plan.buffer,
    geometry: plan.geometry,
    aircraft_id: plan.aircraftId,
    rulesets: plan.rulesets,
    flight_description: plan.flightDescription,
    flight_features: plan.flightFeatures as PlanRequest["flight_features"],
  };
}

/** Changes a plan that is not submitted; null when a submit claimed it first. */
export async function changePlan(
  db: Db,
  plan: FlightPlanRow,
  changes: Partial<PlanRequest>,
  now: number,
): Promise<FlightPlanRow | null> {
  const fields = await checkedPlan(db, { ...planRequest(plan), ...changes }, plan.pilotId, now);
  return updateUnsubmittedPlan(db, plan.id, fields);
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

/** A flight as the API asks for it: its times as given (start_time, end_time), resolved by flightWindow. */
export type RequestedFlight = Omit<DirectFlight, "startTime" | "endTime"> & {
  start: string | undefined;
  end: string | undefined;
};

/** Creates a flight from a `/flight/v2/point|polygon|path` body. */
export async function createRequestedFlight(
  db: Db,
  request: RequestedFlight,
  now: number,
): Promise<FlightRow> {
  const { start, end, ...rest } = request;
  return createDirectFlight(db, { ...rest, ...flightWindow(start, end, now) }, now);
}

/** Creates a flight from a point, polygon or path request. */
export async function createDirectFlight(db: Db, request: DirectFlight, now: number): Promise<FlightRow> {
  const area = checkedFlightArea(request.geometry, request.buffer);
  fail(takeoffProblem([request.longitude, request.latitude], area));
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

/** Where a plan's flight takes off and what LAANC says of it, from the plan's own columns. */
export function decidePlanFlight(db: Db, plan: FlightPlanRow) {
  return placeAndAuthorizations(db, {
    latitude: plan.takeoffLatitude,
    longitude: plan.takeoffLongitude,
    area: plan.area,
    maxAltitudeAgl: plan.maxAltitudeAgl,
    rulesets: plan.rulesets,
    startTime: plan.startTime,
    endTime: plan.endTime,
  });
}

/**
 * Creates the plan's flight from the plan's own columns (and `decided`, decidePlanFlight's answer
 * for this plan when the caller has it); null when another submit claimed the plan first.
 */
export async function createPlanFlight(
  db: Db,
  plan: FlightPlanRow,
  options: { public: boolean },
  now: number,
  decided?: Awaited<ReturnType<typeof decidePlanFlight>>,
): Promise<FlightRow | null> {
  decided ??= await decidePlanFlight(db, plan);
  return submitPlan(db, plan, {
    flightId: newId("flight"),
    createdAt: now,
    public: options.public,
    ...decided,
  });
}

/**
 * Submits the pilot's plan (`ahead`, middleware/ownFlight.ts ownPlanAhead): its place and LAANC
 * reads start from the plan as this isolate last saw it while the plan is read again, and are made
 * again from the fresh row when it changed meanwhile. `visibility` (the body's `public`) is read
 * once the plan is confirmed the pilot's, so a stranger learns nothing from the body's errors.
 * 409 when the plan was already submitted. The submitted plan, with its flight's id.
 */
export async function submitPlanAhead(
  db: Db,
  ahead: PlanAhead,
  visibility: () => Promise<boolean | undefined>,
  now: number,
) {
  const { guess, confirmed } = ahead;
  const early = guess && !guess.flightId ? decidePlanFlight(db, guess).catch(() => undefined) : undefined;
  const [plan, decided] = await Promise.all([confirmed, early]);
  if (plan.flightId) throw conflict("This flight plan was already submitted");
  const visible = await visibility();
  const flight = await createPlanFlight(
    db,
    plan,
    { public: visible ?? false },
    now,
    decided && samePlan(guess!, plan) ? decided : undefined,
  );
  if (!flight) throw conflict("This flight plan was already submitted");
  const submitted = { ...plan, flightId: flight.id };
  rememberPlan(submitted);
  return { plan: submitted, flight };
}
