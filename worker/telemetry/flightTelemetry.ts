import { DurableObject } from "cloudflare:workers";
import type { ConformanceEvent } from "../domain/conformance";
import type { Bindings } from "../env";
import { IsaOutbox } from "./isaOutbox";
import { LazyTables } from "./lazyTables";
import { type FreshRecord, LiveFeed, type StreamAccess, type StreamRefusal } from "./liveFeed";
import { LivePositionIndex } from "./livePositions";
import { RECORD_COLUMNS, type RecordRow, recordOfRow } from "./recordRows";
import { TrafficFeed } from "./trafficFeed";
import { WebhookOutbox } from "./webhookOutbox";

/** One decoded record as the relay forwards it; (session, datagram, index) names it uniquely. */
export interface TelemetryRecord {
  sessionId: string;
  /**
   * Its datagram's identity: base64 of the 16 bytes the relay names it by, a keyed hash over its IV
   * and ciphertext (relay/datagramIdentity.ts; SHA-256 from older relays, the last ciphertext block
   * from older still, `#<serial>` from the oldest). The serial is outside the
   * ciphertext, so a replay may carry any serial: it never names a record.
   */
  datagram: string;
  serial: number;
  /** Position of the record inside its datagram's payload. */
  index: number;
  type: string;
  timestamp: number;
  receivedAt: number;
  fields: Record<string, number>;
}

export interface StoredRecord extends Omit<TelemetryRecord, "sessionId" | "index" | "datagram"> {
  id: number;
}

export interface TelemetryQuery {
  since: number;
  types: string[] | undefined;
  limit: number;
  /** Continue after this (timestamp, id): the last record of the previous page. */
  after: { timestamp: number; id: number } | undefined;
}

const CREATE_TABLE = `
  CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    serial INTEGER NOT NULL,
    record_index INTEGER NOT NULL,
    type TEXT NOT NULL,
    timestamp INTEGER NOT NULL,
    received_at INTEGER NOT NULL,
    fields TEXT NOT NULL,
    datagram TEXT NOT NULL,
    UNIQUE (session_id, datagram, record_index)
  );
  CREATE INDEX IF NOT EXISTS records_by_time ON records (timestamp, id);`;

/**
 * Tables made before datagram identities were unique on (session, serial, index): a replay under another
 * serial was stored again, and a forged serial could shadow a later datagram. SQLite cannot drop a
 * table's UNIQUE constraint, so the table is rebuilt once; old rows keep `#<serial>` as identity.
 */
const MIGRATE_TO_DATAGRAM_IDS = `
  ALTER TABLE records RENAME TO records_by_serial;
  ${CREATE_TABLE.replace("CREATE INDEX IF NOT EXISTS records_by_time ON records (timestamp, id);", "")}
  INSERT INTO records (id, session_id, serial, record_index, type, timestamp, received_at, fields, datagram)
    SELECT id, session_id, serial, record_index, type, timestamp, received_at, fields, '#' || serial
    FROM records_by_serial;
  DROP TABLE records_by_serial;
  CREATE INDEX IF NOT EXISTS records_by_time ON records (timestamp, id);`;

/** A record as Remote ID reads it. */
export interface RecentRecord {
  type: string;
  timestamp: number;
  fields: Record<string, number>;
}

/** Remote ID reads at most this many records of a window (a minute at 40 Hz of positions and speeds). */
const RECENT_LIMIT = 5000;

const CREATE_REMOTE_ID = "CREATE TABLE IF NOT EXISTS remote_id (k TEXT PRIMARY KEY, v TEXT NOT NULL);";

/**
 * One flight's telemetry in its own SQLite database: writes of concurrent flights never queue behind
 * each other (D1 is a single writer), and a record posted twice is stored once.
 */
export class FlightTelemetry extends DurableObject<Bindings> {
  private tableReady = false;
  /** Remote ID declarations of an injected test flight, kept only for such flights. */
  private readonly remoteIdTables = new LazyTables(this.ctx.storage.sql, CREATE_REMOTE_ID, "remote_id");
  /** Conformance monitoring and the live stream (liveFeed.ts). */
  private readonly live = new LiveFeed(this.ctx, this.env, () => this.hasTable());
  /** Conformance events to the account's webhook, delivered by the alarm (webhookOutbox.ts). */
  private readonly outbox = new WebhookOutbox(this.ctx, this.env);
  /** Where the flight reports from, for network Remote ID's views (livePositions.ts). */
  private readonly positions = new LivePositionIndex(this.ctx, this.env);
  /** The flight's F3411 Identification Service Areas, registered by the alarm (isaOutbox.ts). */
  private readonly isa = new IsaOutbox(this.ctx, this.env);
  /** The flight's latest position, for the traffic broker (trafficFeed.ts). */
  private readonly traffic = new TrafficFeed(this.ctx, this.env, () => this.hasTable());

