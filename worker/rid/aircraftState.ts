import { roundCoordinate } from "../domain/geojson";
import {
  MaxAbsVerticalSpeed,
  MaxSpeed,
  SpecialSpeed,
  SpecialTrackDirection,
  SpecialVerticalSpeed,
} from "./constants";
import {
  type HorizontalAccuracy,
  type OperationalStatus,
  type RIDAircraftPosition,
  type RIDAircraftState,
  type RIDFlight,
  type RIDHeight,
  type RIDRecentAircraftPosition,
  rfc3339,
  type SpeedAccuracy,
  type UAType,
  type VerticalAccuracy,
} from "./f3411";
import { contains, type View } from "./view";

/**
 * Telemetry records as F3411-22a aircraft states. A `position` record (WGS84 degrees, EGM96 height,
 * height above ground, HDOP) gives the position; the `speed` record nearest in time (NED m/s) gives
 * speed, track and vertical speed. Fields telemetry cannot carry (timestamp accuracy, vertical and
 * speed accuracy, operational status, a take-off-relative height) come from what an injected flight
 * declared, else are the standard's "unknown".
 */

/** A stored record as the flight's Durable Object returns it. */
export interface RecordSample {
  type: string;
  timestamp: number;
  fields: Record<string, number>;
}

/** What an injected state declared beyond what the records carry, by its timestamp (ms). */
export interface DeclaredState {
  timestamp_accuracy?: number;
  accuracy_v?: VerticalAccuracy;
  speed_accuracy?: SpeedAccuracy;
  operational_status?: OperationalStatus;
  height?: RIDHeight;
  pressure_altitude?: number;
  /** The injected track or speed was the standard's "unknown". */
  unknown_velocity?: boolean;
  /** The injected vertical speed was the standard's "unknown". */
  unknown_vertical_speed?: boolean;
}

export interface PositionSample {
  timestamp: number;
  latitude: number;
  longitude: number;
  /** WGS84 ellipsoid height, meters. */
  altitudeWgs84: number;
  altitudeAgl: number | undefined;
  horizontalAccuracyM: number;
  velocity: { north: number; east: number; down: number } | undefined;
  declared: DeclaredState | undefined;
}

/** A speed record this close in time belongs to the position (relay datagrams carry both together). */
const SPEED_PAIRING_MS = 1000;

/** Upper bounds (meters) of the horizontal accuracy classes, finest first. */
const HORIZONTAL_BOUNDS: [number, HorizontalAccuracy][] = [
  [1, "HA1m"],
  [3, "HA3m"],
  [10, "HA10m"],
  [30, "HA30m"],
  [92.6, "HA005NM"],
  [185.2, "HA01NM"],
  [555.6, "HA03NM"],
  [926, "HA05NM"],
  [1852, "HA1NM"],
  [3704, "HA2NM"],
  [7408, "HA4NM"],
  [18_520, "HA10NM"],
];

/** The class of an accuracy in meters: the finest whose bound holds it; 0 or less is unknown. */
export function horizontalAccuracyOf(meters: number): HorizontalAccuracy {
  if (!(meters > 0)) return "HAUnknown";
  for (const [bound, code] of HORIZONTAL_BOUNDS) if (meters <= bound) return code;
  return "HA10NMPlus";
}

/** A class as meters (its bound), for storing an injected accuracy in a record; unknown is 0. */
export function metersOfHorizontalAccuracy(code: string | undefined): number {
  if (code === "HA10NMPlus") return 18_521;
  return HORIZONTAL_BOUNDS.find(([, c]) => c === code)?.[0] ?? 0;
}

/**
 * Position records paired with their speed records, oldest first. `toWgs84` turns an EGM96 height at
 * a point into an ellipsoid height (the geoid is injected so this stays pure and testable).
 */
export function positionSamples(
  records: RecordSample[],
  declared: Record<string, DeclaredState> | undefined,
  toWgs84: (lat: number, lng: number, egm96: number) => number,
): PositionSample[] {
  const speeds = records.filter((r) => r.type === "speed").sort((a, b) => a.timestamp - b.timestamp);
  const positions = records.filter((r) => r.type === "position").sort((a, b) => a.timestamp - b.timestamp);
  return positions.map((p) => {
    const f = p.fields;
    const speed = nearest(speeds, p.timestamp);
    const latitude = f.latitude!;
    const longitude = f.longitude!;
    return {
      timestamp: p.timestamp,
      latitude,
      longitude,
      altitudeWgs84: toWgs84(latitude, longitude, f.altitude_msl ?? 0),
      altitudeAgl: f.altitude_agl,
      horizontalAccuracyM: f.horizontal_accuracy ?? 0,
      velocity:
        speed && Math.abs(speed.timestamp - p.timestamp) <= SPEED_PAIRING_MS
          ? {
              north: speed.fields.velocity_x ?? 0,
              east: speed.fields.velocity_y ?? 0,
              down: speed.fields.velocity_z ?? 0,
            }
          : undefined,
      declared: declared?.[String(p.timestamp)],
    };
  });
}

