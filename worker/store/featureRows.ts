import type { AirspaceRecord } from "../domain/airspace/formats/records";
import { representativePoint } from "../domain/airspace/geometry";
import { heightAboveGround } from "../domain/airspace/heights";
import { expandBox } from "../domain/airspace/spatialGrid";
import { type BBox, bboxOf, roundCoordinate } from "../domain/geojson";

/**
 * The columns of an airspace feature row, in order, wherever one is written: a dataset's load
 * (tools/airspace/dataset.ts) and a feed's staging (store/airspaceFeeds.ts), which swaps them into
 * airspace_features as they are.
 */
export const FEATURE_COLUMNS = `external_id, type, name, geometry, min_lat, min_lng, max_lat, max_lng, latitude,
  longitude, radius_m, properties, floor_m, ceiling_m, floor_code, ceiling_code, floor_agl_m, ceiling_agl_m,
  effective_start, effective_end, last_updated, city, state, country, source`;

/** A record's values for FEATURE_COLUMNS, and the box the spatial index lists it under. */
export function featureRow(record: AirspaceRecord, externalId: string): { values: unknown[]; box: BBox } {
  const radiusM = record.radiusM ?? 0;
  // The box of where the feature reaches: a point's box grows by its radius, so searches find it.
  const box = expandBox(bboxOf(record.geometry), radiusM);
  const [longitude, latitude] = representativePoint(record.geometry);
  const values = [
    externalId,
    record.type,
    record.name,
    JSON.stringify(record.geometry),
    box.minLat,
    box.minLng,
    box.maxLat,
    box.maxLng,
    roundCoordinate(latitude),
    roundCoordinate(longitude),
    radiusM,
    // Every record says where it came from; generated ones say `synthetic`.
    JSON.stringify({ ...record.properties, source: record.source }),
    record.floorM ?? null,
    record.ceilingM ?? null,
    record.floorCode ?? null,
    record.ceilingCode ?? null,
    heightAboveGround(record.floorM, record.floorCode, record.groundElevationM),
    heightAboveGround(record.ceilingM, record.ceilingCode, record.groundElevationM),
    record.effectiveStart ?? null,
    record.effectiveEnd ?? null,
    record.lastUpdated ?? null,
    record.city ?? null,
    record.state ?? null,
    record.country ?? null,
    record.source,
  ];
  return { values, box };
}
