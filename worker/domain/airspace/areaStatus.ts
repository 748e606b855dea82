import type { Polygon } from "../geojson";
import { type AirspaceFeature, type AreaAdvisory, adviseArea, type FacilityCell } from "./advisories";
import type { Color } from "./colors";
import type { Ruleset } from "./rules";

/** Status over an area (`/status/v2/polygon`, `/status/v2/path`), from the Advisory API's own logic. */

export interface AreaStatusQuery {
  /** The polygon, or the path or point as a thin area (see queryGeometry.ts). */
  area: Polygon;
  buffer: number;
  features: AirspaceFeature[];
  cells: FacilityCell[];
  /** The rulesets that color the advisories: the default selection where the area is. */
  rulesets: Ruleset[];
}

/**
 * The status of a polygon or path: the advisories of the area under the default rulesets, reaching out
 * `buffer` meters beyond it; `max_safe_distance` is the distance to the nearest one (the buffer when
 * there is none), as for a point. Controlled airspace comes whole, with the LAANC properties of the
 * facility-map cells under the area (the lowest ceiling governs), as the Advisory API gives it.
 */
export function areaStatus(query: AreaStatusQuery): {
  max_safe_distance: number;
  advisory_color: Color;
  advisories: AreaAdvisory[];
} {
  // Growing each record's reach by the buffer keeps distances measured to the area itself.
  const reaching = query.features.map((f) => ({ ...f, radiusM: f.radiusM + query.buffer }));
  const { color, advisories } = adviseArea({
    area: query.area,
    features: reaching,
    cells: query.cells,
    rulesets: query.rulesets,
    withExtents: false,
  });
  const nearest = advisories.length > 0 ? Math.min(...advisories.map((a) => a.distance)) : query.buffer;
  return { max_safe_distance: nearest, advisory_color: color, advisories };
}