function nearest(sorted: RecordSample[], at: number): RecordSample | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.timestamp < at) lo = mid + 1;
    else hi = mid;
  }
  const after = sorted[lo];
  const before = sorted[lo - 1];
  if (!before) return after;
  if (!after) return before;
  return at - before.timestamp <= after.timestamp - at ? before : after;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

export function positionOf(sample: PositionSample): RIDAircraftPosition {
  const declared = sample.declared;
  // An injected flight's height is what it declared; telemetry's is its height above ground.
  const height: RIDHeight | undefined = declared
    ? declared.height
    : sample.altitudeAgl !== undefined
      ? { distance: round(sample.altitudeAgl, 2), reference: "GroundLevel" }
      : undefined;
  return {
    lat: roundCoordinate(sample.latitude),
    lng: roundCoordinate(sample.longitude),
    alt: round(sample.altitudeWgs84, 2),
    accuracy_h: horizontalAccuracyOf(sample.horizontalAccuracyM),
    accuracy_v: declared?.accuracy_v ?? "VAUnknown",
    extrapolated: false,
    ...(declared?.pressure_altitude !== undefined ? { pressure_altitude: declared.pressure_altitude } : {}),
    ...(height ? { height } : {}),
  };
}

/** The aircraft state at a sample: speed over ground, true track and climb rate from NED velocity. */
export function stateOf(sample: PositionSample): RIDAircraftState {
  const v = sample.declared?.unknown_velocity ? undefined : sample.velocity;
  let speed = SpecialSpeed;
  let track = SpecialTrackDirection;
  let verticalSpeed = SpecialVerticalSpeed;
  if (v) {
    const ground = Math.hypot(v.north, v.east);
    speed = round(Math.min(ground, MaxSpeed), 2);
    // Not moving horizontally: the standard asks for the unknown track.
    if (ground > 0) track = round(((Math.atan2(v.east, v.north) * 180) / Math.PI + 360) % 360, 1) % 360;
    if (!sample.declared?.unknown_vertical_speed)
      verticalSpeed = round(Math.max(-MaxAbsVerticalSpeed, Math.min(MaxAbsVerticalSpeed, -v.down)), 2);
  }
  return {
    timestamp: rfc3339(sample.timestamp),
    timestamp_accuracy: sample.declared?.timestamp_accuracy ?? 0,
    operational_status: sample.declared?.operational_status ?? "Undeclared",
    position: positionOf(sample),
    track,
    speed,
    speed_accuracy: sample.declared?.speed_accuracy ?? "SAUnknown",
    vertical_speed: verticalSpeed,
  };
}

/** A flight as /uss/flights lists it; what a flight's Durable Object and D1 row say about it. */
export interface LiveFlight {
  id: string;
  aircraftType: UAType;
  simulated: boolean;
  /** Its positions of the last NetMaxNearRealTimeDataPeriodSeconds, oldest first, none in the future. */
  samples: PositionSample[];
}

/**
 * The flight as F3411 reports it for a view, or null when none of its recent positions lies inside
 * the view. `recent_positions` keeps the positions inside the view within the last `recentSeconds`,
 * plus the one just outside on each crossing of the view's edge (the standard's transitions).
 */
export function ridFlightFor(
  flight: LiveFlight,
  view: View,
  recentSeconds: number,
  now: number,
): RIDFlight | null {
  const { samples } = flight;
  const last = samples.at(-1);
  if (!last || !samples.some((s) => contains(view, s.latitude, s.longitude))) return null;
  const recent: RIDRecentAircraftPosition[] = [];
  if (recentSeconds > 0) {
    const since = now - recentSeconds * 1000;
    const inside = samples.map((s) => contains(view, s.latitude, s.longitude));
    samples.forEach((s, i) => {
      if (s.timestamp < since) return;
      if (inside[i] || inside[i - 1] || inside[i + 1])
        recent.push({ time: rfc3339(s.timestamp), position: positionOf(s) });
    });
  }
  return {
    id: flight.id,
    aircraft_type: flight.aircraftType,
    current_state: stateOf(last),
    simulated: flight.simulated,
    recent_positions: recent,
  };
}
