import { isoTime } from "../lib/time";
import { distanceFromPoint } from "./airspace/geometry";
import type { Polygon, Position } from "./geojson";
import type { Problem } from "./problem";

/**
 * Checks that catch real mistakes in plans and flights, beyond what each field's range allows: an
 * area whose positions are [latitude, longitude], times a year or more ahead (a mistyped year).
 */

/**
 * How far outside its area a take-off point may lie before the briefing mentions it. A pilot keeps
 * the aircraft in sight (Part 107 visual line of sight: a few hundred metres to 2 km in practice),
 * so 5 km leaves room for a launch from a road or a boat beside a large area. A farther point is
 * accepted (CONTRACT §4: legacy apps send the device's own position, 582 km away in the C++ SDK's
 * test data) and reported in the briefing's validations.
 */
export const MAX_TAKEOFF_DISTANCE_M = 5_000;
/** Plans and flights reach at most a year ahead. */
export const MAX_LEAD_TIME_MS = 365 * 24 * 60 * 60 * 1000;

/**
 * A take-off point far from an area that, read as [latitude, longitude], lies around it: the
 * positions were written the wrong way round (400). Any other distance is accepted.
 */
export function takeoffProblem(takeoff: Position, area: Polygon): Problem | null {
  const distance = distanceFromPoint(area, takeoff);
  if (distance <= MAX_TAKEOFF_DISTANCE_M) return null;
  const swappedArea = swapped(area);
  if (swappedArea && distanceFromPoint(swappedArea, takeoff) <= MAX_TAKEOFF_DISTANCE_M) {
    return {
      field: "geometry",
      message: `positions look like [latitude, longitude]: as sent, the area lies ${kilometres(distance)} km from the take-off point. GeoJSON positions are [longitude, latitude]`,
    };
  }
  return null;
}

/** How far the take-off point lies outside the area (0 inside it), in meters. */
export function takeoffDistance(takeoff: Position, area: Polygon): number {
  return distanceFromPoint(area, takeoff);
}

/** A start or end time at most MAX_LEAD_TIME_MS ahead of `now`; otherwise a problem naming `field`. */
export function leadTimeProblem(field: string, time: number, now: number): Problem | null {
  if (time - now <= MAX_LEAD_TIME_MS) return null;
  return {
    field,
    message: `${isoTime(time)} is more than a year ahead; plans and flights reach at most a year ahead (check the year)`,
  };
}

/** The area read the other way round, [latitude, longitude]; null when that is no place on Earth. */
function swapped(area: Polygon): Polygon | null {
  const rings = area.coordinates.map((ring) => ring.map(([lng, lat]) => [lat, lng] as Position));
  if (rings.some((ring) => ring.some(([, lat]) => Math.abs(lat) > 90))) return null;
  return { type: "Polygon", coordinates: rings };
}

export const kilometres = (meters: number) =>
  (meters / 1000).toLocaleString("en-US", { maximumFractionDigits: 1 });
