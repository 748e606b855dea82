/**
 * Night as Part 107 defines it (14 CFR 1.1 and 107.29): from the end of evening civil twilight to
 * the start of morning civil twilight, i.e. while the sun's centre is more than 6° below the horizon.
 * The sun's position comes from the usual low-precision almanac formulas (about 0.01° in declination,
 * a few seconds of time near twilight), which is far finer than a flight window needs.
 */

const CIVIL_TWILIGHT_DEG = -6;
const DAY_MS = 86_400_000;
/** Sampling step over a window; the sun moves at most about 1.25° of elevation in 5 minutes. */
const STEP_MS = 5 * 60_000;
const MAX_SAMPLES = 2_000;

const rad = (deg: number) => (deg * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;

/** The sun's elevation above the horizon in degrees, at a time (epoch ms) and place. */
export function sunElevation(ms: number, latitude: number, longitude: number): number {
  const d = ms / DAY_MS + 2440587.5 - 2451545.0; // days since J2000.0
  const meanAnomaly = rad(357.529 + 0.98560028 * d);
  const meanLongitude = 280.459 + 0.98564736 * d;
  const eclipticLongitude = rad(
    meanLongitude + 1.915 * Math.sin(meanAnomaly) + 0.02 * Math.sin(2 * meanAnomaly),
  );
  const obliquity = rad(23.439 - 0.00000036 * d);
  const rightAscension = Math.atan2(
    Math.cos(obliquity) * Math.sin(eclipticLongitude),
    Math.cos(eclipticLongitude),
  );
  const declination = Math.asin(Math.sin(obliquity) * Math.sin(eclipticLongitude));
  const siderealDeg = (280.46061837 + 360.98564736629 * d + longitude) % 360;
  const hourAngle = rad(siderealDeg) - rightAscension;
  const lat = rad(latitude);
  return deg(
    Math.asin(
      Math.sin(lat) * Math.sin(declination) + Math.cos(lat) * Math.cos(declination) * Math.cos(hourAngle),
    ),
  );
}

/** Whether any moment of [start, end] (epoch ms) is night at the place. */
export function fliesAtNight(start: number, end: number, latitude: number, longitude: number): boolean {
  const step = Math.max(STEP_MS, (end - start) / MAX_SAMPLES);
  for (let t = start; t < end; t += step)
    if (sunElevation(t, latitude, longitude) < CIVIL_TWILIGHT_DEG) return true;
  return sunElevation(end, latitude, longitude) < CIVIL_TWILIGHT_DEG;
}
