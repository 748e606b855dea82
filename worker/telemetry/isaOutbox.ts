import { egm96, geoidHeight } from "../domain/geoid";
import type { Bindings } from "../env";
import { NetMaxNearRealTimeDataPeriodSeconds } from "../rid/constants";
import {
  covers,
  ISA_MAX_RETRY_MS,
  isaRetryDelayMs,
  liveIsaExtents,
  positionsBox,
  type ReportedBox,
  union,
} from "../rid/liveIsa";
import {
  DssUnavailable,
  deleteIsa,
  dssTarget,
  isaVersion,
  putIsa,
  type RidDssConfig,
  ussBaseUrl,
} from "../services/ridDss";
import { isaFlight } from "../store/isaFlights";
import { LazyTables } from "./lazyTables";

/**
 * ASTM F3411-22a Identification Service Areas of an ordinary live flight, from its Durable Object.
 * The first stored position (after the flight's last ISA was closed) opens an ISA; a position outside
 * the registered extents widens it; end-comm, the flight's end or its deletion close it. Ingest and
 * the routes only write rows here (the flight's own SQLite) and arm the alarm; the DSS is called by
 * the alarm, retried with backoff (isaRetryDelayMs), so a slow or absent DSS never slows telemetry.
 * The DSS is this service's own unless RID_DSS_BASE_URL names another (worker/services/ridDss.ts);
 * with RID_DSS_BASE_URL "none", or without this service's public base (RID_USS_BASE_URL or
 * PUBLIC_URL), nothing is queued. Injected test flights register
 * their own ISA (worker/interuss/ridInjection.ts) and are skipped here.
 *
 * Why the first position rather than start-comm: F3411 wants an ISA while the Service Provider has
 * data for that area and time; a session may be opened long before take-off (or never used), the
 * HTTP ingest has no start-comm at all, and the first position says where the aircraft really is.
 */

const CREATE_TABLES = `
  CREATE TABLE IF NOT EXISTS isa_outbox (
    isa_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    version TEXT,
    min_lat REAL NOT NULL, max_lat REAL NOT NULL, min_lng REAL NOT NULL, max_lng REAL NOT NULL,
    min_alt REAL NOT NULL, max_alt REAL NOT NULL,
    covered TEXT,
    isa_end INTEGER,
    dirty INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL,
    last_error TEXT,
    closed_at INTEGER,
    forget INTEGER NOT NULL DEFAULT 0
  );`;

/** open: wanted at the DSS (dirty: to be created or widened); closing: to be deleted; done: nothing left. */
export type IsaStatus = "open" | "closing" | "done";

type Row = {
  isa_id: string;
  status: IsaStatus;
  version: string | null;
  min_lat: number;
  max_lat: number;
  min_lng: number;
  max_lng: number;
  min_alt: number;
  max_alt: number;
  covered: string | null;
  isa_end: number | null;
  dirty: number;
  attempts: number;
  next_at: number;
  last_error: string | null;
  closed_at: number | null;
  forget: number;
};

/** An ISA stays meaningful this long after its time_end (flights stay visible that long). */
const AFTER_END_MS = NetMaxNearRealTimeDataPeriodSeconds * 1000;

const boxOf = (r: Row): ReportedBox => ({
  minLat: r.min_lat,
  maxLat: r.max_lat,
  minLng: r.min_lng,
  maxLng: r.max_lng,
  minAlt: r.min_alt,
  maxAlt: r.max_alt,
});

/** A DSS (by default this service's own) and this service's public /rid/v2 base are needed to announce live flights. */
export function liveIsaConfigured(config: RidDssConfig): boolean {
  return dssTarget(config).kind !== "none" && Boolean(ussBaseUrl(config));
}

export class IsaOutbox {
  /** The configuration the DSS is called with; the tests point it at a stand-in DSS. */
  dss: Bindings;
  /** Outbound requests (time-outs are ussAuthority's); the tests put a stand-in DSS here (a DO's `fetch` is not the test's global). */
  fetcher: typeof fetch = (input, init) => fetch(input, init);