  /** Stores the records not stored before, then monitors and streams them; returns how many were new. */
  async ingest(records: TelemetryRecord[]): Promise<{ stored: number; duplicates: number }> {
    const sql = this.ctx.storage.sql;
    this.ensureTable();
    let stored = 0;
    const fresh: FreshRecord[] = [];
    this.ctx.storage.transactionSync(() => {
      for (const r of records) {
        const inserted = sql.exec(
          `INSERT OR IGNORE INTO records (session_id, serial, record_index, type, timestamp, received_at, fields, datagram)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
          r.sessionId,
          r.serial,
          r.index,
          r.type,
          r.timestamp,
          r.receivedAt,
          JSON.stringify(r.fields),
          r.datagram,
        );
        const row = inserted.next();
        if (!row.done) {
          stored++;
          fresh.push({ id: row.value.id as number, ...r });
        }
      }
    });
    await this.live.stored(fresh);
    if (stored > 0) await this.positions.stored(fresh);
    if (stored > 0) this.traffic.stored(fresh);
    if (this.traffic.waiting) await this.armForTraffic();
    if (stored > 0) await this.queueWebhooks();
    if (stored > 0) await this.queueIsa(fresh);
    return { stored, duplicates: records.length - stored };
  }

  /** Records ordered by (timestamp, id), at most `limit`, plus whether more follow. */
  read(query: TelemetryQuery): { records: StoredRecord[]; more: boolean } {
    if (!this.hasTable()) return { records: [], more: false };
    const where = ["timestamp >= ?"];
    const params: (string | number)[] = [query.since];
    if (query.after) {
      where.push("(timestamp > ? OR (timestamp = ? AND id > ?))");
      params.push(query.after.timestamp, query.after.timestamp, query.after.id);
    }
    if (query.types) {
      where.push(`type IN (${query.types.map(() => "?").join(", ")})`);
      params.push(...query.types);
    }
    const rows = this.ctx.storage.sql
      .exec<RecordRow>(
        `SELECT ${RECORD_COLUMNS} FROM records
         WHERE ${where.join(" AND ")} ORDER BY timestamp, id LIMIT ?`,
        ...params,
        query.limit + 1,
      )
      .toArray();
    const more = rows.length > query.limit;
    const records = rows.slice(0, query.limit).map(recordOfRow);
    return { records, more };
  }

  /**
   * What ASTM F3411 network Remote ID serves of this flight (worker/services/remoteId.ts): its
   * position and speed records timed within [since, until], oldest first, at most RECENT_LIMIT of
   * the latest, and the Remote ID declarations kept for it (an injected test flight's), if any.
   */
  remoteIdWindow(since: number, until: number): { records: RecentRecord[]; declared: string | null } {
    const records = this.hasTable()
      ? this.ctx.storage.sql
          .exec<{ type: string; timestamp: number; fields: string }>(
            `SELECT type, timestamp, fields FROM records
             WHERE timestamp >= ? AND timestamp <= ? AND type IN ('position', 'speed')
             ORDER BY timestamp DESC, id DESC LIMIT ?`,
            since,
            until,
            RECENT_LIMIT,
          )
          .toArray()
          .reverse()
          .map((r) => ({
            type: r.type,
            timestamp: r.timestamp,
            fields: JSON.parse(r.fields) as Record<string, number>,
          }))
      : [];
    return { records, declared: this.remoteIdDeclared() };
  }

  /** Keeps (or with null, forgets) this object's Remote ID declarations: JSON text, replaced whole. */
  keepRemoteId(json: string | null): void {
    const sql = this.ctx.storage.sql;
    this.remoteIdTables.ensure();
    if (json === null) sql.exec("DELETE FROM remote_id WHERE k = 'declared'");
    else sql.exec("INSERT OR REPLACE INTO remote_id (k, v) VALUES ('declared', ?)", json);
  }

  /** Keeps `value` unless declarations are kept already (one call, so atomic); true when kept. */
  claimRemoteId(json: string): boolean {
    const sql = this.ctx.storage.sql;
    this.remoteIdTables.ensure();
    const claimed = sql
      .exec("INSERT OR IGNORE INTO remote_id (k, v) VALUES ('declared', ?) RETURNING k", json)
      .toArray();
    return claimed.length > 0;
  }

  /** The Remote ID declarations (JSON text) kept by keepRemoteId, or null. */
  remoteIdDeclared(): string | null {
    const sql = this.ctx.storage.sql;
    if (!this.remoteIdTables.exist()) return null;
    const row = sql.exec<{ v: string }>("SELECT v FROM remote_id WHERE k = 'declared'").toArray()[0];
    return row?.v ?? null;
  }

  /** Forgets the flight's telemetry: a deleted flight leaves nothing behind. */
  async erase(): Promise<void> {
    // ISAs registered at the DSS outlive the erase until the alarm has deleted them (isaOutbox.ts).
    const registered = this.isa.registered();
    await this.ctx.storage.deleteAll();
    await this.ctx.storage.deleteAlarm();
    this.tableReady = false;
    this.remoteIdTables.forget();
    this.live.reset();
    this.outbox.reset();
    await this.positions.erased();
    this.isa.reset();
    if (this.isa.requeue(registered)) await this.armForIsa();
  }

  /**
   * Server-Sent Events of records and conformance events; `after` is the Last-Event-ID (null: only
   * new). The stream is this object's own, passed to the reader untouched: its leaving frees its
   * place at once, and revocation or expiry ends it from here.
   */
  stream(
    after: number | null,
    access: StreamAccess,
  ): Promise<{ stream: ReadableStream<Uint8Array> } | { refused: StreamRefusal }> {
    return this.live.open(after, access);
  }

  /** The flight's conformance events, oldest first. */
  conformance(): ConformanceEvent[] {
    return this.live.events();
  }

  /** Monitoring on (default) or off; the live benchmark compares both. */
  setMonitoring(enabled: boolean): void {
    this.live.setMonitoring(enabled);
  }

  /**
   * One alarm for two clocks: telemetry_lost (set after each batch of records for 15 s of silence,
   * re-armed by the live feed whenever it runs early) and webhook deliveries (at once, then retries).
   * The live feed sets its own time first; the outbox only moves the alarm earlier.
   */
  override async alarm(): Promise<void> {
    await this.live.alarm();
    try {
      await this.outbox.collect();
      await this.outbox.deliverDue();
    } finally {
      await this.armForWebhooks();
      await this.runIsaOutbox();
      await this.runTrafficFeed();
    }
  }

  /** The traffic feed's turn of the alarm: positions whose time has come, then the next one's. */
  private async runTrafficFeed(): Promise<void> {
    try {
      this.traffic.catchUp();
      await this.armForTraffic();
    } catch (err) {
      console.error(JSON.stringify({ level: "error", message: "traffic feed failed", error: String(err) }));
    }
  }

  private async armForTraffic(): Promise<void> {
    const due = this.traffic.nextDue();
    if (due === null) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || due < current) await this.ctx.storage.setAlarm(due);
  }

  /** Closes the flight's open ISA (end-comm, the flight's end); the alarm deletes it at the DSS. */
  async closeLiveIsa(): Promise<void> {
    if (this.isa.close()) await this.armForIsa();
  }

  /** Notes positions for the flight's ISA (not an injected test flight's: it has its own); never throws. */
  private async queueIsa(fresh: FreshRecord[]): Promise<void> {
    try {
      if (this.isa.enabled() && this.remoteIdDeclared() === null) this.isa.noted(fresh);
      // Also when nothing changed: the live feed may just have moved the alarm past a pending retry.
      await this.armForIsa();
    } catch (err) {
      console.error(JSON.stringify({ level: "error", message: "ISA queue failed", error: String(err) }));
    }
  }

  /** The ISA outbox's turn of the alarm (after the others have set theirs); failures stay queued. */
  private async runIsaOutbox(): Promise<void> {
    try {
      // A deleted flight kept only its ISAs' deletions: once done, nothing of it stays.
      if (await this.isa.work()) return await this.erase();
    } catch (err) {
      console.error(JSON.stringify({ level: "error", message: "ISA outbox failed", error: String(err) }));
    }
    await this.armForIsa();
  }

  private async armForIsa(): Promise<void> {
    const due = this.isa.nextDue();
    if (due === null) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || due < current) await this.ctx.storage.setAlarm(due);
  }

  /** Queues new conformance events for the webhook; delivery waits for the alarm, never the ingest. */
  private async queueWebhooks(): Promise<void> {
    try {
      if (await this.outbox.collect()) await this.armForWebhooks();
    } catch (err) {
      // Stored records stay stored; the next batch or alarm collects these events again.
      console.error(JSON.stringify({ level: "error", message: "webhook queue failed", error: String(err) }));
    }
  }

  private async armForWebhooks(): Promise<void> {
    const due = this.outbox.nextDue();
    if (due === null) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || due < current) await this.ctx.storage.setAlarm(due);
  }

  private ensureTable(): void {
    if (this.tableReady) return;
    const sql = this.ctx.storage.sql;
    const [existing] = sql
      .exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'records'")
      .toArray();
    if (existing && !existing.sql.includes("datagram")) {
      this.ctx.storage.transactionSync(() => sql.exec(MIGRATE_TO_DATAGRAM_IDS));
    }
    sql.exec(CREATE_TABLE);
    this.tableReady = true;
  }

  /** A flight without telemetry gets no storage: reads do not create the table. */
  private hasTable(): boolean {
    if (this.tableReady) return true;
    this.tableReady =
      this.ctx.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'records'").toArray().length > 0;
    return this.tableReady;
  }
}

/** The Durable Object that keeps one flight's telemetry. */
export function telemetryOf(
  env: { FLIGHT_TELEMETRY: DurableObjectNamespace<FlightTelemetry> },
  flightId: string,
) {
  return env.FLIGHT_TELEMETRY.get(env.FLIGHT_TELEMETRY.idFromName(flightId));
}
