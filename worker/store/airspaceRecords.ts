import { and, gte, inArray, isNull, or } from "drizzle-orm";
import { airspaceFeatures } from "../../schema";
import type { AirspaceFeature } from "../domain/airspace/advisories";
import type { Db } from "../env";
import { featureColumns } from "./airspace";

/**
 * Reads for airspace records by id. Spatial reads are store/airspace.ts's `featuresAround`, so
 * records, status and advisories come from one query.
 */

/**
 * Airspace features by their external ids (`ourairports:KPHX`), in no particular order. A TFR past
 * its end is gone even before the feed sync removes it.
 */
export async function featuresByIds(db: Db, ids: string[], now = Date.now()): Promise<AirspaceFeature[]> {
  if (ids.length === 0) return [];
  return db
    .select(featureColumns)
    .from(airspaceFeatures)
    .where(
      and(
        inArray(airspaceFeatures.externalId, ids),
        or(isNull(airspaceFeatures.effectiveEnd), gte(airspaceFeatures.effectiveEnd, now)),
      ),
    );
}
