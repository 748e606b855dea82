import { recordTimeProblem, timeWindowText } from "../../proto/recordTime";
import { ellipsoidToEgm96 } from "../domain/geoid";
import { type Checked, checked, type Problem, problem } from "../domain/problem";
import { isObject } from "../lib/json";
import { parseTime } from "../lib/time";
import { type DeclaredState, metersOfHorizontalAccuracy } from "./aircraftState";
import { SpecialSpeed, SpecialTrackDirection, SpecialVerticalSpeed } from "./constants";
import type { DeclaredDetails } from "./details";
import {
  HORIZONTAL_ACCURACIES,
  OPERATIONAL_STATUSES,
  type OperationalStatus,
  SPEED_ACCURACIES,
  type SpeedAccuracy,
  UA_TYPES,
  type UAType,
  VERTICAL_ACCURACIES,
  type VerticalAccuracy,
} from "./f3411";

/**
 * The qualifier's RID test data (interuss automated_testing_interfaces rid/v1/injection.yaml,
 * CreateTestParameters) read into flights whose states become telemetry records, the same
 * `position` and `speed` records the relay and HTTP ingest store. Pure: no storage, no HTTP.
 */

export const MAX_FLIGHTS_PER_TEST = 50;
export const MAX_STATES_PER_FLIGHT = 10_000;
/** How far ahead injected states may be dated: test data plays out after its injection. */
export const INJECTED_AHEAD_MS = 24 * 3600_000;

export interface InjectedState {
  timestamp: number;
  /** The injected WGS84 height, meters (the record keeps the EGM96 height). */
  altitudeWgs84: number;
  position: Record<string, number>;
  /** Absent when the state's track or speed is the standard's "unknown". */
  speed: Record<string, number> | undefined;
  declared: DeclaredState;
}

export interface InjectedFlight {
  injectionId: string;
  aircraftType: UAType;
  /** The states with a whole position (lat, lng, alt), by time: the ones stored and served. */
  states: InjectedState[];
  /** When every state was sent, placed or not: the update rate F3411 judges. */
  updateTimes: number[];
  details: DeclaredDetails[];
  /** The flight as sent, echoed in `injected_flights`. */
  original: Record<string, unknown>;
}

const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const round3 = (v: number) => Math.round(v * 1000) / 1000;

/** A time of the interface: an RFC 3339 string (v0.x) or F3411-22a's `{value, format}`. */
export function timeOf(value: unknown): number | undefined {
  const text = isObject(value) ? value.value : value;
  return typeof text === "string" ? parseTime(text) : undefined;
}

function oneOf<T extends string>(list: readonly T[], value: unknown): T | undefined {
  return list.includes(value as T) ? (value as T) : undefined;
}

/** CreateTestParameters as flights injected at `now`, or the first problem found, naming its field. */
export function parseTestParameters(body: unknown, now: number): Checked<InjectedFlight[]> {
  if (!isObject(body) || !Array.isArray(body.requested_flights))
    return problem("requested_flights", "required: an array of TestFlight");
  const requested: unknown[] = body.requested_flights;
  if (requested.length === 0 || requested.length > MAX_FLIGHTS_PER_TEST)
    return problem("requested_flights", `from 1 to ${MAX_FLIGHTS_PER_TEST} flights`);
  const flights: InjectedFlight[] = [];
  for (const [f, flight] of requested.entries()) {
    const parsed = parseFlight(flight, `requested_flights[${f}]`, now);
    if ("field" in parsed) return { ok: false, problems: [parsed] };
    if (flights.some((other) => other.injectionId === parsed.injectionId))
      return problem(`requested_flights[${f}].injection_id`, "repeats another flight's");
    flights.push(parsed);
  }
  return checked(flights);
}

