import type { Geometry, Position } from "../geojson";
import { containsPoint } from "./geometry";

export type Region = "federal" | "state" | "county" | "city" | "local";

export interface Jurisdiction {
  id: number;
  name: string;
  region: Region;
  /** ISO 3166-1 alpha-3. */
  country: string;
  geometry: Geometry;
}

/** Where a point is, as flights and advisories carry it: `{city, state, country}`. */
export interface Place {
  city: string | null;
  state: string | null;
  country: string | null;
}

/** The place of a point among candidate jurisdictions (those whose boxes hold it). */
export function placeOf(point: Position, candidates: Jurisdiction[]): Place {
  const containing = candidates.filter(
    (j) =>
      (j.geometry.type === "Polygon" || j.geometry.type === "MultiPolygon") &&
      containsPoint(j.geometry, point),
  );
  const named = (region: Region) => containing.find((j) => j.region === region)?.name ?? null;
  return {
    city: named("city"),
    state: named("state"),
    country: containing[0]?.country ?? null,
  };
}
