import type { GridCellKey } from "../../worker/domain/airspace/facilityGrid";
import { representativePoint } from "../../worker/domain/airspace/geometry";
import { heightAboveGround } from "../../worker/domain/airspace/heights";
import { type Jurisdiction, placeOf } from "../../worker/domain/airspace/jurisdictions";
import { expandBox, indexCells } from "../../worker/domain/airspace/spatialGrid";
import { type BBox, bboxOf, type Geometry, roundCoordinate } from "../../worker/domain/geojson";
import { inline, type Statement } from "../lib/sql";
import type { Target } from "../lib/target";
import type { JurisdictionRecord } from "./boundaries";

/** What every importer produces: airspace features and facility maps, ready to load as one dataset. */

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

export interface Dataset {
  name: string;
  format: string;
  version: string;
  features: AirspaceRecord[];
  facilityMaps: FacilityMapRecord[];
}

export type Log = (message: string) => void;

/** D1 refuses statements over 100 KB; multi-row inserts stay under this. */
const MAX_STATEMENT_CHARS = 90_000;
/** Rows per INSERT: D1's SQLite runs out of memory parsing a few thousand VALUES rows. */
const MAX_ROWS = 1_000;
/** SQL per round trip to the target: local D1 runs out of memory on much bigger batches. */
const MAX_CALL_CHARS = 1_000_000;

/** Multi-row INSERTs with inlined values, each under D1's statement size limit. */
export function insertStatements(head: string, rows: unknown[][]): Statement[] {
  const statements: Statement[] = [];
  let values: string[] = [];
  let length = head.length;
  for (const row of rows) {
    const placeholders = `(${row.map(() => "?").join(",")})`;
    const tuple = inline({ sql: placeholders, params: row });
    if (head.length + tuple.length > MAX_STATEMENT_CHARS) {
      // A row too big to inline (a long coastline) goes alone, its values bound.
      statements.push({ sql: `${head} VALUES ${placeholders}`, params: row });
      continue;
    }
    if (values.length > 0 && (length + tuple.length + 1 > MAX_STATEMENT_CHARS || values.length >= MAX_ROWS)) {
      statements.push({ sql: `${head} VALUES ${values.join(",")}` });
      values = [];
      length = head.length;
    }
    values.push(tuple);
    length += tuple.length + 1;
  }
  if (values.length > 0) statements.push({ sql: `${head} VALUES ${values.join(",")}` });
  return statements;
}

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
    const radiusM = record.radiusM ?? 0;
    // The box of where the feature reaches: a point's box grows by its radius, so searches find it.
    const box = expandBox(bboxOf(record.geometry), radiusM);
    const [longitude, latitude] = representativePoint(record.geometry);
    featureRows.push([
      id,
      `${dataset.name}:${record.sourceId}`,
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
      // DATA.md: every record says where it came from; generated ones say `synthetic`.
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
      dataset.name,
    ]);
    for (const cell of indexCells(box)) cellRows.push([cell.level, cell.x, cell.y, id]);
    id += 1;
  }
  const statements = [
    ...insertStatements(
      `INSERT INTO airspace_features (id, external_id, type, name, geometry, min_lat, min_lng, max_lat, max_lng,
        latitude, longitude, radius_m, properties, floor_m, ceiling_m, floor_code, ceiling_code, floor_agl_m,
        ceiling_agl_m, effective_start,
        effective_end, last_updated, city, state, country, source, dataset)`,
      featureRows,
    ),
    ...insertStatements("INSERT INTO airspace_feature_cells (level, x, y, feature_id)", cellRows),
  ];
  await executeInGroups(target, statements, log, `${dataset.features.length} features`);
  await loadFacilityMaps(target, dataset, log);
  await recordDataset(target, {
    name: dataset.name,
    format: dataset.format,
    version: dataset.version,
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
  entry: { name: string; format: string; version: string; records: number },
): Promise<void> {
  await target.execute([
    {
      sql: `INSERT INTO airspace_datasets (name, format, version, records, loaded_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET format = excluded.format, version = excluded.version,
            records = excluded.records, loaded_at = excluded.loaded_at`,
      params: [entry.name, entry.format, entry.version, entry.records, Date.now()],
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
