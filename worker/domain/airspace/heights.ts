/**
 * Which records a flight's heights meet. Records keep their floor and ceiling as published (SFC,
 * MSL, AGL); each is also stored as a height above the ground where it lies, so a read leaves out a
 * Class B shelf whose floor is above the flight: a flight under a shelf is not in it.
 */

/** The heights a flight uses, meters above the ground. */
export interface HeightBand {
  lowerM: number;
  upperM: number;
}

/** Where drones may fly at all (400 ft): the band of an answer that names no flight height. */
export const DRONE_HEIGHT_BAND: HeightBand = { lowerM: 0, upperM: 121.92 };

/**
 * A vertical limit as a height above the ground: AGL (and SFC, stored as 0 AGL) as it is; MSL less
 * the ground's elevation. Null when it cannot be known (no limit, or MSL with no ground elevation).
 */
export function heightAboveGround(
  limitM: number | null | undefined,
  code: string | null | undefined,
  groundElevationM: number | null | undefined,
): number | null {
  if (limitM === null || limitM === undefined) return null;
  if (code === "MSL") {
    if (groundElevationM === null || groundElevationM === undefined) return null;
    return Math.round((limitM - groundElevationM) * 100) / 100;
  }
  return limitM;
}

/** A plan's band: from its lowest to its highest height above the ground. */
export function flightBand(plan: { maxAltitudeAgl: number; minAltitudeAgl?: number }): HeightBand {
  return { lowerM: Math.min(plan.minAltitudeAgl ?? 0, plan.maxAltitudeAgl), upperM: plan.maxAltitudeAgl };
}
