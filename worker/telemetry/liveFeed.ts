import {
  type ConformanceEvent,
  checkSilence,
  envelopeOf,
  type FlightEnvelope,
  initialState,
  judgePosition,
  type MonitorState,
  recordArrived,
  silenceDueAt,
} from "../domain/conformance";
import { sampleElevations } from "../domain/elevation/sampling";
import type { Polygon } from "../domain/geojson";
import type { Bindings } from "../env";
import { isoTime } from "../lib/time";
import { keyStillLive, LIVE_CHECK_MS } from "../services/liveAccess";
import { dbFor } from "../store/db";
import { chunkLoader, coverage } from "../store/elevationTiles";
import { accountStreamsOf, MAX_STREAMS_PER_ACCOUNT } from "./accountStreams";
import { LazyTables } from "./lazyTables";
import { RECORD_COLUMNS, type RecordRow, recordOfRow } from "./recordRows";

/**
 * The live side of a flight's Durable Object: conformance monitoring of every stored record, the
 * flight's conformance events (kept beside its records), and Server-Sent Events to its watchers.
 * Each event is encoded once and enqueued to every watcher, so a hundred watchers cost the worker
 * no more than one. The worker hands each watcher this object's own stream, so a reader that leaves
 * cancels it here at once and frees its place; the checks that end a stream (its key revoked, its
 * pilot token expired) therefore run here too.
 *
 * Event ids (`id:` of the stream) share one increasing sequence: a record's is its row id × 8, a
 * conformance event's is the id of the record that caused it × 8 + 1, 2, …; a record causes at most
 * four events and a silence one more, so the sequence never collides and needs no extra write.
 */

/** A record just stored, with its row id: what the stream and the monitor see. */
export interface FreshRecord {
  id: number;
  serial: number;
  type: string;
  timestamp: number;
  receivedAt: number;
  fields: Record<string, number>;
}

export const SEQ_PER_RECORD = 8;
/** How long the flight's plan (area, window, ceiling) is trusted before D1 is read again: an early end shows within this. */
const ENVELOPE_TTL_MS = 30_000;
/**
 * A watcher with this many bytes enqueued and not yet read (about 4,000 events) is cut: a slow reader
 * must not hold the flight's memory. Its EventSource reconnects with Last-Event-ID.
 */
export const MAX_BACKLOG_BYTES = 1024 * 1024;
/** Streams open at once on one flight, and with one browser ticket on it; beyond, 429. */
export const MAX_STREAMS_PER_FLIGHT = 100;
export const MAX_STREAMS_PER_HOLDER = 5;
export { MAX_STREAMS_PER_ACCOUNT };

const REPLAY_PAGE = 500;
const KEEPALIVE_MS = 20_000;

const CREATE_TABLES = `
  CREATE TABLE IF NOT EXISTS conformance_events (
    seq INTEGER PRIMARY KEY,
    type TEXT NOT NULL,
    body TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS live_state (k TEXT PRIMARY KEY, v TEXT NOT NULL);`;

/** Who opened a stream: what ends it (key revoked, token expired) and whose cap it counts against. */
export interface StreamAccess {
  accountId: string;
  keyId: string;
  /** The ticket that opened it (MAX_STREAMS_PER_HOLDER); "" for API-key readers, not capped per holder. */
  holder: string;
  /** The pilot token's expiry (UNIX seconds); absent for a stream opened without one. */
  tokenExpiresAt?: number;
}

/** Which cap refused a stream. */
export type StreamRefusal = "flight" | "holder" | "account";

interface Watcher {
  controller: ReadableStreamDefaultController<Uint8Array>;
  access: StreamAccess;
  /** Whether it was counted out (a stream ends once, however many ways). */
  ended: boolean;
  lastSent: number;
  live: boolean;
  expiry: ReturnType<typeof setTimeout> | undefined;
}

interface EnvelopeCache {
  value: FlightEnvelope | null;
  checkedAt: number;
}

const encoder = new TextEncoder();

/** A record as `GET /flight/v2/{id}/telemetry` returns it. */
export function recordView(r: Omit<FreshRecord, "id">) {
  return {
    type: r.type,
    timestamp: r.timestamp,
    serial: r.serial,
    received_at: isoTime(r.receivedAt),
    ...r.fields,
  };
}