function parseFlight(flight: unknown, at: string, now: number): InjectedFlight | Problem {
  const fail = (field: string, message: string): Problem => ({ field: `${at}${field}`, message });
  if (!isObject(flight)) return fail("", "must be a TestFlight object");
  const injectionId = flight.injection_id;
  if (typeof injectionId !== "string" || injectionId === "") return fail(".injection_id", "required string");
  // F3411-19's VTOL is F3411-22a's HybridLift (the interface keeps both).
  const type = flight.aircraft_type === "VTOL" ? "HybridLift" : flight.aircraft_type;
  const aircraftType = type === undefined || type === null ? "NotDeclared" : oneOf(UA_TYPES, type);
  if (!aircraftType) return fail(".aircraft_type", `one of ${UA_TYPES.join(", ")}`);
  const telemetry = flight.telemetry;
  if (!Array.isArray(telemetry) || telemetry.length === 0 || telemetry.length > MAX_STATES_PER_FLIGHT)
    return fail(".telemetry", `from 1 to ${MAX_STATES_PER_FLIGHT} RIDAircraftState`);
  const states: InjectedState[] = [];
  const updateTimes: number[] = [];
  for (const [s, state] of telemetry.entries()) {
    const parsed = parseState(state, `${at}.telemetry[${s}]`);
    if ("problem" in parsed) return parsed.problem;
    // The injection opens the test's session: a state dated 1970 or 9999 is refused (proto/recordTime.ts).
    if (recordTimeProblem(parsed.timestamp, now, now, INJECTED_AHEAD_MS))
      return fail(
        `.telemetry[${s}].timestamp`,
        `must lie ${timeWindowText("the injection", "now", INJECTED_AHEAD_MS)}`,
      );
    updateTimes.push(parsed.timestamp);
    if (parsed.state) states.push(parsed.state);
  }
  if (states.length === 0)
    return fail(".telemetry", "needs at least one state with a whole position (lat, lng and alt)");
  states.sort((a, b) => a.timestamp - b.timestamp);
  updateTimes.sort((a, b) => a - b);
  const responses = flight.details_responses;
  if (!Array.isArray(responses)) return fail(".details_responses", "required: an array of TestFlightDetails");
  const details: DeclaredDetails[] = [];
  for (const [d, response] of responses.entries()) {
    const where = `.details_responses[${d}]`;
    if (!isObject(response)) return fail(where, "must be a TestFlightDetails object");
    const effectiveAfter = timeOf(response.effective_after);
    if (effectiveAfter === undefined) return fail(`${where}.effective_after`, "required RFC 3339 time");
    if (!isObject(response.details)) return fail(`${where}.details`, "required RIDFlightDetails object");
    details.push({ effectiveAfter, details: response.details });
  }
  return { injectionId, aircraftType, states, updateTimes, details, original: flight };
}

/** A state read: `state` is absent when it cannot be placed (its position or a coordinate missing). */
type ParsedState = { timestamp: number; state?: InjectedState } | { problem: Problem };

/** A number within [min, max]; undefined when absent, false when anything else. */
const inRange = (v: unknown, min: number, max: number): number | undefined | false =>
  v === undefined ? undefined : isNumber(v) && v >= min && v <= max ? v : false;

const withoutNulls = (object: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(object).filter(([, v]) => v !== null));

function parseState(raw: unknown, at: string): ParsedState {
  const refuse = (field: string, message: string): ParsedState => ({
    problem: { field: `${at}${field}`, message },
  });
  if (!isObject(raw)) return refuse("", "must be a RIDAircraftState object");
  // Fields sent as null are absent. The interface requires only `timestamp`, so that
  // SpOperatorNotifyMissingFields can leave out, one at a time, each field F3411 requires
  // (the position and its lat, lng and alt among them): such a state is taken and notified, not refused.
  const value = withoutNulls(raw);
  const timestamp = timeOf(value.timestamp);
  if (timestamp === undefined) return refuse(".timestamp", "required RFC 3339 time with an offset or Z");
  if (value.position !== undefined && !isObject(value.position))
    return refuse(".position", "must be a RIDAircraftPosition object");
  const position = withoutNulls(isObject(value.position) ? value.position : {});
  const lat = inRange(position.lat, -90, 90);
  if (lat === false) return refuse(".position.lat", "from -90 to 90");
  const lng = inRange(position.lng, -180, 180);
  if (lng === false) return refuse(".position.lng", "from -180 to 180");
  // -1000 is the standard's unknown altitude: such a state cannot be placed, so it is refused.
  const alt = inRange(position.alt, -1000, 100_000);
  if (alt === false || alt === -1000) return refuse(".position.alt", "WGS84 meters above -1000");
  // v0.1 of the interface requires the accuracies on the state; F3411-22a places them on the position.
  const accuracyH = position.accuracy_h ?? value.accuracy_h;
  if (accuracyH !== undefined && !oneOf(HORIZONTAL_ACCURACIES, accuracyH))
    return refuse(".position.accuracy_h", `one of ${HORIZONTAL_ACCURACIES.join(", ")}`);
  const track = value.track ?? SpecialTrackDirection;
  const speed = value.speed ?? SpecialSpeed;
  const vertical = value.vertical_speed ?? SpecialVerticalSpeed;
  if (!isNumber(track) || track < -360 || track > SpecialTrackDirection)
    return refuse(".track", "degrees; 361 unknown");
  if (!isNumber(speed) || speed < 0 || speed > SpecialSpeed)
    return refuse(".speed", "m/s from 0; 255 unknown");
  if (!isNumber(vertical) || Math.abs(vertical) > SpecialVerticalSpeed)
    return refuse(".vertical_speed", "m/s from -63 to 63; 63 unknown");
  const declared: DeclaredState = {};
  // undefined when absent, false when not one of the list.
  const enumField = <T extends string>(list: readonly T[], v: unknown): T | undefined | false => {
    if (v === undefined) return undefined;
    return oneOf(list, v) ?? false;
  };
  const accuracyV = enumField<VerticalAccuracy>(VERTICAL_ACCURACIES, position.accuracy_v ?? value.accuracy_v);
  if (accuracyV === false) return refuse(".position.accuracy_v", `one of ${VERTICAL_ACCURACIES.join(", ")}`);
  if (accuracyV) declared.accuracy_v = accuracyV;
  const speedAccuracy = enumField<SpeedAccuracy>(SPEED_ACCURACIES, value.speed_accuracy);
  if (speedAccuracy === false) return refuse(".speed_accuracy", `one of ${SPEED_ACCURACIES.join(", ")}`);
  if (speedAccuracy) declared.speed_accuracy = speedAccuracy;
  const status = enumField<OperationalStatus>(OPERATIONAL_STATUSES, value.operational_status);
  if (status === false) return refuse(".operational_status", `one of ${OPERATIONAL_STATUSES.join(", ")}`);
  if (status) declared.operational_status = status;
  if (value.timestamp_accuracy !== undefined) {
    if (!isNumber(value.timestamp_accuracy) || value.timestamp_accuracy < 0)
      return refuse(".timestamp_accuracy", "seconds, 0 or more");
    declared.timestamp_accuracy = value.timestamp_accuracy;
  }
  if (isNumber(position.pressure_altitude)) declared.pressure_altitude = position.pressure_altitude;
  // v0.x of the interface has `height` on the state, F3411-22a on the position.
  const height = isObject(position.height)
    ? position.height
    : isObject(value.height)
      ? value.height
      : undefined;
  if (height) {
    if (
      !isNumber(height.distance) ||
      (height.reference !== "TakeoffLocation" && height.reference !== "GroundLevel")
    )
      return refuse(".height", "distance (m) and reference TakeoffLocation or GroundLevel");
    declared.height = { distance: height.distance, reference: height.reference };
  }
  const velocityKnown = track !== SpecialTrackDirection && speed !== SpecialSpeed;
  if (!velocityKnown) declared.unknown_velocity = true;
  if (vertical === SpecialVerticalSpeed) declared.unknown_vertical_speed = true;
  // Checked like any other, but a state that cannot be placed is neither stored nor served.
  if (lat === undefined || lng === undefined || alt === undefined) return { timestamp };
  const radians = (track * Math.PI) / 180;
  return {
    timestamp,
    state: {
      timestamp,
      altitudeWgs84: alt,
      position: {
        latitude: lat,
        longitude: lng,
        altitude_agl: declared.height?.reference === "GroundLevel" ? declared.height.distance : 0,
        altitude_msl: Math.round(ellipsoidToEgm96(lat, lng, alt) * 100) / 100,
        horizontal_accuracy: metersOfHorizontalAccuracy(accuracyH as string | undefined),
      },
      speed: velocityKnown
        ? {
            velocity_x: round3(speed * Math.cos(radians)),
            velocity_y: round3(speed * Math.sin(radians)),
            velocity_z: vertical === SpecialVerticalSpeed ? 0 : -vertical,
          }
        : undefined,
      declared,
    },
  };
}