  private readonly tables: LazyTables;

  constructor(
    private readonly ctx: DurableObjectState,
    env: Bindings,
  ) {
    this.dss = env;
    this.tables = new LazyTables(ctx.storage.sql, CREATE_TABLES, "isa_outbox");
  }

  /** Whether live flights are announced here (a DSS and this service's public base are known). */
  enabled(): boolean {
    return liveIsaConfigured(this.dss);
  }

  /**
   * Notes newly stored records: opens an ISA at the first position (unless one is open), widens the
   * open one when a position leaves what it covers. Records received before the last close are
   * late ones of a closed session and open nothing. True when DSS work is due (arm the alarm).
   */
  noted(
    records: { type: string; receivedAt: number; fields: Record<string, number> }[],
    now = Date.now(),
  ): boolean {
    if (!this.enabled()) return false;
    const positions = records.filter((r) => r.type === "position");
    if (positions.length === 0) return false;
    const sql = this.ctx.storage.sql;
    this.tables.ensure();
    let due = false;
    this.ctx.storage.transactionSync(() => {
      const open = sql.exec<Row>("SELECT * FROM isa_outbox WHERE status = 'open' LIMIT 1").toArray()[0];
      if (open) {
        const box = positionsBox(positions.map((p) => p.fields));
        if (!box) return;
        const wanted = union(boxOf(open), box);
        const covered = open.covered ? (JSON.parse(open.covered) as ReportedBox) : null;
        const outside = !covered || !covers(covered, wanted);
        // A pending retry keeps its backoff; a newly needed update is due at once.
        const nextAt = open.dirty ? open.next_at : now;
        sql.exec(
          `UPDATE isa_outbox SET min_lat = ?, max_lat = ?, min_lng = ?, max_lng = ?, min_alt = ?, max_alt = ?,
             dirty = ?, next_at = ? WHERE isa_id = ?`,
          wanted.minLat,
          wanted.maxLat,
          wanted.minLng,
          wanted.maxLng,
          wanted.minAlt,
          wanted.maxAlt,
          outside ? 1 : 0,
          outside ? nextAt : open.next_at,
          open.isa_id,
        );
        due = outside;
        return;
      }
      const lastClose =
        sql.exec<{ c: number | null }>("SELECT MAX(closed_at) AS c FROM isa_outbox").one().c ?? -Infinity;
      const box = positionsBox(positions.filter((p) => p.receivedAt > lastClose).map((p) => p.fields));
      if (!box) return;
      sql.exec(
        `INSERT INTO isa_outbox (isa_id, status, min_lat, max_lat, min_lng, max_lng, min_alt, max_alt, dirty, next_at)
         VALUES (?, 'open', ?, ?, ?, ?, ?, ?, 1, ?)`,
        crypto.randomUUID(),
        box.minLat,
        box.maxLat,
        box.minLng,
        box.maxLng,
        box.minAlt,
        box.maxAlt,
        now,
      );
      due = true;
    });
    return due;
  }

  /** Closes the open ISA (end-comm, the flight's end): its deletion is due at once. True when queued. */
  close(now = Date.now()): boolean {
    if (!this.tables.exist()) return false;
    const closed = this.ctx.storage.sql
      .exec(
        `UPDATE isa_outbox SET status = 'closing', closed_at = ?, next_at = ?, attempts = 0
         WHERE status = 'open' RETURNING isa_id`,
        now,
        now,
      )
      .toArray();
    return closed.length > 0;
  }

  /** The ISAs the DSS may hold, to delete after the flight's storage is erased (see requeue). */
  registered(): Row[] {
    if (!this.tables.exist()) return [];
    return this.ctx.storage.sql
      .exec<Row>("SELECT * FROM isa_outbox WHERE status != 'done' AND version IS NOT NULL")
      .toArray();
  }

