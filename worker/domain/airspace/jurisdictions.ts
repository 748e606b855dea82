import type { Geometry, Position } from "../geojson";
import { containsPoint } from "./geometry";

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

/** The place of a point among candidate jurisdictions (those whose boxes hold it). */
export function placeOf(point: Position, candidates: Jurisdiction[]): Place {
  const holding = holdingJurisdictions(
    candidates,
    (g) => (g.type === "Polygon" || g.type === "MultiPolygon") && containsPoint(g, point),
  );
  const named = (region: Region) => holding.find((j) => j.region === region)?.name ?? null;
  return {
    city: named("city"),
    state: named("state"),
    country: holding.find((j) => j.region === "federal")?.country ?? holding[0]?.country ?? null,
  };
}
