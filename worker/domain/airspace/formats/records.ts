import type { Geometry } from "../../geojson";
import type { GridCellKey } from "../facilityGrid";

/**
 * What every airspace reader produces, the importer's files and the FAA feeds alike: airspace
 * features and facility maps, ready to load as one dataset.
 */

export interface AirspaceRecord {
  /** Unique within the dataset; the advisory id is `<dataset>:<sourceId>`. */
  sourceId: string;
  type: string;
  name: string;
  geometry: Geometry;
  radiusM?: number;
  properties: Record<string, unknown>;
  floorM?: number | null;
  ceilingM?: number | null;
  floorCode?: string | null;
  ceilingCode?: string | null;
  /** The ground's elevation (m MSL) where the record lies, to measure MSL limits from; unknown when absent. */
  groundElevationM?: number | null;
  effectiveStart?: number | null;
  effectiveEnd?: number | null;
  lastUpdated?: number | null;
  city?: string | null;
  state?: string | null;
  country?: string | null;
  /** `synthetic` for generated records, else the source (`faa`, `ourairports`, …). */
  source: string;
}

export interface FacilityMapRecord {
  airportId: string;
  icao: string | null;
  name: string;
  laanc: boolean;
  lastEdit: number | null;
  source: string;
  cells: (GridCellKey & { ceilingFt: number })[];
}