  /**
   * After the flight's storage was erased: queues the deletion of the ISAs it had registered; once
   * they are deleted the storage is erased again (see work), so a deleted flight leaves nothing behind. True when queued.
   */
  requeue(rows: Row[], now = Date.now()): boolean {
    if (rows.length === 0) return false;
    this.tables.ensure();
    for (const r of rows)
      this.ctx.storage.sql.exec(
        `INSERT INTO isa_outbox (isa_id, status, version, min_lat, max_lat, min_lng, max_lng, min_alt, max_alt,
           isa_end, dirty, next_at, closed_at, forget)
         VALUES (?, 'closing', ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 1)`,
        r.isa_id,
        r.version,
        r.min_lat,
        r.max_lat,
        r.min_lng,
        r.max_lng,
        r.min_alt,
        r.max_alt,
        r.isa_end,
        now,
        now,
      );
    return true;
  }

  /** When the next DSS work is due, or null. */
  nextDue(): number | null {
    if (!this.tables.exist()) return null;
    return (
      this.ctx.storage.sql
        .exec<{ m: number | null }>(
          "SELECT MIN(next_at) AS m FROM isa_outbox WHERE (status = 'open' AND dirty = 1) OR status = 'closing'",
        )
        .one().m ?? null
    );
  }

  /**
   * Does the due DSS work (from the alarm); a failure is kept on its row and retried later. True
   * when the flight was erased and its last ISA is now deleted: the caller erases the storage again
   * (the alarm may have recreated other parts' empty tables meanwhile).
   */
  async work(now = Date.now()): Promise<boolean> {
    if (!this.tables.exist()) return false;
    const sql = this.ctx.storage.sql;
    const due = sql
      .exec<Row>(
        `SELECT * FROM isa_outbox WHERE ((status = 'open' AND dirty = 1) OR status = 'closing') AND next_at <= ?
         ORDER BY next_at`,
        now,
      )
      .toArray();
    for (const row of due) {
      try {
        if (row.status === "closing") await this.remove(row);
        else await this.register(row, now);
      } catch (err) {
        await this.failed(row.isa_id, err);
      }
    }
    return this.forgottenAndDone();
  }

  /** Every ISA of the flight (tests and operators). */
  entries(): Pick<
    Row,
    "isa_id" | "status" | "version" | "covered" | "attempts" | "next_at" | "last_error" | "isa_end"
  >[] {
    if (!this.tables.exist()) return [];
    return this.ctx.storage.sql
      .exec<Row>(
        "SELECT isa_id, status, version, covered, attempts, next_at, last_error, isa_end FROM isa_outbox ORDER BY rowid",
      )
      .toArray();
  }

  /** Forgets the tables (the flight's storage was erased). */
  reset(): void {
    this.tables.forget();
  }

  private async register(row: Row, now: number): Promise<void> {
    const sql = this.ctx.storage.sql;
    const flightId = this.ctx.id.name ?? "";
    const flight = flightId ? await isaFlight(this.dss.DB, flightId) : null;
    if (!flight || flight.endTime + AFTER_END_MS <= now) {
      // Over (or gone): nothing to announce; an ISA made earlier is deleted.
      sql.exec(
        `UPDATE isa_outbox SET status = CASE WHEN version IS NULL THEN 'done' ELSE 'closing' END,
           closed_at = ?, next_at = ?, attempts = 0 WHERE isa_id = ? AND status = 'open'`,
        now,
        now,
        row.isa_id,
      );
      return;
    }
    const wanted = boxOf(row);
    const geoid = geoidHeight(
      egm96(),
      (wanted.minLat + wanted.maxLat) / 2,
      (wanted.minLng + wanted.maxLng) / 2,
    );
    const { extents, covered } = liveIsaExtents(wanted, flight, now, geoid);
    const ownBase = ussBaseUrl(this.dss) ?? "";
    const isa = await putIsa(this.dss, row.isa_id, extents, row.version, ownBase, this.fetcher);
    // Positions noted meanwhile may lie outside: still dirty then. A close meanwhile keeps 'closing'.
    const current = sql.exec<Row>("SELECT * FROM isa_outbox WHERE isa_id = ?", row.isa_id).toArray()[0];
    const dirty = current ? !covers(covered, boxOf(current)) : false;
    sql.exec(
      `UPDATE isa_outbox SET version = ?, covered = ?, isa_end = ?, dirty = ?, attempts = 0, last_error = NULL,
         next_at = ? WHERE isa_id = ?`,
      isa.version,
      JSON.stringify(covered),
      flight.endTime + AFTER_END_MS,
      dirty ? 1 : 0,
      Date.now(),
      row.isa_id,
    );
  }

