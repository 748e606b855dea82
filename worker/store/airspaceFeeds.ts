import type { DatasetNote, FeedState } from "../domain/airspace/feeds/freshness";
import type { AirspaceRecord, FacilityMapRecord } from "../domain/airspace/formats/records";
import { indexCells } from "../domain/airspace/spatialGrid";
import { FEATURE_COLUMNS, featureRow } from "./featureRows";
import { insertStatements, type Statement } from "./statements";

/**
 * The airspace feeds' tables: sync state, staged versions, and the one batch that swaps a staged
 * version in. Plain SQL statements rather than drizzle, because the same statements run on the
 * worker's D1 binding (the Cron Trigger) and through the operator commands' Target (airspace:sync,
 * local or `--remote`).
 */

/** Runs statements (one call is one D1 batch: one transaction) and reads. tools/lib/target.ts's Target is one. */
export interface SqlRunner {
  execute(statements: Statement[]): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export function d1Runner(db: D1Database): SqlRunner {
  return {
    async execute(statements) {
      if (statements.length > 0)
        await db.batch(statements.map((s) => db.prepare(s.sql).bind(...(s.params ?? []))));
    },
    async query<T>(sql: string, params: unknown[] = []) {
      return (
        await db
          .prepare(sql)
          .bind(...params)
          .all<T>()
      ).results;
    },
  };
}

export interface FeedRun extends FeedState {
  runVersion: string | null;
  runCursor: number | null;
  runSkipped: string | null;
}

export async function feedRuns(sql: SqlRunner): Promise<Map<string, FeedRun>> {
  const rows = await sql.query<FeedRun>(
    `SELECT name, origin, version, last_attempt_at AS lastAttemptAt, last_success_at AS lastSuccessAt,
       last_error AS lastError, last_error_at AS lastErrorAt, skipped, run_version AS runVersion,
       run_cursor AS runCursor, run_skipped AS runSkipped FROM airspace_feed_state`,
  );
  return new Map(rows.map((r) => [r.name, r]));
}

export async function datasetNotes(sql: SqlRunner): Promise<DatasetNote[]> {
  return sql.query<DatasetNote>(
    `SELECT name, format, version, records, loaded_at AS loadedAt, origin, valid_until AS validUntil
     FROM airspace_datasets ORDER BY name`,
  );
}

const STAGED_TABLES = [
  "airspace_feed_staged_features",
  "airspace_feed_staged_cells",
  "airspace_feed_staged_maps",
  "airspace_feed_staged_map_cells",
];

const clearStaged = (feed: string): Statement[] =>
  STAGED_TABLES.map((table) => ({ sql: `DELETE FROM ${table} WHERE feed = ?`, params: [feed] }));

/** A new run: staging emptied, the state row holding where it goes on from. */
export function beginRun(feed: string, origin: string, version: string, now: number): Statement[] {
  return [
    ...clearStaged(feed),
    {
      sql: `INSERT INTO airspace_feed_state (name, origin, last_attempt_at, run_version, run_started_at, run_cursor,
              run_skipped) VALUES (?, ?, ?, ?, ?, 0, '[]')
            ON CONFLICT (name) DO UPDATE SET origin = excluded.origin, last_attempt_at = excluded.last_attempt_at,
              run_version = excluded.run_version, run_started_at = excluded.run_started_at, run_cursor = 0,
              run_skipped = '[]'`,
      params: [feed, origin, now, version, now],
    },
  ];
}

export function advanceRun(feed: string, cursor: number, skipped: string, version?: string): Statement {
  return {
    sql: "UPDATE airspace_feed_state SET run_cursor = ?, run_skipped = ?, run_version = COALESCE(?, run_version) WHERE name = ?",
    params: [cursor, skipped, version ?? null, feed],
  };
}

/** The run is dropped with its staged records; the live version stays as it was. */
export function abandonRun(feed: string, origin: string, error: string, now: number): Statement[] {
  return [
    ...clearStaged(feed),
    {
      sql: `INSERT INTO airspace_feed_state (name, origin, last_attempt_at, last_error, last_error_at)
            VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET last_attempt_at = excluded.last_attempt_at,
              last_error = excluded.last_error, last_error_at = excluded.last_error_at,
              run_version = NULL, run_started_at = NULL, run_cursor = NULL, run_skipped = NULL`,
      params: [feed, origin, now, error, now],
    },
  ];
}

/** The source answered the version already loaded: current as of now, nothing fetched. */
export function confirmUnchanged(feed: string, now: number): Statement {
  return {
    sql: `UPDATE airspace_feed_state SET last_attempt_at = ?, last_success_at = ?, last_error = NULL,
            last_error_at = NULL WHERE name = ?`,
    params: [now, now, feed],
  };
}

/** Staged rows for records of one page (external ids `<feed>:<source id>`, index cells computed here). */
export function stageStatements(
  feed: string,
  features: AirspaceRecord[],
  maps: FacilityMapRecord[],
): Statement[] {
  const featureRows: unknown[][] = [];
  const cellRows: unknown[][] = [];
  for (const record of features) {
    const externalId = `${feed}:${record.sourceId}`;
    const { values, box } = featureRow(record, externalId);
    featureRows.push([feed, ...values]);
    for (const cell of indexCells(box)) cellRows.push([feed, externalId, cell.level, cell.x, cell.y]);
  }
  const mapRows = maps.map((m) => [feed, m.airportId, m.icao, m.name, m.laanc ? 1 : 0, m.lastEdit, m.source]);
  const mapCellRows = maps.flatMap((m) => m.cells.map((c) => [feed, m.airportId, c.row, c.col, c.ceilingFt]));
  return [
    // A record met again on a later page (the layer edited while paging) replaces the earlier copy.
    ...insertStatements(
      `INSERT OR REPLACE INTO airspace_feed_staged_features (feed, ${FEATURE_COLUMNS})`,
      featureRows,
    ),
    ...insertStatements(
      "INSERT OR IGNORE INTO airspace_feed_staged_cells (feed, external_id, level, x, y)",
      cellRows,
    ),
    // An airport's cells come over several pages: its map is staged once.
    ...insertStatements(
      "INSERT OR IGNORE INTO airspace_feed_staged_maps (feed, airport_id, icao, name, laanc, last_edit, source)",
      mapRows,
    ),
    ...insertStatements(
      "INSERT OR REPLACE INTO airspace_feed_staged_map_cells (feed, airport_id, row, col, ceiling_ft)",
      mapCellRows,
    ),
  ];
}

/** How many records the run has staged: features, and facility-map cells. */
export async function stagedCount(sql: SqlRunner, feed: string): Promise<number> {
  const [row] = await sql.query<{ n: number }>(
    `SELECT (SELECT COUNT(*) FROM airspace_feed_staged_features WHERE feed = ?)
          + (SELECT COUNT(*) FROM airspace_feed_staged_map_cells WHERE feed = ?) AS n`,
    [feed, feed],
  );
  return row?.n ?? 0;
}

/** The staged TFRs' NOTAM ids from `offset`, in a stable order, for their details. */
export async function stagedNotams(
  sql: SqlRunner,
  feed: string,
  offset: number,
  limit: number,
): Promise<string[]> {
  const rows = await sql.query<{ notam: string }>(
    `SELECT DISTINCT json_extract(properties, '$.notam') AS notam FROM airspace_feed_staged_features
     WHERE feed = ? AND notam IS NOT NULL ORDER BY notam LIMIT ? OFFSET ?`,
    [feed, limit, offset],
  );
  return rows.map((r) => r.notam);
}

/** A TFR's times from its detail, on every staged shape of it. */
export function setStagedTimes(
  feed: string,
  notam: string,
  start: number | null,
  end: number | null,
): Statement {
  return {
    sql: `UPDATE airspace_feed_staged_features SET effective_start = ?, effective_end = ?
          WHERE feed = ? AND json_extract(properties, '$.notam') = ?`,
    params: [start, end, feed, notam],
  };
}

/**
 * The switch, in one batch (one transaction): the feed's live records, index cells and facility maps
 * (and other datasets' maps of the same airports) give way to the staged ones, the dataset note and
 * the state say so, and staging is emptied. Until this batch commits every read sees the old version.
 */
export function swapStatements(
  feed: { name: string; url: string; format: string; everyMs: number },
  now: number,
): Statement[] {
  const f = feed.name;
  const replacedMaps = `dataset = ? OR airport_id IN (SELECT airport_id FROM airspace_feed_staged_maps WHERE feed = ?)`;
  return [
    {
      sql: "DELETE FROM airspace_feature_cells WHERE feature_id IN (SELECT id FROM airspace_features WHERE dataset = ?)",
      params: [f],
    },
    { sql: "DELETE FROM airspace_features WHERE dataset = ?", params: [f] },
    {
      sql: `INSERT INTO airspace_features (${FEATURE_COLUMNS}, dataset)
            SELECT ${FEATURE_COLUMNS}, feed FROM airspace_feed_staged_features WHERE feed = ?`,
      params: [f],
    },
    {
      sql: `INSERT INTO airspace_feature_cells (level, x, y, feature_id)
            SELECT c.level, c.x, c.y, f.id FROM airspace_feed_staged_cells AS c
            JOIN airspace_features AS f ON f.external_id = c.external_id WHERE c.feed = ?`,
      params: [f],
    },
    {
      sql: `DELETE FROM facility_map_cells WHERE facility_map_id IN (SELECT id FROM facility_maps WHERE ${replacedMaps})`,
      params: [f, f],
    },
    { sql: `DELETE FROM facility_maps WHERE ${replacedMaps}`, params: [f, f] },
    {
      sql: `INSERT INTO facility_maps (airport_id, icao, name, laanc, last_edit, source, dataset)
            SELECT airport_id, icao, name, laanc, last_edit, source, feed FROM airspace_feed_staged_maps WHERE feed = ?`,
      params: [f],
    },
    {
      // Where two airports' maps claim a cell, the lower ceiling governs (as tools/airspace/dataset.ts loads them).
      sql: `INSERT INTO facility_map_cells (row, col, ceiling_ft, facility_map_id)
            SELECT c.row, c.col, MIN(c.ceiling_ft), m.id FROM airspace_feed_staged_map_cells AS c
            JOIN facility_maps AS m ON m.airport_id = c.airport_id WHERE c.feed = ? GROUP BY c.row, c.col
            ON CONFLICT (row, col) DO UPDATE SET ceiling_ft = excluded.ceiling_ft,
              facility_map_id = excluded.facility_map_id WHERE excluded.ceiling_ft < facility_map_cells.ceiling_ft`,
      params: [f],
    },
    {
      sql: `INSERT INTO airspace_datasets (name, format, version, records, loaded_at, origin, valid_until)
            SELECT ?, ?, run_version,
              (SELECT COUNT(*) FROM airspace_feed_staged_features WHERE feed = ?)
                + (SELECT COUNT(*) FROM airspace_feed_staged_map_cells WHERE feed = ?),
              ?, ?, ? FROM airspace_feed_state WHERE name = ?
            ON CONFLICT (name) DO UPDATE SET format = excluded.format, version = excluded.version,
              records = excluded.records, loaded_at = excluded.loaded_at, origin = excluded.origin,
              valid_until = excluded.valid_until`,
      params: [f, feed.format, f, f, now, feed.url, now + feed.everyMs, f],
    },
    {
      sql: `UPDATE airspace_feed_state SET version = run_version, skipped = COALESCE(run_skipped, '[]'),
              last_success_at = ?, last_attempt_at = ?, last_error = NULL, last_error_at = NULL,
              run_version = NULL, run_started_at = NULL, run_cursor = NULL, run_skipped = NULL
            WHERE name = ?`,
      params: [now, now, f],
    },
    ...clearStaged(f),
  ];
}

/**
 * TFRs past their own end leave the live data even when the feed cannot be reached (the reads
 * already leave them out by time; this keeps the store and its counts true).
 */
export function expireStatements(feed: string, now: number): Statement[] {
  const expired = "SELECT id FROM airspace_features WHERE dataset = ? AND effective_end < ?";
  return [
    { sql: `DELETE FROM airspace_feature_cells WHERE feature_id IN (${expired})`, params: [feed, now] },
    { sql: "DELETE FROM airspace_features WHERE dataset = ? AND effective_end < ?", params: [feed, now] },
    {
      sql: `UPDATE airspace_datasets SET records = (SELECT COUNT(*) FROM airspace_features WHERE dataset = ?)
            WHERE name = ?`,
      params: [feed, feed],
    },
  ];
}