export class LiveFeed {
  /** Live watchers: those that broadcast reaches. */
  private readonly watchers = new Set<Watcher>();
  /** Every stream open now, replaying or live (and places being claimed): the caps count these. */
  private readonly streams = new Set<Watcher>();
  private queue: Promise<void> = Promise.resolve();
  private state: MonitorState | undefined;
  private lastSeq: number | undefined;
  private envelope: EnvelopeCache | undefined;
  /** While streams are open: keys checked, counts reported to their accounts, keep-alives. */
  private ticker: ReturnType<typeof setInterval> | undefined;
  private lastKeepalive = 0;

  private readonly tables: LazyTables;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Bindings,
    /** Whether the flight's `records` table exists (the Durable Object remembers the answer). */
    private readonly hasRecords: () => boolean,
  ) {
    this.tables = new LazyTables(ctx.storage.sql, CREATE_TABLES, "conformance_events");
  }

  /** Monitors and streams records just stored, in order; resolves once their events are kept. */
  stored(records: FreshRecord[]): Promise<void> {
    if (records.length === 0) return this.queue;
    const now = Date.now();
    const run = this.queue.then(() => this.process(records, now));
    // One failed batch must not stop the next; the caller still sees this batch's failure.
    this.queue = run.catch((err) => {
      console.error(JSON.stringify({ level: "error", message: "live feed failed", error: String(err) }));
    });
    return run;
  }

  /** The DO alarm: telemetry_lost after TELEMETRY_LOST_MS of silence while the flight is active. */
  alarm(): Promise<void> {
    const run = this.queue.then(async () => {
      this.tables.ensure();
      if (!this.monitoring()) return;
      this.envelope = undefined; // the flight may have ended early: read it again
      const envelope = await this.flightEnvelope();
      if (!envelope) return;
      const outcome = checkSilence(envelope, this.monitorState(), Date.now());
      this.saveState(outcome.state);
      this.keep(outcome.events, this.lastSequence());
      if (outcome.recheckAt !== null) await this.ctx.storage.setAlarm(outcome.recheckAt);
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** Every conformance event kept, oldest first. */
  events(): ConformanceEvent[] {
    if (!this.tables.exist()) return [];
    return this.ctx.storage.sql
      .exec<{ body: string }>("SELECT body FROM conformance_events ORDER BY seq")
      .toArray()
      .map((row) => JSON.parse(row.body) as ConformanceEvent);
  }

  /** Monitoring on or off for this flight (the `live` benchmark compares both in one run). */
  setMonitoring(enabled: boolean): void {
    this.tables.ensure();
    this.ctx.storage.sql.exec(
      "INSERT OR REPLACE INTO live_state (k, v) VALUES ('monitoring', ?)",
      enabled ? "on" : "off",
    );
    this.monitoringFlag = enabled;
  }

  /**
   * An event stream: without `after`, only events from now on; with it, every kept event after it
   * first (read page by page as the watcher takes them), then live ones. Refused when the flight
   * already has MAX_STREAMS_PER_FLIGHT streams open, the ticket MAX_STREAMS_PER_HOLDER, or the
   * account MAX_STREAMS_PER_ACCOUNT across its flights (counted by its AccountStreams object).
   */
  async open(
    after: number | null,
    access: StreamAccess,
  ): Promise<{ stream: ReadableStream<Uint8Array> } | { refused: StreamRefusal }> {
    if (this.streams.size >= MAX_STREAMS_PER_FLIGHT) return { refused: "flight" };
    if (access.holder !== "" && this.heldBy(access.holder) >= MAX_STREAMS_PER_HOLDER)
      return { refused: "holder" };
    const watcher: Watcher = {
      controller: undefined as never,
      access,
      ended: false,
      lastSent: after ?? 0,
      live: false,
      expiry: undefined,
    };
    // Counted here before the account answers, so that concurrent opens see each other.
    this.streams.add(watcher);
    let claimed = false;
    try {
      claimed = await this.account(access.accountId).claim(this.flightId());
    } finally {
      if (!claimed) this.streams.delete(watcher);
    }
    if (!claimed) return { refused: "account" };
    this.startTicker();
    if (access.tokenExpiresAt !== undefined) {
      const wait = Math.max(0, access.tokenExpiresAt * 1000 - Date.now());
      watcher.expiry = setTimeout(
        () => this.endAccess(watcher, "the pilot token expired: sign in again"),
        wait,
      );
    }
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          watcher.controller = controller;
          // Its key was found revoked while the account was asked: nothing to send.
          if (watcher.ended) return controller.close();
          controller.enqueue(encoder.encode("retry: 2000\n\n"));
          if (after === null) this.watch(watcher, this.lastSequence());
        },
        pull: () => {
          if (watcher.live || watcher.ended) return;
          // Replay only what live watchers have been sent: later events reach this one live.
          const upTo = this.lastSequence();
          const page = this.replay(watcher.lastSent, upTo);
          for (const { seq, frame } of page.frames) {
            watcher.controller.enqueue(frame);
            watcher.lastSent = seq;
          }
          if (page.done) this.watch(watcher, upTo);
        },
        cancel: () => {
          this.unwatch(watcher);
        },
      },
      // Queued bytes, so that the backlog cut (MAX_BACKLOG_BYTES) bounds memory whatever the events' size.
      { highWaterMark: 1, size: (chunk) => chunk.byteLength },
    );
    return { stream };
  }

  /** Forgets everything (the flight's storage was erased). */
  reset(): void {
    this.tables.forget();
    this.state = undefined;
    this.lastSeq = undefined;
    this.envelope = undefined;
    this.monitoringFlag = undefined;
  }

  private monitoringFlag: boolean | undefined;

  private monitoring(): boolean {
    if (this.monitoringFlag === undefined) {
      const row = this.ctx.storage.sql
        .exec<{ v: string }>("SELECT v FROM live_state WHERE k = 'monitoring'")
        .toArray()[0];
      this.monitoringFlag = row?.v !== "off";
    }
    return this.monitoringFlag;
  }

  private async process(records: FreshRecord[], now: number): Promise<void> {
    this.tables.ensure();
    const monitoring = this.monitoring();
    const envelope = monitoring ? await this.flightEnvelope() : null;
    const positions = envelope ? records.filter((r) => r.type === "position") : [];
    const grounds = new Map<number, number | null>();
    if (positions.length > 0) {
      const values = await this.groundElevations(positions);
      for (const [i, p] of positions.entries()) grounds.set(p.id, values[i] ?? null);
    }
    let state = this.monitorState();
    const sorted = [...records].sort((a, b) => a.id - b.id);
    for (const record of sorted) {
      const seq = record.id * SEQ_PER_RECORD;
      this.broadcast(seq, () => frame(seq, "record", recordView(record)));
      if (seq > (this.lastSeq ?? 0)) this.lastSeq = seq;
      if (!envelope) continue;
      const arrived = recordArrived(state, now, record.timestamp);
      state = arrived.state;
      const events = [...arrived.events];
      if (record.type === "position") {
        const f = record.fields;
        const judged = judgePosition(envelope, state, {
          timestamp: record.timestamp,
          latitude: f.latitude!,
          longitude: f.longitude!,
          altitudeMsl: f.altitude_msl!,
          ground: grounds.get(record.id) ?? null,
        });
        state = judged.state;
        events.push(...judged.events);
      }
      this.keep(events, seq);
    }
    if (!envelope) return;
    this.saveState(state);
    const due = silenceDueAt(envelope, state);
    if (due !== null) await this.ctx.storage.setAlarm(due);
  }

  /** Keeps and broadcasts events after sequence `after` (a record's, or the latest). */
  private keep(events: ConformanceEvent[], after: number): void {
    let seq = Math.max(after, this.lastSequence());
    for (const event of events) {
      seq += 1;
      this.ctx.storage.sql.exec(
        "INSERT INTO conformance_events (seq, type, body) VALUES (?, ?, ?)",
        seq,
        event.type,
        JSON.stringify(event),
      );
      const s = seq;
      this.broadcast(s, () => frame(s, "conformance", event));
      this.lastSeq = s;
    }
  }

  private broadcast(seq: number, render: () => Uint8Array): void {
    if (this.watchers.size === 0) return;
    let bytes: Uint8Array | undefined;
    for (const watcher of this.watchers) {
      if (seq <= watcher.lastSent) continue;
      if ((watcher.controller.desiredSize ?? 0) < -MAX_BACKLOG_BYTES) {
        this.unwatch(watcher);
        try {
          watcher.controller.close();
        } catch {}
        continue;
      }
      bytes ??= render();
      watcher.controller.enqueue(bytes);
      watcher.lastSent = seq;
    }
  }

  private watch(watcher: Watcher, upTo: number): void {
    watcher.live = true;
    watcher.lastSent = Math.max(watcher.lastSent, upTo);
    this.watchers.add(watcher);
  }

  /** A stream ended: cancelled by its reader, cut as too slow, ended by a check, or gone. */
  private unwatch(watcher: Watcher): void {
    this.watchers.delete(watcher);
    if (watcher.ended) return;
    watcher.ended = true;
    clearTimeout(watcher.expiry);
    this.streams.delete(watcher);
    this.account(watcher.access.accountId)
      .release(this.flightId())
      .catch(() => {}); // the next report repairs the count
    if (this.streams.size === 0 && this.ticker !== undefined) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  /** An `access_ended` event saying why, then the end (an EventSource that reconnects is refused). */
  private endAccess(watcher: Watcher, reason: string): void {
    if (watcher.ended) return;
    this.unwatch(watcher);
    try {
      watcher.controller.enqueue(
        encoder.encode(`event: access_ended\ndata: ${JSON.stringify({ reason })}\n\n`),
      );
      watcher.controller.close();
    } catch {
      // the reader has already gone
    }
  }

  private startTicker(): void {
    if (this.ticker !== undefined) return;
    this.lastKeepalive = Date.now();
    this.ticker = setInterval(() => {
      this.tick().catch((err) => {
        console.error(JSON.stringify({ level: "error", message: "live check failed", error: String(err) }));
      });
    }, LIVE_CHECK_MS);
  }

  /**
   * Every LIVE_CHECK_MS while streams are open: streams whose key was revoked end, each account
   * hears this flight's true count, and live watchers get a keep-alive every KEEPALIVE_MS.
   */
  private async tick(): Promise<void> {
    const db = dbFor(this.env.DB);
    const keys = new Set([...this.streams].map((w) => w.access.keyId));
    const revoked = new Set<string>();
    for (const keyId of keys) if (!(await keyStillLive(db, keyId))) revoked.add(keyId);
    for (const watcher of [...this.streams])
      if (revoked.has(watcher.access.keyId)) this.endAccess(watcher, "the API key was revoked");
    const perAccount = new Map<string, number>();
    for (const w of this.streams)
      perAccount.set(w.access.accountId, (perAccount.get(w.access.accountId) ?? 0) + 1);
    await Promise.all(
      [...perAccount].map(([accountId, open]) => this.account(accountId).report(this.flightId(), open)),
    );
    if (Date.now() - this.lastKeepalive >= KEEPALIVE_MS) {
      this.lastKeepalive = Date.now();
      const ping = encoder.encode(": keep-alive\n\n");
      for (const w of this.watchers) {
        try {
          w.controller.enqueue(ping);
        } catch {
          this.unwatch(w);
        }
      }
    }
  }

  private heldBy(holder: string): number {
    let held = 0;
    for (const w of this.streams) if (w.access.holder === holder) held++;
    return held;
  }

  private account(accountId: string) {
    return accountStreamsOf(this.env, accountId);
  }

  /** The Durable Object's name: the flight id (its account counts streams by it). */
  private flightId(): string {
    return this.ctx.id.name ?? this.ctx.id.toString();
  }

  /** Kept events with after < seq ≤ upTo, oldest first, at most one page. */
  private replay(
    after: number,
    upTo: number,
  ): { frames: { seq: number; frame: Uint8Array }[]; done: boolean } {
    const sql = this.ctx.storage.sql;
    const hasEvents = this.tables.exist();
    const records = this.hasRecords()
      ? sql
          .exec<RecordRow>(
            `SELECT ${RECORD_COLUMNS} FROM records
             WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`,
            Math.floor(after / SEQ_PER_RECORD),
            Math.floor(upTo / SEQ_PER_RECORD),
            REPLAY_PAGE,
          )
          .toArray()
          .map((row) => {
            const seq = row.id * SEQ_PER_RECORD;
            const view = recordView(recordOfRow(row));
            return { seq, frame: frame(seq, "record", view) };
          })
      : [];
    const events = !hasEvents
      ? []
      : sql
          .exec<{ seq: number; body: string }>(
            "SELECT seq, body FROM conformance_events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
            after,
            upTo,
            REPLAY_PAGE,
          )
          .toArray()
          .map((row) => ({ seq: row.seq, frame: frameText(row.seq, "conformance", row.body) }));
    // A full page may have more behind it: keep only what is certainly complete up to there.
    const limit = Math.min(
      records.length === REPLAY_PAGE ? records.at(-1)!.seq : upTo,
      events.length === REPLAY_PAGE ? events.at(-1)!.seq : upTo,
    );
    const frames = [...records, ...events].filter((e) => e.seq <= limit).sort((a, b) => a.seq - b.seq);
    return { frames, done: limit === upTo };
  }

  private lastSequence(): number {
    if (this.lastSeq === undefined) {
      const sql = this.ctx.storage.sql;
      const record = this.hasRecords()
        ? (sql.exec<{ m: number | null }>("SELECT MAX(id) AS m FROM records").one().m ?? 0)
        : 0;
      const event = this.tables.exist()
        ? (sql.exec<{ m: number | null }>("SELECT MAX(seq) AS m FROM conformance_events").one().m ?? 0)
        : 0;
      this.lastSeq = Math.max(record * SEQ_PER_RECORD, event);
    }
    return this.lastSeq;
  }

  private monitorState(): MonitorState {
    if (!this.state) {
      const row = this.ctx.storage.sql
        .exec<{ v: string }>("SELECT v FROM live_state WHERE k = 'monitor'")
        .toArray()[0];
      this.state = row ? (JSON.parse(row.v) as MonitorState) : initialState();
    }
    return this.state;
  }

  private saveState(state: MonitorState): void {
    this.state = state;
    this.ctx.storage.sql.exec(
      "INSERT OR REPLACE INTO live_state (k, v) VALUES ('monitor', ?)",
      JSON.stringify(state),
    );
  }

  /**
   * The flight's area, window and ceiling, read from D1 by the Durable Object itself (its name is the
   * flight id) and trusted for ENVELOPE_TTL_MS: the relay's path stays as it is, and an early end of
   * the flight is seen within that time. Null when the flight does not exist (nothing to judge).
   */
  private async flightEnvelope(): Promise<FlightEnvelope | null> {
    const now = Date.now();
    if (this.envelope && now - this.envelope.checkedAt < ENVELOPE_TTL_MS) return this.envelope.value;
    const flightId = this.ctx.id.name;
    if (!flightId) return null;
    const row = await this.env.DB.prepare(
      "SELECT geometry, start_time, end_time, max_altitude FROM flights WHERE id = ?",
    )
      .bind(flightId)
      .first<{ geometry: string; start_time: number; end_time: number; max_altitude: number }>();
    const value = row
      ? envelopeOf({
          geometry: JSON.parse(row.geometry) as Polygon,
          startTime: row.start_time,
          endTime: row.end_time,
          maxAltitude: row.max_altitude,
        })
      : null;
    this.envelope = { value, checkedAt: now };
    return value;
  }

  /** Our ground elevation (EGM96 m) below each position, null where no tile is loaded. */
  private async groundElevations(positions: FreshRecord[]): Promise<(number | null)[]> {
    const bucket = this.env.ELEVATION;
    const cover = await coverage(bucket, (p) => this.ctx.waitUntil(p));
    const lats = positions.map((p) => p.fields.latitude!);
    const lngs = positions.map((p) => p.fields.longitude!);
    return sampleElevations(cover, lats, lngs, "bilinear", chunkLoader(bucket));
  }
}

function frame(seq: number, event: string, data: unknown): Uint8Array {
  return frameText(seq, event, JSON.stringify(data));
}

function frameText(seq: number, event: string, json: string): Uint8Array {
  return encoder.encode(`id: ${seq}\nevent: ${event}\ndata: ${json}\n\n`);
}
