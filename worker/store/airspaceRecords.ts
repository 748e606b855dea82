import { inArray } from "drizzle-orm";
import { airspaceDatasets, airspaceFeatures } from "../../schema";
import type { AirspaceFeature, FacilityCell } from "../domain/airspace/advisories";
import { defaultSelection, type Ruleset } from "../domain/airspace/rules";
import { expandBox } from "../domain/airspace/spatialGrid";
import { type BBox, bboxOf, type Polygon } from "../domain/geojson";
import type { Db } from "../env";
import { advisoryInputs, featureColumns, rulesetsFor } from "./airspace";

/**
 * Reads for airspace records, area status and plan advisories. Everything spatial goes through the
 * advisory queries of store/airspace.ts, so records, status and advisories come from one query.
 */

/** Airspace features by their external ids (`ourairports:KPHX`), in no particular order. */
export async function featuresByIds(db: Db, ids: string[]): Promise<AirspaceFeature[]> {
  if (ids.length === 0) return [];
  return db.select(featureColumns).from(airspaceFeatures).where(inArray(airspaceFeatures.externalId, ids));
}

/** The features whose reach meets `box` and that are in effect during the window (every type). */
export async function featuresIn(
  db: Db,
  box: BBox,
  window: { start: number; end: number },
): Promise<AirspaceFeature[]> {
  return (await advisoryInputs(db, box, [], window)).features;
}

/**
 * What advisories over an area need: the rulesets (the given ids, or else the default selection of
 * every jurisdiction the area meets), the features within `buffer` of it and the facility-map cells.
 */
export async function areaAdvisoryInputs(
  db: Db,
  area: Polygon,
  buffer: number,
  rulesetIds: string[],
  window: { start: number; end: number },
): Promise<{ rulesets: Ruleset[]; features: AirspaceFeature[]; cells: FacilityCell[] }> {
  const ids =
    rulesetIds.length > 0 ? rulesetIds : defaultSelection(await rulesetsFor(db, area)).map((r) => r.id);
  return advisoryInputs(db, expandBox(bboxOf(area), buffer), ids, window);
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
