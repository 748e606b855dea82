import { badRequest } from "../../lib/errors";
import { flightArea, geometryError, geometryProblem } from "../flightArea";
import { type BBox, bboxOf, type Geometry, type Polygon, unwrapGeometry } from "../geojson";
import { distanceToArea } from "./geometry";
import { areaSizeError } from "./inputs";
import { expandBox } from "./spatialGrid";
import { AIRSPACE_TYPES } from "./types";

/** The geometry of a status or airspace search query, and the area that distances are measured to. */

export type QueryGeometryType = "Polygon" | "LineString" | "Point";

export interface QueryGeometry {
  geometry: Geometry;
  /** The polygon itself, or a line or point as a 1 m wide area: distances to it are distances to the shape. */
  area: Polygon;
}

/** Half the width of the area standing in for a path or point: thin enough to measure to the shape. */
const SHAPE_HALF_WIDTH_M = 1;

/**
 * A query geometry from a GeoJSON object or its JSON text (query strings carry text, bodies either),
 * checked like flight geometries (400/413 naming `geometry`) and at most a degree across.
 */
export function queryGeometryFrom(input: unknown, allowed: readonly QueryGeometryType[]): QueryGeometry {
  let value = input;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      throw badRequest("geometry", "is not JSON; send a GeoJSON geometry (URL-encoded in a query)");
    }
  }
  value = unwrapGeometry(value);
  const type = (value as { type?: unknown } | null)?.type;
  if (typeof type !== "string" || !(allowed as readonly string[]).includes(type))
    throw badRequest("geometry", `must be a GeoJSON ${allowed.join(" or ")}`);
  // Lines and points are measured to as they are: any buffer is the query's, not the shape's.
  const problem = geometryProblem(value, SHAPE_HALF_WIDTH_M);
  if (problem) throw geometryError(problem);
  const geometry = value as Polygon | Geometry;
  const area = flightArea(geometry as Parameters<typeof flightArea>[0], SHAPE_HALF_WIDTH_M);
  const tooWide = areaSizeError(area);
  if (tooWide) throw tooWide;
  return { geometry, area };
}

/** The box to read records in: the area's box grown by the query's buffer (stored boxes carry radii). */
export function searchBox(query: QueryGeometry, buffer: number): BBox {
  return expandBox(bboxOf(query.area), buffer);
}

/**
 * Whether a record reaches the query: within `buffer` of the area plus the record's own notice radius
 * (an airport's 5 miles), the same reach the advisories use. The distance is 0 when they meet.
 */
export function reachOfRecord(
  record: { geometry: Geometry; radiusM: number },
  area: Polygon,
  buffer: number,
): { meets: boolean; distance: number } {
  const distance = distanceToArea(record.geometry, area);
  return { meets: distance <= record.radiusM + buffer, distance };
}

/** A list of airspace types, comma-separated or an array; unknown ones are named with the valid list. */
export function typeListFrom(input: string | string[] | undefined, name: string): string[] | undefined {
  if (input === undefined) return undefined;
  const parts = (Array.isArray(input) ? input : input.split(","))
    .map((t) => t.trim())
    .filter((t) => t !== "");
  if (parts.length === 0) return undefined;
  const unknown = parts.filter((t) => !AIRSPACE_TYPES.includes(t));
  if (unknown.length > 0)
    throw badRequest(name, `unknown type ${unknown.join(", ")}; valid: ${AIRSPACE_TYPES.join(", ")}`);
  return [...new Set(parts)];
}

/** The types a query asks for: `types` (default every type) less `ignored_types`; undefined is all. */
export function selectedTypes(
  types: string | string[] | undefined,
  ignored: string | string[] | undefined,
): string[] | undefined {
  const wanted = typeListFrom(types, "types");
  const left = typeListFrom(ignored, "ignored_types");
  if (!left) return wanted;
  return (wanted ?? AIRSPACE_TYPES).filter((t) => !left.includes(t));
}
