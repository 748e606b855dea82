import booleanIntersects from "@turf/boolean-intersects";
import type * as GeoJSON from "geojson";
import type { Geometry, Point, Polygon, Position } from "../geojson";
import { polygonsMeet } from "../geometry/polygonsMeet";
import { containsPoint, pointDistance } from "./geometry";

export type Region = "federal" | "state" | "county" | "city" | "local";

export interface Jurisdiction {
  id: number;
  name: string;
  region: Region;
  /** ISO 3166-1 alpha-3. */
  country: string;
  parentId: number | null;
  /** Null where the store left it out: a parent holds whatever one of its children holds. */
  geometry: Geometry | null;
}

/** Where a point is, as flights and advisories carry it: `{city, state, country}`. */
export interface Place {
  city: string | null;
  state: string | null;
  country: string | null;
}

/**
 * The candidates that hold something (a point, an area): those whose geometry passes `holds`, and
 * their ancestors among the candidates. Testing the children spares testing a country's coastline.
 */
export function holdingJurisdictions(
  candidates: Jurisdiction[],
  holds: (geometry: Geometry) => boolean,
): Jurisdiction[] {
  const byId = new Map(candidates.map((j) => [j.id, j]));
  const holding = new Map<number, Jurisdiction>();
  for (const candidate of candidates) {
    if (!candidate.geometry || holding.has(candidate.id) || !holds(candidate.geometry)) continue;
    for (let j: Jurisdiction | undefined = candidate; j && !holding.has(j.id); j = byId.get(j.parentId ?? -1))
      holding.set(j.id, j);
  }
  return [...holding.values()];
}

/** The candidates (and their ancestors) that hold a point. */
export function jurisdictionsAt(point: Position, candidates: Jurisdiction[]): Jurisdiction[] {
  return holdingJurisdictions(
    candidates,
    (g) => (g.type === "Polygon" || g.type === "MultiPolygon") && containsPoint(g, point),
  );
}

/** The candidates (and their ancestors) that an area or a point meets. */
export function jurisdictionsMeeting(geometry: Polygon | Point, candidates: Jurisdiction[]): Jurisdiction[] {
  // polygonsMeet, not turf's n·m booleanIntersects: a plan area may have 10,000 positions.
  return holdingJurisdictions(candidates, (g) =>
    geometry.type === "Polygon" && (g.type === "Polygon" || g.type === "MultiPolygon")
      ? polygonsMeet(geometry, g)
      : booleanIntersects(geometry as GeoJSON.Geometry, g as GeoJSON.Geometry),
  );
}

/** The place of a point among candidate jurisdictions (those whose boxes hold it). */
export function placeOf(point: Position, candidates: Jurisdiction[]): Place {
  const holding = jurisdictionsAt(point, candidates);
  const named = (region: Region) => holding.find((j) => j.region === region)?.name ?? null;
  return {
    city: named("city"),
    state: named("state"),
    country: holding.find((j) => j.region === "federal")?.country ?? holding[0]?.country ?? null,
  };
}

/** How far from a point an airport's town still names the place, when no city boundary is loaded. */
export const TOWN_RADIUS_M = 5_000;

/** The town of the nearest airport or heliport within `TOWN_RADIUS_M` of a point; null when none. */
export function nearestTown(
  point: Position,
  airports: { city: string | null; latitude: number; longitude: number }[],
): string | null {
  const towns = airports
    .filter((a) => a.city)
    .map((a) => ({ city: a.city, distance: pointDistance(point, [a.longitude, a.latitude]) }))
    .filter((a) => a.distance <= TOWN_RADIUS_M)
    .sort((a, b) => a.distance - b.distance);
  return towns[0]?.city ?? null;
}