/** What an injected flight's Durable Object keeps beside its records (keepRemoteId). */
export interface FlightDeclaration {
  kind: "flight";
  testId: string;
  injectionId: string;
  aircraftType: UAType;
  details: DeclaredDetails[];
  /** Declared state fields by the state's timestamp (ms, as a string key). */
  states: Record<string, DeclaredState>;
}

/** What a test's own Durable Object keeps: its version and flights, and the echo of what was injected. */
export interface TestRegistration {
  kind: "test";
  testId: string;
  version: string;
  flights: { injectionId: string; flightId: string }[];
  injected: Record<string, unknown>[];
  /** The Identification Service Area registered in the DSS for this test, when one is configured. */
  isa?: { id: string; version: string };
}

export function declarationOf(flight: InjectedFlight, testId: string): FlightDeclaration {
  return {
    kind: "flight",
    testId,
    injectionId: flight.injectionId,
    aircraftType: flight.aircraftType,
    details: flight.details,
    states: Object.fromEntries(flight.states.map((s) => [String(s.timestamp), s.declared])),
  };
}

function parsed(json: string | null): unknown {
  if (json === null) return null;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return null;
  }
}

/** A flight's kept declarations (their JSON text), if it is an injected flight's. */
export function flightDeclaration(json: string | null): FlightDeclaration | undefined {
  const value = parsed(json);
  return isObject(value) && value.kind === "flight" ? (value as unknown as FlightDeclaration) : undefined;
}

/** A test's kept registration (its JSON text), if any. */
export function testRegistration(json: string | null): TestRegistration | undefined {
  const value = parsed(json);
  return isObject(value) && value.kind === "test" ? (value as unknown as TestRegistration) : undefined;
}

/** The injected flight as the interface echoes it: details carry this service's flight id. */
export function injectedEcho(flight: InjectedFlight, flightId: string): Record<string, unknown> {
  const responses = Array.isArray(flight.original.details_responses) ? flight.original.details_responses : [];
  return {
    ...flight.original,
    details_responses: responses.map((r: unknown) =>
      isObject(r) && isObject(r.details) ? { ...r, details: { ...r.details, id: flightId } } : r,
    ),
  };
}
