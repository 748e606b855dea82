import type { AirspaceRecord, FacilityMapRecord } from "../../worker/domain/airspace/formats/records";
import { representativePoint } from "../../worker/domain/airspace/geometry";
import { type Jurisdiction, placeOf } from "../../worker/domain/airspace/jurisdictions";
import { indexCells } from "../../worker/domain/airspace/spatialGrid";
import { type BBox, bboxOf, type Geometry } from "../../worker/domain/geojson";
import { FEATURE_COLUMNS, featureRow } from "../../worker/store/featureRows";
import { inline, insertStatements, type Statement } from "../../worker/store/statements";
import type { Target } from "../lib/target";
import type { JurisdictionRecord } from "./boundaries";

/** What every importer produces: airspace features and facility maps, ready to load as one dataset. */

export type { AirspaceRecord, FacilityMapRecord };
export { insertStatements };

export interface Dataset {
  name: string;
  format: string;
  version: string;
  /** Where the data came from (shown by GET /airspace/v2/sources); and when its cycle ends, if it has one. */
  origin?: string;
  validUntil?: number;
  features: AirspaceRecord[];
  facilityMaps: FacilityMapRecord[];
}

export type Log = (message: string) => void;

/** SQL per round trip to the target: local D1 runs out of memory on much bigger batches. */
const MAX_CALL_CHARS = 1_000_000;

/** Runs statements in round trips of at most ~1 MB of SQL, reporting progress as `label n/total`. */
async function executeInGroups(target: Target, statements: Statement[], log: Log, label: string) {
  let lastReport = Date.now();
  let group: Statement[] = [];
  let size = 0;
  let done = 0;
  const flush = async () => {
    await target.execute(group);
    done += group.length;
    group = [];
    size = 0;
    if (Date.now() - lastReport > 2000 || done === statements.length) {
      log(`${label}: ${done}/${statements.length} statements`);
      lastReport = Date.now();
    }
  };
  for (const statement of statements) {
    const length = statement.sql.length + JSON.stringify(statement.params ?? []).length;
    if (group.length > 0 && size + length > MAX_CALL_CHARS) await flush();
    group.push(statement);
    size += length;
  }
  if (group.length > 0) await flush();
}

/** Fills in city/state/country from the jurisdictions where the source did not give them. */
export function placeRecords(
  records: AirspaceRecord[],
  jurisdictions: (Jurisdiction & { geometry: Geometry })[],
): void {
  const boxes = jurisdictions.map((j) => ({ j, box: bboxOf(j.geometry) }));
  for (const record of records) {
    if (record.state && record.country) continue;
    const [lng, lat] = representativePoint(record.geometry);
    const candidates = boxes
      .filter(({ box }) => lat >= box.minLat && lat <= box.maxLat && lng >= box.minLng && lng <= box.maxLng)
      .map(({ j }) => j);
    const place = placeOf([lng, lat], candidates);
    record.state ??= place.state;
    record.country ??= place.country;
    record.city ??= place.city;
  }
}

/** Federal and state jurisdictions already loaded in the target, for placing imported records. */
export async function loadedJurisdictions(
  target: Target,
  box: BBox,
): Promise<(Jurisdiction & { geometry: Geometry })[]> {
  const rows = await target.query<{
    id: number;
    name: string;
    region: Jurisdiction["region"];
    country: string;
    parent_id: number | null;
    geometry: string;
  }>(
    `SELECT id, name, region, country, parent_id, geometry FROM jurisdictions
     WHERE region IN ('federal', 'state', 'city') AND min_lat <= ? AND max_lat >= ? AND min_lng <= ? AND max_lng >= ?`,
    [box.maxLat, box.minLat, box.maxLng, box.minLng],
  );
  return rows.map(({ parent_id, geometry, ...r }) => ({
    ...r,
    parentId: parent_id,
    geometry: JSON.parse(geometry),
  }));
}

export function datasetBox(dataset: Pick<Dataset, "features" | "facilityMaps">): BBox {
  const box = { minLat: 90, minLng: 180, maxLat: -90, maxLng: -180 };
  for (const record of dataset.features) {
    const b = bboxOf(record.geometry);
    box.minLat = Math.min(box.minLat, b.minLat);
    box.minLng = Math.min(box.minLng, b.minLng);
    box.maxLat = Math.max(box.maxLat, b.maxLat);
    box.maxLng = Math.max(box.maxLng, b.maxLng);
  }
  return box;
}

/**
 * Replaces everything an earlier load of the same dataset wrote, then inserts this one: loading a
 * file twice leaves one copy. Feature ids are assigned here so the index rows can name them.
 */
export async function loadDataset(target: Target, dataset: Dataset, log: Log): Promise<void> {
  await target.execute(deleteDatasetStatements(dataset.name));
  const [next] = await target.query<{ id: number }>(
    "SELECT COALESCE(MAX(id), 0) + 1 AS id FROM airspace_features",
  );
  let id = next?.id ?? 1;
  const featureRows: unknown[][] = [];
  const cellRows: unknown[][] = [];
  for (const record of dataset.features) {
    const { values, box } = featureRow(record, `${dataset.name}:${record.sourceId}`);
    featureRows.push([id, ...values, dataset.name]);
    for (const cell of indexCells(box)) cellRows.push([cell.level, cell.x, cell.y, id]);
    id += 1;
  }
  const statements = [
    ...insertStatements(`INSERT INTO airspace_features (id, ${FEATURE_COLUMNS}, dataset)`, featureRows),
    ...insertStatements("INSERT INTO airspace_feature_cells (level, x, y, feature_id)", cellRows),
  ];
  await executeInGroups(target, statements, log, `${dataset.features.length} features`);
  await loadFacilityMaps(target, dataset, log);
  await recordDataset(target, {
    name: dataset.name,
    format: dataset.format,
    version: dataset.version,
    origin: dataset.origin,
    validUntil: dataset.validUntil,
    records: dataset.features.length + dataset.facilityMaps.reduce((n, m) => n + m.cells.length, 0),
  });
}

