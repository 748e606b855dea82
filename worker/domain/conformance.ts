import booleanPointInPolygon from "@turf/boolean-point-in-polygon";
import pointToPolygonDistance from "@turf/point-to-polygon-distance";
import { isoTime } from "../lib/time";
import type { Polygon } from "./geojson";

/**
 * Conformance monitoring of live telemetry against the flight's plan: its area (the stored flight
 * geometry, which already includes the buffer), its time window, its ceiling in meters above OUR
 * ground elevation, and gaps in telemetry. Pure: the caller supplies the ground elevation below each
 * position and the clock; events are emitted on transitions only.
 */

/** No record for this long while the flight is active (after its first record): telemetry_lost. */
export const TELEMETRY_LOST_MS = 15_000;

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
  /** Timestamp of the newest position judged: older positions arriving late are not judged again. */
  lastPositionAt: number | null;
  lastLatitude: number | null;
  lastLongitude: number | null;
  /** Wall time the newest record of any type arrived; null before the first record. */
  lastReceivedAt: number | null;
}

export function initialState(): MonitorState {
  return { open: [], lastPositionAt: null, lastLatitude: null, lastLongitude: null, lastReceivedAt: null };
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

/** Judges one position; events for the problems it opens, or back_in_conformance when all cleared. */
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

  // Details are computed only for an event that is emitted: most records change nothing.
  const present = new Map<ProblemType, () => Record<string, unknown>>();
  if (!booleanPointInPolygon([p.longitude, p.latitude], envelope.area)) {
    present.set("left_area", () => {
      const distance = pointToPolygonDistance([p.longitude, p.latitude], envelope.area, { units: "meters" });
      return { distance_m: round2(Math.abs(distance)) };
    });
  }
  if (p.timestamp < envelope.startTime || p.timestamp > envelope.endTime) {
    present.set("outside_time", () => ({
      start_time: isoTime(envelope.startTime),
      end_time: isoTime(envelope.endTime),
      [p.timestamp < envelope.startTime ? "early_by_s" : "late_by_s"]: round2(
        (p.timestamp < envelope.startTime
          ? envelope.startTime - p.timestamp
          : p.timestamp - envelope.endTime) / 1000,
      ),
    }));
  }
  // Without ground below, the ceiling cannot be judged: an open above_ceiling stays open and none opens.
  const ceilingKnown = envelope.ceiling !== null && heightAgl !== null;
  if (ceilingKnown && heightAgl! > envelope.ceiling!) {
    present.set("above_ceiling", () => ({ above_by_m: round2(heightAgl! - envelope.ceiling!) }));
  }

  const base: MonitorState = {
    ...state,
    lastPositionAt: p.timestamp,
    lastLatitude: p.latitude,
    lastLongitude: p.longitude,
  };
  const events: ConformanceEvent[] = [];
  const open = [...state.open];
  for (const [type, extra] of present) {
    if (open.includes(type)) continue;
    open.push(type);
    events.push(event(type, p.timestamp, p.latitude, p.longitude, { ...details, ...extra() }));
  }
  const cleared = open.filter(
    (type) =>
      !present.has(type) &&
      type !== "telemetry_lost" &&
      !(type === "above_ceiling" && envelope.ceiling !== null && heightAgl === null),
  );
  const stillOpen = open.filter((type) => !cleared.includes(type));
  if (cleared.length > 0 && stillOpen.length === 0) {
    events.push(event("back_in_conformance", p.timestamp, p.latitude, p.longitude, { ...details, cleared }));
  }
  return { state: { ...base, open: stillOpen }, events };
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
