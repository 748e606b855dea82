import { inArray } from "drizzle-orm";
import { airspaceDatasets, airspaceFeatures } from "../../schema";
import type { AirspaceFeature } from "../domain/airspace/advisories";
import type { Db } from "../env";
import { featureColumns } from "./airspace";

/**
 * Reads for airspace records and the system status. Spatial reads are store/airspace.ts's
 * `featuresAround`, so records, status and advisories come from one query.
 */

/** Airspace features by their external ids (`ourairports:KPHX`), in no particular order. */
export async function featuresByIds(db: Db, ids: string[]): Promise<AirspaceFeature[]> {
  if (ids.length === 0) return [];
  return db.select(featureColumns).from(airspaceFeatures).where(inArray(airspaceFeatures.externalId, ids));
}

/** The airspace datasets loaded (the seed and each import), for the system status. */
export async function loadedDatasets(db: Db): Promise<{ name: string; records: number; loadedAt: number }[]> {
  return db
    .select({
      name: airspaceDatasets.name,
      records: airspaceDatasets.records,
      loadedAt: airspaceDatasets.loadedAt,
    })
    .from(airspaceDatasets)
    .orderBy(airspaceDatasets.name);
}
