import type { OutgoingRecord } from "../../proto/records";

/**
 * A simulated multicopter for `npm run telemetry:send`: flies a pattern at a steady ground speed and
 * a steady height above the terrain it is given, and reports what a real one would — position,
 * NED velocity, attitude (banked into turns, pitched into its speed) and ISA barometric pressure.
 */

export type LatLng = [number, number];

const EARTH_RADIUS = 6_371_008.8;
const G = 9.80665;
/** Degrees of forward pitch per m/s of ground speed (nose down to fly forward), as small copters do. */
const PITCH_PER_MPS = -0.8;
const TURN_WINDOW_S = 2;

/** A closed or open path of positions; the simulator flies along it at constant speed, looping. */
export interface Pattern {
  points: LatLng[];
  /** Back to the start after the last point (orbit) rather than reversing (line, file). */
  closed: boolean;
}

export function orbit(center: LatLng, radius: number, steps = 72): Pattern {
  const points: LatLng[] = [];
  for (let i = 0; i < steps; i++) points.push(offset(center, radius, (360 * i) / steps));
  return { points, closed: true };
}

export function line(center: LatLng, halfLength: number, bearing = 90): Pattern {
  return {
    points: [offset(center, halfLength, bearing + 180), offset(center, halfLength, bearing)],
    closed: false,
  };
}

/** The point `distance` meters from `from` on `bearing` degrees (great circle). */
export function offset([lat, lng]: LatLng, distance: number, bearing: number): LatLng {
  const d = distance / EARTH_RADIUS;
  const b = (bearing * Math.PI) / 180;
  const p1 = (lat * Math.PI) / 180;
  const l1 = (lng * Math.PI) / 180;
  const p2 = Math.asin(Math.sin(p1) * Math.cos(d) + Math.cos(p1) * Math.sin(d) * Math.cos(b));
  const l2 =
    l1 + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(p1), Math.cos(d) - Math.sin(p1) * Math.sin(p2));
  return [(p2 * 180) / Math.PI, (((((l2 * 180) / Math.PI + 540) % 360) + 360) % 360) - 180];
}

export function distance([lat1, lng1]: LatLng, [lat2, lng2]: LatLng): number {
  const p1 = (lat1 * Math.PI) / 180;
  const p2 = (lat2 * Math.PI) / 180;
  const dp = p2 - p1;
  const dl = ((lng2 - lng1) * Math.PI) / 180;
  const a = Math.sin(dp / 2) ** 2 + Math.cos(p1) * Math.cos(p2) * Math.sin(dl / 2) ** 2;
  return 2 * EARTH_RADIUS * Math.asin(Math.min(1, Math.sqrt(a)));
}

export function bearing([lat1, lng1]: LatLng, [lat2, lng2]: LatLng): number {
  const p1 = (lat1 * Math.PI) / 180;
  const p2 = (lat2 * Math.PI) / 180;
  const dl = ((lng2 - lng1) * Math.PI) / 180;
  const y = Math.sin(dl) * Math.cos(p2);
  const x = Math.cos(p1) * Math.sin(p2) - Math.sin(p1) * Math.cos(p2) * Math.cos(dl);
  return ((((Math.atan2(y, x) * 180) / Math.PI) % 360) + 360) % 360;
}

/** ISA pressure (hPa) at a height above mean sea level (troposphere). */
export function pressureAt(altitudeMsl: number): number {
  return 1013.25 * (1 - 2.25577e-5 * altitudeMsl) ** 5.25588;
}

/** The legs of a pattern in flying order (a line is flown there and back). */
function legs(pattern: Pattern): [LatLng, LatLng][] {
  const pts = pattern.points;
  const out: [LatLng, LatLng][] = [];
  for (let i = 0; i + 1 < pts.length; i++) out.push([pts[i]!, pts[i + 1]!]);
  if (pattern.closed) out.push([pts[pts.length - 1]!, pts[0]!]);
  else for (let i = pts.length - 1; i > 0; i--) out.push([pts[i]!, pts[i - 1]!]);
  return out;
}

/** Where the aircraft is after flying `flown` meters along the pattern, and its heading. */
export function along(pattern: Pattern, flown: number): { position: LatLng; heading: number } {
  const all = legs(pattern);
  const total = all.reduce((sum, [a, b]) => sum + distance(a, b), 0);
  let rest = total > 0 ? flown % total : 0;
  for (const [a, b] of all) {
    const length = distance(a, b);
    if (rest <= length && length > 0) {
      const heading = bearing(a, b);
      return { position: offset(a, rest, heading), heading };
    }
    rest -= length;
  }
  return { position: all[0]![0], heading: 0 };
}

export interface SimulatorOptions {
  pattern: Pattern;
  /** Ground speed, m/s. */
  speed: number;
  /** Height above ground to hold, m. */
  height: number;
  /** Ground elevation (EGM96 m) below a position, null where unknown (flown as sea level). */
  ground: (position: LatLng) => number | null;
}

export interface Sample {
  position: LatLng;
  heading: number;
  ground: number | null;
  altitudeMsl: number;
  records: OutgoingRecord[];
}

/** The state at `t` seconds after take-off, as the four records a real aircraft sends at once. */
export function sampleAt(options: SimulatorOptions, t: number, timestamp: number, dt: number): Sample {
  const here = along(options.pattern, options.speed * t);
  const ahead = along(options.pattern, options.speed * (t + dt));
  const ground = options.ground(here.position);
  const groundAhead = options.ground(ahead.position);
  const altitudeMsl = (ground ?? 0) + options.height;
  const climb = dt > 0 ? ((groundAhead ?? 0) + options.height - altitudeMsl) / dt : 0;
  // Turn rate from the change of heading over ±TURN_WINDOW_S (patterns are polygons: a shorter
  // window would see straight legs and sudden corners); a coordinated turn banks by atan(v·ω/g).
  const before = along(options.pattern, options.speed * Math.max(0, t - TURN_WINDOW_S));
  const after = along(options.pattern, options.speed * (t + TURN_WINDOW_S));
  let turn = after.heading - before.heading;
  if (turn > 180) turn -= 360;
  if (turn < -180) turn += 360;
  const span = t + TURN_WINDOW_S - Math.max(0, t - TURN_WINDOW_S);
  const omega = (turn * Math.PI) / 180 / span;
  const roll = (Math.atan((options.speed * omega) / G) * 180) / Math.PI;
  const radians = (here.heading * Math.PI) / 180;
  const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;
  const [latitude, longitude] = here.position;
  return {
    position: here.position,
    heading: here.heading,
    ground,
    altitudeMsl,
    records: [
      {
        type: "position",
        fields: {
          timestamp,
          latitude: round(latitude, 7),
          longitude: round(longitude, 7),
          altitude_agl: options.height,
          altitude_msl: round(altitudeMsl, 2),
          horizontal_accuracy: 1.5,
        },
      },
      {
        type: "speed",
        fields: {
          timestamp,
          velocity_x: round(options.speed * Math.cos(radians), 3),
          velocity_y: round(options.speed * Math.sin(radians), 3),
          velocity_z: round(-climb, 3),
        },
      },
      {
        type: "attitude",
        fields: {
          timestamp,
          yaw: round(here.heading % 360, 2),
          pitch: round(PITCH_PER_MPS * options.speed, 2),
          roll: round(Math.max(-60, Math.min(60, roll)), 2),
        },
      },
      { type: "barometer", fields: { timestamp, pressure: round(pressureAt(altitudeMsl), 2) } },
    ],
  };
}
