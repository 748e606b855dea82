import booleanPointInPolygon from "@turf/boolean-point-in-polygon";
import pointToPolygonDistance from "@turf/point-to-polygon-distance";
import { isoTime } from "../lib/time";
import type { Polygon } from "./geojson";

/**
 * Conformance monitoring of live telemetry against the flight's plan: its area (the stored flight
 * geometry, which already includes the buffer), its time window, its ceiling in meters above OUR
 * ground elevation, and gaps in telemetry. Pure: the caller supplies the ground elevation below each
 * position and the clock; events are emitted on transitions only, with hysteresis (HYSTERESIS) so
 * that a drone flying along a limit, within the noise of its GPS and of our ground, raises nothing.
 */

/** No record for this long while the flight is active (after its first record): telemetry_lost. */
export const TELEMETRY_LOST_MS = 15_000;

/**
 * Per spatial limit: a problem opens only once the drone is beyond the limit by more than
 * `beyondM` for at least `holdMs` (of the records' own time, every position in between beyond it
 * too), and clears only once it is back inside by at least `insideM`. The margins cover GPS error
 * (a few meters across, more up) and the gap between the drone's idea of the ground and ours.
 * The time window needs none: records are judged in timestamp order, so time cannot flap.
 */
export const HYSTERESIS = {
  above_ceiling: { beyondM: 3, holdMs: 2000, insideM: 2 },
  left_area: { beyondM: 10, holdMs: 2000, insideM: 5 },
} as const;

type SpatialProblem = keyof typeof HYSTERESIS;

export type ProblemType = "left_area" | "above_ceiling" | "outside_time" | "telemetry_lost";
export type ConformanceType = ProblemType | "back_in_conformance";

export interface ConformanceEvent {
  type: ConformanceType;
  /** ISO time of the record that caused it; for telemetry_lost, when the silence reached 15 s. */
  at: string;
  latitude: number | null;
  longitude: number | null;
  [detail: string]: unknown;
}

/** What the flight promised: its area, time window and ceiling (null: none). */
export interface FlightEnvelope {
  area: Polygon;
  startTime: number;
  endTime: number;
  /** Meters above ground; null when the flight has none (max_altitude 0). */
  ceiling: number | null;
}

/** The monitor's memory between records; plain JSON so the Durable Object can keep it. */
export interface MonitorState {
  open: ProblemType[];
  /** When each spatial problem's current run beyond its margin began (records' time), not yet held long enough. */
  beyondSince?: Partial<Record<SpatialProblem, number>>;
  /** Timestamp of the newest position judged: older positions arriving late are not judged again. */
  lastPositionAt: number | null;
  lastLatitude: number | null;
  lastLongitude: number | null;
  /** Wall time the newest record of any type arrived; null before the first record. */
  lastReceivedAt: number | null;
}

export function initialState(): MonitorState {
  return {
    open: [],
    beyondSince: {},
    lastPositionAt: null,
    lastLatitude: null,
    lastLongitude: null,
    lastReceivedAt: null,
  };
}

/** A position record with the ground elevation (meters, EGM96) below it, null where none is loaded. */
export interface JudgedPosition {
  timestamp: number;
  latitude: number;
  longitude: number;
  /** Field 5 of the Position message, EGM96 meters; the drone's own altitude_agl is not trusted. */
  altitudeMsl: number;
  ground: number | null;
}

export function envelopeOf(flight: {
  geometry: Polygon;
  startTime: number;
  endTime: number;
  maxAltitude: number;
}): FlightEnvelope {
  return {
    area: flight.geometry,
    startTime: flight.startTime,
    endTime: flight.endTime,
    ceiling: flight.maxAltitude > 0 ? flight.maxAltitude : null,
  };
}

export interface Outcome {
  state: MonitorState;
  events: ConformanceEvent[];
}

/** Any record arrived (wall time `now`): ends a telemetry_lost, maybe bringing the flight back. */
export function recordArrived(state: MonitorState, now: number, at: number): Outcome {
  const next = { ...state, lastReceivedAt: now };
  if (!state.open.includes("telemetry_lost")) return { state: next, events: [] };
  return close(next, ["telemetry_lost"], at, state.lastLatitude, state.lastLongitude, {});
}

/**
 * Judges one position; events for the problems it opens (held beyond their margin long enough), or
 * back_in_conformance when the last open one has cleared (back inside by its margin).
 */
