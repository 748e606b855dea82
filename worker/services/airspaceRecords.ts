import type { QueryGeometry } from "../domain/airspace/queryGeometry";
import { searchBox } from "../domain/airspace/queryGeometry";
import {
  type AirspaceRecord,
  airspaceRecord,
  type RecordSearch,
  searchRecords,
} from "../domain/airspace/records";
import type { Db } from "../env";
import { notFound } from "../lib/errors";
import { featuresAround } from "../store/airspace";
import { featuresByIds } from "../store/airspaceRecords";

/** Airspace records as the SDKs read them (`/airspace/v2`): a search around a geometry, or by id. */

/** The records that reach a geometry (their notice radius included), nearest first, a page of them. */
export async function searchAirspace(
  db: Db,
  query: QueryGeometry,
  window: { start: number; end: number },
  search: Omit<RecordSearch, "area">,
): Promise<AirspaceRecord[]> {
  const features = await featuresAround(db, searchBox(query, search.buffer), window);
  return searchRecords(features, { ...search, area: query.area });
}

/** The records of the ids asked for, in their order; ids without a record are left out. */
export async function airspaceRecordsByIds(db: Db, ids: string[]): Promise<AirspaceRecord[]> {
  const byId = new Map((await featuresByIds(db, ids)).map((f) => [f.externalId, f]));
  return ids.flatMap((id) => {
    const feature = byId.get(id);
    return feature ? [airspaceRecord(feature)] : [];
  });
}

/** One record; 404 when no airspace has that id. */
export async function airspaceRecordById(db: Db, id: string): Promise<AirspaceRecord> {
  const [feature] = await featuresByIds(db, [id]);
  if (!feature) throw notFound("Airspace");
  return airspaceRecord(feature);
}
