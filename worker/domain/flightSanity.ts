import { isoTime } from "../lib/time";
import { distanceFromPoint } from "./airspace/geometry";
import type { Polygon, Position } from "./geojson";
import type { Problem } from "./problem";

/**
 * Checks that catch real mistakes in plans and flights, beyond what each field's range allows: a
 * take-off point far from its area, an area swapped to the other side of the Earth, times a year
 * or more ahead (a mistyped year).
 */

/**
 * How far outside its area a take-off point may lie. A pilot keeps the aircraft in sight (Part 107
 * visual line of sight: a few hundred metres to 2 km in practice), so 5 km leaves room for a launch
 * from a road or a boat beside a large area, while a mistyped degree lands 50 km or more away.
 */
export const MAX_TAKEOFF_DISTANCE_M = 5_000;
/** Beyond a quarter of the Earth's circumference the area is on the other side of the Earth. */
const OTHER_SIDE_M = 10_000_000;
/** Plans and flights reach at most a year ahead. */
export const MAX_LEAD_TIME_MS = 365 * 24 * 60 * 60 * 1000;

/** The request's names for the take-off point: `latitude` for flights, `takeoff_latitude` for plans. */
export interface TakeoffFields {
  latitude: string;
  longitude: string;
}

/** A take-off point within MAX_TAKEOFF_DISTANCE_M of its area; otherwise what looks wrong and where. */
export function takeoffProblem(takeoff: Position, area: Polygon, fields: TakeoffFields): Problem | null {
  const distance = distanceFromPoint(area, takeoff);
  if (distance <= MAX_TAKEOFF_DISTANCE_M) return null;
  const km = kilometres(distance);
  // Swapping the take-off point instead would meet the area as well; the GeoJSON order is the usual slip.
  const swappedArea = swapped(area);
  if (swappedArea && distanceFromPoint(swappedArea, takeoff) <= MAX_TAKEOFF_DISTANCE_M) {
    return {
      field: "geometry",
      message: `positions look like [latitude, longitude]: as sent, the area lies ${km} km from the take-off point. GeoJSON positions are [longitude, latitude]`,
    };
  }
  if (distance > OTHER_SIDE_M) {
    return {
      field: "geometry",
      message: `the area lies on the other side of the Earth from the take-off point (${km} km away); check the geometry's positions and ${fields.latitude}, ${fields.longitude}`,
    };
  }
  return {
    field: fields.latitude,
    message: `the take-off point lies ${km} km outside the flight area; it must be within ${MAX_TAKEOFF_DISTANCE_M / 1000} km of it`,
  };
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

const kilometres = (meters: number) => (meters / 1000).toLocaleString("en-US", { maximumFractionDigits: 1 });