export function judgePosition(envelope: FlightEnvelope, state: MonitorState, p: JudgedPosition): Outcome {
  if (state.lastPositionAt !== null && p.timestamp < state.lastPositionAt) return { state, events: [] };
  const heightAgl = p.ground === null ? null : round2(p.altitudeMsl - p.ground);
  const details: Record<string, unknown> = {
    altitude_msl: round2(p.altitudeMsl),
    ground_elevation: p.ground,
    height_agl: heightAgl,
    ceiling: envelope.ceiling,
  };
  if (p.ground === null)
    details.elevation = "no ground elevation is loaded below this position: the ceiling was not checked";

  const open = [...state.open];
  const beyondSince = { ...state.beyondSince };
  const opened: [ProblemType, Record<string, unknown>][] = [];
  const cleared: ProblemType[] = [];

  /** One spatial limit: `beyondBy` is how far past it the drone is (negative: inside by that much). */
  const judge = (
    type: SpatialProblem,
    beyondBy: number,
    insideMargin: () => number,
    extra: () => Record<string, unknown>,
  ) => {
    const rule = HYSTERESIS[type];
    if (open.includes(type)) {
      if (beyondBy <= -insideMargin()) cleared.push(type);
      return;
    }
    if (beyondBy <= rule.beyondM) {
      delete beyondSince[type];
      return;
    }
    const since = beyondSince[type] ?? p.timestamp;
    if (p.timestamp - since < rule.holdMs) {
      beyondSince[type] = since;
      return;
    }
    delete beyondSince[type];
    opened.push([type, { ...extra(), beyond_since: isoTime(since) }]);
  };

  // Distances are computed only where they can change something: most records are well inside.
  const point = [p.longitude, p.latitude];
  const inside = booleanPointInPolygon(point, envelope.area);
  if (!inside || open.includes("left_area")) {
    const distance = Math.abs(pointToPolygonDistance(point, envelope.area, { units: "meters" }));
    const beyondBy = inside ? -distance : distance;
    judge(
      "left_area",
      beyondBy,
      () => Math.min(HYSTERESIS.left_area.insideM, narrowestSideM(envelope.area) / 4),
      () => ({ distance_m: round2(beyondBy) }),
    );
  } else {
    delete beyondSince.left_area;
  }

  const outsideTime = p.timestamp < envelope.startTime || p.timestamp > envelope.endTime;
  if (outsideTime && !open.includes("outside_time")) {
    const early = p.timestamp < envelope.startTime;
    opened.push([
      "outside_time",
      {
        start_time: isoTime(envelope.startTime),
        end_time: isoTime(envelope.endTime),
        [early ? "early_by_s" : "late_by_s"]: round2(
          (early ? envelope.startTime - p.timestamp : p.timestamp - envelope.endTime) / 1000,
        ),
      },
    ]);
  } else if (!outsideTime && open.includes("outside_time")) {
    cleared.push("outside_time");
  }

  // Without ground below, the ceiling cannot be judged: an open above_ceiling stays open and none opens.
  if (envelope.ceiling === null) {
    delete beyondSince.above_ceiling;
    if (open.includes("above_ceiling")) cleared.push("above_ceiling");
  } else if (heightAgl === null) {
    delete beyondSince.above_ceiling;
  } else {
    const beyondBy = heightAgl - envelope.ceiling;
    judge(
      "above_ceiling",
      beyondBy,
      () => HYSTERESIS.above_ceiling.insideM,
      () => ({ above_by_m: round2(beyondBy) }),
    );
  }

  const events: ConformanceEvent[] = [];
  for (const [type, extra] of opened) {
    open.push(type);
    events.push(event(type, p.timestamp, p.latitude, p.longitude, { ...details, ...extra }));
  }
  const stillOpen = open.filter((type) => !cleared.includes(type));
  if (cleared.length > 0 && stillOpen.length === 0) {
    events.push(event("back_in_conformance", p.timestamp, p.latitude, p.longitude, { ...details, cleared }));
  }
  const next: MonitorState = {
    ...state,
    open: stillOpen,
    beyondSince,
    lastPositionAt: p.timestamp,
    lastLatitude: p.latitude,
    lastLongitude: p.longitude,
  };
  return { state: next, events };
}

/** The narrower side of the area's bounding box in meters: a small area's inside margin is scaled to it. */
function narrowestSideM(area: Polygon): number {
  let [west, south, east, north] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [lng, lat] of area.coordinates[0] ?? []) {
    west = Math.min(west, lng!);
    east = Math.max(east, lng!);
    south = Math.min(south, lat!);
    north = Math.max(north, lat!);
  }
  const metersPerDegree = 111_320;
  const width = (east - west) * metersPerDegree * Math.cos((((south + north) / 2) * Math.PI) / 180);
  return Math.min(width, (north - south) * metersPerDegree);
}

/**
 * The Durable Object's alarm at `now`: telemetry_lost when the flight is active, has sent at least
 * one record and none for TELEMETRY_LOST_MS. Returns when to look again (null: no need).
 */
export function checkSilence(
  envelope: FlightEnvelope,
  state: MonitorState,
  now: number,
): Outcome & { recheckAt: number | null } {
  if (state.lastReceivedAt === null || state.open.includes("telemetry_lost"))
    return { state, events: [], recheckAt: null };
  if (now < envelope.startTime || now > envelope.endTime) return { state, events: [], recheckAt: null };
  const due = state.lastReceivedAt + TELEMETRY_LOST_MS;
  if (now < due) return { state, events: [], recheckAt: due };
  const lost = event("telemetry_lost", due, state.lastLatitude, state.lastLongitude, {
    last_record_at: isoTime(state.lastReceivedAt),
    silent_s: round2((now - state.lastReceivedAt) / 1000),
  });
  return { state: { ...state, open: [...state.open, "telemetry_lost"] }, events: [lost], recheckAt: null };
}

/** When the alarm should next look for silence, after a record arrived. */
export function silenceDueAt(envelope: FlightEnvelope, state: MonitorState): number | null {
  if (state.lastReceivedAt === null) return null;
  const due = state.lastReceivedAt + TELEMETRY_LOST_MS;
  return due > envelope.endTime ? null : Math.max(due, envelope.startTime);
}

function close(
  state: MonitorState,
  types: ProblemType[],
  at: number,
  latitude: number | null,
  longitude: number | null,
  details: Record<string, unknown>,
): Outcome {
  const open = state.open.filter((type) => !types.includes(type));
  const next = { ...state, open };
  if (open.length > 0) return { state: next, events: [] };
  return {
    state: next,
    events: [event("back_in_conformance", at, latitude, longitude, { ...details, cleared: types })],
  };
}

function event(
  type: ConformanceType,
  at: number,
  latitude: number | null,
  longitude: number | null,
  details: Record<string, unknown>,
): ConformanceEvent {
  return { type, at: isoTime(at), latitude, longitude, ...details };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