  private async remove(row: Row): Promise<void> {
    if (row.version !== null)
      await deleteIsa(this.dss, { id: row.isa_id, version: row.version }, this.fetcher);
    this.ctx.storage.sql.exec(
      "UPDATE isa_outbox SET status = 'done', attempts = 0, last_error = NULL WHERE isa_id = ?",
      row.isa_id,
    );
  }

  /** Keeps the failure and schedules the retry; learns the ISA's version after a conflict. */
  private async failed(isaId: string, err: unknown): Promise<void> {
    const sql = this.ctx.storage.sql;
    const row = sql.exec<Row>("SELECT * FROM isa_outbox WHERE isa_id = ?", isaId).toArray()[0];
    if (!row) return;
    const attempts = row.attempts + 1;
    const error = err instanceof Error ? err.message : String(err);
    const now = Date.now();
    // A deletion is given up when the DSS lets the ISA lapse at its time_end anyway (nothing left to
    // delete), or when the DSS refuses it as asked (an area too large, say: asking again would not help).
    const lapsed = row.isa_end !== null && row.isa_end <= now;
    const refused = err instanceof DssUnavailable && (err.status === 400 || err.status === 413);
    if (row.status === "closing" && (lapsed || refused)) {
      sql.exec(
        "UPDATE isa_outbox SET status = 'done', attempts = ?, last_error = ? WHERE isa_id = ?",
        attempts,
        error,
        isaId,
      );
      return;
    }
    sql.exec(
      "UPDATE isa_outbox SET attempts = ?, last_error = ?, next_at = ? WHERE isa_id = ?",
      attempts,
      error,
      now + (refused ? ISA_MAX_RETRY_MS : isaRetryDelayMs(attempts)),
      isaId,
    );
    console.error(
      JSON.stringify({
        level: "warn",
        message: "ISA registration will be retried",
        flight_id: this.ctx.id.name,
        isa: isaId,
        status: row.status,
        attempts,
        error,
      }),
    );
    // 409: another version than ours (or, creating, an ISA made by an attempt whose answer was lost);
    // 404 on an update: the DSS dropped it. Either way, learn what the DSS holds for the retry.
    if (err instanceof DssUnavailable && (err.status === 409 || (err.status === 404 && row.version !== null)))
      await this.refreshVersion(isaId);
  }

  /** After a version conflict (or a missing ISA), the DSS's current version (null: create anew). */
  private async refreshVersion(isaId: string): Promise<void> {
    try {
      const version = await isaVersion(this.dss, isaId, this.fetcher);
      this.ctx.storage.sql.exec(
        "UPDATE isa_outbox SET version = ?, status = CASE WHEN ? IS NULL AND status = 'closing' THEN 'done' ELSE status END WHERE isa_id = ?",
        version,
        version,
        isaId,
      );
    } catch (err) {
      console.error(
        JSON.stringify({ level: "warn", message: "ISA version lookup failed", error: String(err) }),
      );
    }
  }

  private forgottenAndDone(): boolean {
    const left = this.ctx.storage.sql
      .exec<{ pending: number; forget: number }>(
        "SELECT COALESCE(SUM(status != 'done'), 0) AS pending, COALESCE(MAX(forget), 0) AS forget FROM isa_outbox",
      )
      .one();
    return left.pending === 0 && left.forget === 1;
  }
}
