/**
 * Distances, bearings and the closest point of approach between two aircraft, pure. Over the ranges
 * traffic cares about (10 statute miles) a local flat plane around our aircraft is within a few
 * metres of the great circle, and it makes the closest point of approach a closed formula.
 */

const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

/** A position and its motion: degrees, metres (MSL), metres a second, degrees from true north. */
export interface Kinematics {
  latitude: number;
  longitude: number;
  altitudeM: number;
  groundSpeedMs: number;
  headingDeg: number;
  /** When the position was measured, ms since the epoch. */
  recordedAt: number;
}

/** Great-circle distance in metres (haversine). */
export function distanceM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Initial bearing from the first point to the second, degrees from true north in [0, 360). */
export function bearingDeg(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const φ1 = lat1 * RAD;
  const φ2 = lat2 * RAD;
  const dλ = (lon2 - lon1) * RAD;
  const y = Math.sin(dλ) * Math.cos(φ2);
  const x = Math.cos(φ1) * Math.sin(φ2) - Math.sin(φ1) * Math.cos(φ2) * Math.cos(dλ);
  return normalizeDeg(Math.atan2(y, x) / RAD);
}

export function normalizeDeg(degrees: number): number {
  const d = degrees % 360;
  return d < 0 ? d + 360 : d === 360 ? 0 : d;
}

/** Velocity east and north (m/s) of a speed over ground and a heading. */
export function velocityEN(groundSpeedMs: number, headingDeg: number): [number, number] {
  return [groundSpeedMs * Math.sin(headingDeg * RAD), groundSpeedMs * Math.cos(headingDeg * RAD)];
}

/** Speed over ground and heading of a North-East velocity (the telemetry's NED frame). */
export function speedAndHeading(
  northMs: number,
  eastMs: number,
): { groundSpeedMs: number; headingDeg: number } {
  return {
    groundSpeedMs: Math.hypot(northMs, eastMs),
    headingDeg: normalizeDeg(Math.atan2(eastMs, northMs) / RAD),
  };
}

/** Where an aircraft is `atMs`, dead-reckoned from its last position along its heading. */
export function extrapolate(k: Kinematics, atMs: number): Kinematics {
  const seconds = (atMs - k.recordedAt) / 1000;
  if (seconds === 0 || k.groundSpeedMs === 0) return { ...k, recordedAt: atMs };
  const [east, north] = velocityEN(k.groundSpeedMs, k.headingDeg);
  return {
    ...k,
    latitude: k.latitude + (north * seconds) / EARTH_RADIUS_M / RAD,
    longitude: k.longitude + (east * seconds) / (EARTH_RADIUS_M * Math.cos(k.latitude * RAD)) / RAD,
    recordedAt: atMs,
  };
}

export interface Approach {
  /** Horizontal distance now, metres. */
  rangeM: number;
  /** Seconds from now to the closest point of approach (0 when the two are moving apart or still). */
  timeS: number;
  /** Horizontal distance at the closest point of approach within the horizon, metres. */
  distanceM: number;
  /** Vertical separation at that moment, metres (positive: the other is above). */
  verticalM: number;
}

/**
 * The closest point of approach of `other` to `own` within the next `horizonS` seconds, both flying
 * straight at constant speed from where they are at `nowMs` (each dead-reckoned from its last report).
 */
export function closestApproach(
  own: Kinematics,
  other: Kinematics,
  nowMs: number,
  horizonS: number,
): Approach {
  // Both dead-reckoned to now, inline: this runs for every pair of tracks near each other.
  // velocityEN's components, without its arrays: a pair costs no garbage.
  const ax = own.groundSpeedMs * Math.sin(own.headingDeg * RAD);
  const ay = own.groundSpeedMs * Math.cos(own.headingDeg * RAD);
  const bx = other.groundSpeedMs * Math.sin(other.headingDeg * RAD);
  const by = other.groundSpeedMs * Math.cos(other.headingDeg * RAD);
  const aSeconds = (nowMs - own.recordedAt) / 1000;
  const bSeconds = (nowMs - other.recordedAt) / 1000;
  const aLatitude = own.latitude + (ay * aSeconds) / EARTH_RADIUS_M / RAD;
  const cosLat = Math.cos(aLatitude * RAD);
  const metresPerDegree = RAD * EARTH_RADIUS_M;
  // The other's position relative to ours on the local plane, metres east and north.
  const rx =
    (other.longitude - own.longitude) * metresPerDegree * cosLat +
    bx * bSeconds * (cosLat / Math.cos(other.latitude * RAD)) -
    ax * aSeconds * (cosLat / Math.cos(own.latitude * RAD));
  const ry = (other.latitude - own.latitude) * metresPerDegree + by * bSeconds - ay * aSeconds;
  const vx = bx - ax;
  const vy = by - ay;
  const speed2 = vx * vx + vy * vy;
  const t = speed2 === 0 ? 0 : Math.min(horizonS, Math.max(0, -(rx * vx + ry * vy) / speed2));
  return {
    rangeM: Math.hypot(rx, ry),
    timeS: t,
    distanceM: Math.hypot(rx + vx * t, ry + vy * t),
    verticalM: other.altitudeM - own.altitudeM,
  };
}
