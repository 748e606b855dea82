import { flightArea, geometryProblem } from "../flightArea";
import { type BBox, bboxOf, type Geometry, type Polygon } from "../geojson";
import { type Checked, checked, problem } from "../problem";
import { distanceToArea } from "./geometry";
import { areaSizeProblem } from "./inputs";
import { expandBox } from "./spatialGrid";

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
 * A query geometry (a GeoJSON object of an allowed type), checked like flight geometries (problems
 * name `geometry`; too many positions is `tooLarge`) and at most a degree across.
 */
export function checkQueryGeometry(
  value: unknown,
  allowed: readonly QueryGeometryType[],
): Checked<QueryGeometry> {
  const type = (value as { type?: unknown } | null)?.type;
  if (typeof type !== "string" || !(allowed as readonly string[]).includes(type))
    return problem("geometry", `must be a GeoJSON ${allowed.join(" or ")}`);
  // Lines and points are measured to as they are: any buffer is the query's, not the shape's.
  const invalid = geometryProblem(value, SHAPE_HALF_WIDTH_M);
  if (invalid) return { ok: false, problems: [invalid] };
  const geometry = value as Polygon | Geometry;
  const area = flightArea(geometry as Parameters<typeof flightArea>[0], SHAPE_HALF_WIDTH_M);
  const tooWide = areaSizeProblem(area);
  return tooWide ? { ok: false, problems: [tooWide] } : checked({ geometry, area });
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
