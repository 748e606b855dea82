import type { BBox } from "../domain/geojson";
import type { Ed269Zone } from "./ed269";

/** Reads and writes of the InterUSS tables (migration 0009): data sources and the qualifier's flight plans. */

export type DataSourceStatus =
  | "Activating"
  | "Ready"
  | "Deactivating"
  | "Deactivated"
  | "Unsupported"
  | "Rejected"
  | "Error";

export interface DataSource {
  id: string;
  url: string;
  status: DataSourceStatus;
  message: string | null;
  zones: Ed269Zone[];
}

interface DataSourceRow {
  id: string;
  url: string;
  status: DataSourceStatus;
  message: string | null;
  zones: string;
}

const toDataSource = (r: DataSourceRow): DataSource => ({ ...r, zones: JSON.parse(r.zones) as Ed269Zone[] });

export async function findDataSource(db: D1Database, id: string): Promise<DataSource | null> {
  const row = await db
    .prepare("SELECT id, url, status, message, zones FROM interuss_data_sources WHERE id = ?")
    .bind(id)
    .first<DataSourceRow>();
  return row ? toDataSource(row) : null;
}

/** Every data source loaded through the interface, without its zones (a list can be large). */
export async function listDataSources(db: D1Database): Promise<Omit<DataSource, "zones">[]> {
  const { results } = await db
    .prepare("SELECT id, url, status, message FROM interuss_data_sources ORDER BY updated_at, id")
    .all<Omit<DataSourceRow, "zones">>();
  return results;
}

export async function putDataSource(db: D1Database, source: DataSource, now: number): Promise<void> {
  await db
    .prepare(
      `INSERT INTO interuss_data_sources (id, url, status, message, zones, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET url = excluded.url, status = excluded.status, message = excluded.message,
       zones = excluded.zones, updated_at = excluded.updated_at`,
    )
    .bind(source.id, source.url, source.status, source.message, JSON.stringify(source.zones), now)
    .run();
}

export async function deleteDataSource(db: D1Database, id: string): Promise<boolean> {
  const result = await db.prepare("DELETE FROM interuss_data_sources WHERE id = ?").bind(id).run();
  return result.meta.changes > 0;
}

/** The zones of every Ready data source, each with its source id. */
export async function activeZones(db: D1Database): Promise<{ sourceId: string; zone: Ed269Zone }[]> {
  const { results } = await db
    .prepare("SELECT id, url, status, message, zones FROM interuss_data_sources WHERE status = 'Ready'")
    .all<DataSourceRow>();
  return results.flatMap((r) => toDataSource(r).zones.map((zone) => ({ sourceId: r.id, zone })));
}

export interface PlanLink {
  id: string;
  planId: string | null;
  flightId: string | null;
  status: string;
  requestId: string;
  response: Record<string, unknown>;
}

interface PlanLinkRow {
  id: string;
  plan_id: string | null;
  flight_id: string | null;
  status: string;
  request_id: string;
  response: string;
}

const toLink = (r: PlanLinkRow): PlanLink => ({
  id: r.id,
  planId: r.plan_id,
  flightId: r.flight_id,
  status: r.status,
  requestId: r.request_id,
  response: JSON.parse(r.response) as Record<string, unknown>,
});

export async function findPlanLink(db: D1Database, id: string): Promise<PlanLink | null> {
  const row = await db
    .prepare(
      "SELECT id, plan_id, flight_id, status, request_id, response FROM interuss_flight_plans WHERE id = ?",
    )
    .bind(id)
    .first<PlanLinkRow>();
  return row ? toLink(row) : null;
}

export async function putPlanLink(
  db: D1Database,
  link: PlanLink,
  extent: BBox & { start: number; end: number },
  now: number,
): Promise<void> {
  await db
    .prepare(
      `INSERT INTO interuss_flight_plans (id, plan_id, flight_id, status, request_id, response, min_lat, min_lng,
         max_lat, max_lng, start_time, end_time, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET plan_id = excluded.plan_id, flight_id = excluded.flight_id,
         status = excluded.status, request_id = excluded.request_id, response = excluded.response,
         min_lat = excluded.min_lat, min_lng = excluded.min_lng, max_lat = excluded.max_lat,
         max_lng = excluded.max_lng, start_time = excluded.start_time, end_time = excluded.end_time,
         updated_at = excluded.updated_at`,
    )
    .bind(
      link.id,
      link.planId,
      link.flightId,
      link.status,
      link.requestId,
      JSON.stringify(link.response),
      extent.minLat,
      extent.minLng,
      extent.maxLat,
      extent.maxLng,
      extent.start,
      extent.end,
      now,
    )
    .run();
}

export async function deletePlanLink(db: D1Database, id: string): Promise<void> {
  await db.prepare("DELETE FROM interuss_flight_plans WHERE id = ?").bind(id).run();
}

/** Plans whose box meets `box` and whose window meets [start, end] (open bounds as null). */
export async function planLinksIn(
  db: D1Database,
  box: BBox,
  start: number | null,
  end: number | null,
): Promise<PlanLink[]> {
  const { results } = await db
    .prepare(
      `SELECT id, plan_id, flight_id, status, request_id, response FROM interuss_flight_plans
       WHERE min_lat <= ? AND max_lat >= ? AND min_lng <= ? AND max_lng >= ? AND start_time <= ? AND end_time >= ?`,
    )
    .bind(box.maxLat, box.minLat, box.maxLng, box.minLng, end ?? Number.MAX_SAFE_INTEGER, start ?? 0)
    .all<PlanLinkRow>();
  return results.map(toLink);
}