/** The version of a loaded dataset (or of the embedded default's marker), if any. */
export async function loadedDatasetVersion(target: Target, name: string): Promise<string | undefined> {
  const [loaded] = await target.query<{ version: string }>(
    "SELECT version FROM airspace_datasets WHERE name = ?",
    [name],
  );
  return loaded?.version;
}

/** Notes what a dataset load wrote, replacing an earlier note of the same name. */
export async function recordDataset(
  target: Target,
  entry: {
    name: string;
    format: string;
    version: string;
    records: number;
    origin?: string;
    validUntil?: number;
  },
): Promise<void> {
  await target.execute([
    {
      sql: `INSERT INTO airspace_datasets (name, format, version, records, loaded_at, origin, valid_until)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET format = excluded.format, version = excluded.version,
            records = excluded.records, loaded_at = excluded.loaded_at, origin = excluded.origin,
            valid_until = excluded.valid_until`,
      params: [
        entry.name,
        entry.format,
        entry.version,
        entry.records,
        Date.now(),
        entry.origin ?? null,
        entry.validUntil ?? null,
      ],
    },
  ]);
}

/**
 * Facility maps and their cells. A cell claimed by two maps keeps the lower ceiling: the FAA draws
 * one value per cell, and where two airports' maps meet the stricter one governs.
 */
async function loadFacilityMaps(target: Target, dataset: Dataset, log: Log) {
  if (dataset.facilityMaps.length === 0) return;
  const [next] = await target.query<{ id: number }>(
    "SELECT COALESCE(MAX(id), 0) + 1 AS id FROM facility_maps",
  );
  let id = next?.id ?? 1;
  const mapRows: unknown[][] = [];
  const cellRows: unknown[][] = [];
  for (const map of dataset.facilityMaps) {
    mapRows.push([
      id,
      map.airportId,
      map.icao,
      map.name,
      map.laanc ? 1 : 0,
      map.lastEdit,
      map.source,
      dataset.name,
    ]);
    for (const cell of map.cells) cellRows.push([cell.row, cell.col, cell.ceilingFt, id]);
    id += 1;
  }
  const upsertCells = insertStatements(
    "INSERT INTO facility_map_cells (row, col, ceiling_ft, facility_map_id)",
    cellRows,
  ).map((s) => ({
    sql: `${s.sql} ON CONFLICT (row, col) DO UPDATE SET ceiling_ft = excluded.ceiling_ft,
            facility_map_id = excluded.facility_map_id WHERE excluded.ceiling_ft < facility_map_cells.ceiling_ft`,
  }));
  // An airport's map from an earlier load of another dataset is replaced by this one.
  const replaced = chunk(
    dataset.facilityMaps.map((m) => inline({ sql: "?", params: [m.airportId] })),
    500,
  ).flatMap((ids) => [
    {
      sql: `DELETE FROM facility_map_cells WHERE facility_map_id IN
              (SELECT id FROM facility_maps WHERE airport_id IN (${ids.join(",")}))`,
    },
    { sql: `DELETE FROM facility_maps WHERE airport_id IN (${ids.join(",")})` },
  ]);
  const statements = [
    ...replaced,
    ...insertStatements(
      "INSERT INTO facility_maps (id, airport_id, icao, name, laanc, last_edit, source, dataset)",
      mapRows,
    ),
    ...upsertCells,
  ];
  await executeInGroups(
    target,
    statements,
    log,
    `${dataset.facilityMaps.length} facility maps, ${cellRows.length} cells`,
  );
}

function deleteDatasetStatements(name: string): Statement[] {
  return [
    {
      sql: "DELETE FROM airspace_feature_cells WHERE feature_id IN (SELECT id FROM airspace_features WHERE dataset = ?)",
      params: [name],
    },
    { sql: "DELETE FROM airspace_features WHERE dataset = ?", params: [name] },
    {
      sql: "DELETE FROM facility_map_cells WHERE facility_map_id IN (SELECT id FROM facility_maps WHERE dataset = ?)",
      params: [name],
    },
    { sql: "DELETE FROM facility_maps WHERE dataset = ?", params: [name] },
    { sql: "DELETE FROM airspace_datasets WHERE name = ?", params: [name] },
  ];
}

/** Replaces every jurisdiction, and its index cells, with these. */
export async function loadJurisdictions(target: Target, jurisdictions: JurisdictionRecord[], log: Log) {
  const rows = jurisdictions.map((j) => {
    const box = bboxOf(j.geometry);
    return [
      j.id,
      j.name,
      j.region,
      j.country,
      j.code,
      j.parentId,
      JSON.stringify(j.geometry),
      box.minLat,
      box.minLng,
      box.maxLat,
      box.maxLng,
      j.source,
    ];
  });
  const cells = jurisdictions.flatMap((j) =>
    indexCells(bboxOf(j.geometry)).map((c) => [c.level, c.x, c.y, j.id]),
  );
  await target.execute([{ sql: "DELETE FROM jurisdiction_cells" }, { sql: "DELETE FROM jurisdictions" }]);
  await executeInGroups(
    target,
    [
      ...insertStatements(
        `INSERT INTO jurisdictions (id, name, region, country, code, parent_id, geometry, min_lat, min_lng, max_lat,
          max_lng, source)`,
        rows,
      ),
      ...insertStatements("INSERT INTO jurisdiction_cells (level, x, y, jurisdiction_id)", cells),
    ],
    log,
    `${jurisdictions.length} jurisdictions`,
  );
}

function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
