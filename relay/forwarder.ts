import type { IngestResult, RecordRow, SessionRecords } from "../proto/ingest";
import {
  ByteWriter,
  isPackedBatch,
  packBatchHeader,
  packRecord,
  packSession,
  unpackBatch,
} from "../proto/packedBatch";
import type { Log } from "./log";
import type { RelayMetrics } from "./metrics";
import type { Spool, SpoolFile } from "./spool";
import { WorkerError } from "./workerClient";

export interface ForwarderOptions {
  /** A batch is posted when it holds this many records… */
  batchSize: number;
  /** …or when its first record has waited this long. */
  batchDelayMs: number;
  /** Records held in memory at most; beyond, the oldest batches go to the spool (0: no limit)… */
  maxQueuedRecords: number;
  /** …and their JSON text in bytes at most; no limit when absent. */
  maxQueuedBytes?: number;
  maxInFlight: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

/** A batch in memory (`body`, packed), or one read back from the spool (then `file` names it). */
interface Batch {
  /** The batch as proto/packedBatch.ts packs it: posted and spooled as it is. */
  body?: Buffer;
  file?: SpoolFile;
  /** Records in the batch. */
  size: number;
  /** The received_at of its oldest record. */
  firstReceivedAt?: number;
  /** session id → flight id of its sessions, for onRefused. */
  flights?: Map<string, string>;
}

/**
 * A session's part of the batch being filled: its records, packed. The writer goes back to a pool when
 * the batch is cut.
 */
interface PendingSession {
  flightId: string;
  sessionId: string;
  records: ByteWriter;
  count: number;
}

/** Refusals that mean the worker takes no more records of the session. */
const SESSION_GONE = new Set(["unknown_session", "session_closed"]);

/** Writers kept for reuse at most (one per session of a batch)… */
const POOLED_WRITERS = 256;
/** …of which this many may have grown beyond LARGE_WRITER bytes (a busy session's rows). */
const POOLED_LARGE_WRITERS = 8;
const LARGE_WRITER = 16 * 1024;

/**
 * Posts accepted records to the worker in batches. Nothing accepted is lost: a failed post is retried
 * with exponential backoff and jitter (one probe at a time while the worker fails), memory is bounded
 * by spilling the oldest batches to the on-disk spool, the spool is drained once posts succeed, and
 * close() spools whatever it could not post. Posts are idempotent, so a batch sent twice is harmless.
 */
export class Forwarder {
  /** The batch being filled, by session. */
  private readonly pending = new Map<string, PendingSession>();
  private lastPending: PendingSession | undefined;
  private readonly pool: ByteWriter[] = [];
  /** Where a batch is assembled before it is copied out in a buffer of its own. */
  private readonly assembly = new ByteWriter(64 * 1024);
  private pendingSize = 0;
  private pendingBytes = 0;
  private pendingFirstReceivedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly waiting: Batch[] = [];
  private waitingRecords = 0;
  private waitingBytes = 0;
  private readonly inFlight = new Set<Batch>();
  private inFlightRecords = 0;
  private inFlightBytes = 0;
  private readonly spoolWrites = new Set<Promise<unknown>>();
  private consecutiveFailures = 0;
  private pausedUntil = 0;
  private resumeTimer: NodeJS.Timeout | undefined;
  private preferSpool = false;
  private closing = false;

  constructor(
    /** Posts a batch: packed, or the JSON text of a SessionRecords[] spooled by an older relay. */
    private readonly post: (batch: Buffer) => Promise<IngestResult>,
    private readonly spool: Spool,
    private readonly options: ForwarderOptions,
    private readonly metrics: RelayMetrics,
    private readonly log: Log,
    /** Told which flights the worker refused records for, so their cached sessions are dropped. */
    private readonly onRefused: (flightIds: Set<string>) => void = () => {},
  ) {}

  /** Records in memory: being batched, waiting, or being posted. */
  get queuedRecords(): number {
    return this.pendingSize + this.waitingRecords + this.inFlightRecords;
  }

  /** The records in memory, packed, in bytes. */
  get queuedBytes(): number {
    return this.pendingBytes + this.waitingBytes + this.inFlightBytes;
  }

  /** Starts posting: spooled batches from an earlier run go out as soon as the worker answers. */
  start(): void {
    if (this.spool.batches > 0) {
      this.log.info("draining spool", { batches: this.spool.batches, records: this.spool.records });
    }
    this.pump();
  }

  /**
   * Queues a record; bytes `start` to `end` of `datagram` name its datagram, so the worker stores it
   * once however it arrives. The row and the bytes are packed into the batch at once: the caller may
   * reuse them.
   */
  enqueue(
    flightId: string,
    sessionId: string,
    row: RecordRow,
    datagram: Uint8Array,
    start = 0,
    end = datagram.length,
  ): void {
    // Records come in runs of one session: the last one's part needs no map look-up.
    let session = this.lastPending;
    if (session?.sessionId !== sessionId) {
      session = this.pending.get(sessionId);
      if (session === undefined) {
        session = { flightId, sessionId, records: this.writer(), count: 0 };
        this.pending.set(sessionId, session);
      }
      this.lastPending = session;
    }
    const { records } = session;
    const before = records.length;
    packRecord(records, row, datagram, start, end);
    session.count++;
    if (this.pendingSize === 0) this.pendingFirstReceivedAt = row[4];
    this.pendingBytes += records.length - before;
    this.pendingSize++;
    if (this.pendingSize >= this.options.batchSize) this.cut();
    else if (this.pendingSize === 1) this.timer = setTimeout(() => this.cut(), this.options.batchDelayMs);
  }

  /**
   * Stops taking spooled work, posts what is in memory until `deadline` (or until a post fails), then
   * writes everything still unacknowledged to the spool.
   */
  async close(deadline: number): Promise<void> {
    this.closing = true;
    this.cut();
    while (
      Date.now() < deadline &&
      this.consecutiveFailures === 0 &&
      this.waiting.length + this.inFlight.size > 0
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    clearTimeout(this.resumeTimer);
    await Promise.allSettled(this.spoolWrites);
    let spooled = 0;
    for (const batch of [...this.waiting, ...this.inFlight]) {
      // Batches read from the spool are still on disk; posts in flight may land too, harmlessly twice.
      if (batch.body === undefined) continue;
      if (this.spool.writeSync(batch.body, batch.size)) spooled += batch.size;
      else this.metrics.recordsDropped.inc({ reason: "spool_full" }, batch.size);
    }
    this.waiting.length = 0;
    this.log.info("forwarder closed", { spooled_records: spooled, spool_batches: this.spool.batches });
  }

  private cut(): void {
    clearTimeout(this.timer);
    if (this.pendingSize === 0) return;
    const flights = new Map<string, string>();
    const out = this.assembly;
    out.reset();
    packBatchHeader(out);
    for (const s of this.pending.values()) {
      flights.set(s.sessionId, s.flightId);
      packSession(out, s.flightId, s.sessionId, s.count);
      out.copy(s.records.written());
      this.release(s.records);
    }
    const body = Buffer.from(out.written());
    this.waiting.push({
      body,
      size: this.pendingSize,
      firstReceivedAt: this.pendingFirstReceivedAt,
      flights,
    });
    this.waitingRecords += this.pendingSize;
    this.waitingBytes += body.length;
    this.pending.clear();
    this.lastPending = undefined;
    this.pendingSize = 0;
    this.pendingBytes = 0;
    this.spillOverflow();
    this.pump();
  }

  /** An empty writer, from the pool when one is free. */
  private writer(): ByteWriter {
    const writer = this.pool.pop();
    if (writer === undefined) return new ByteWriter(1024);
    writer.reset();
    return writer;
  }

  private release(writer: ByteWriter): void {
    const room = writer.capacity > LARGE_WRITER ? POOLED_LARGE_WRITERS : POOLED_WRITERS;
    if (this.pool.length < room) this.pool.push(writer);
  }

  private overflowing(): boolean {
    const { maxQueuedRecords, maxQueuedBytes } = this.options;
    return (
      (maxQueuedRecords > 0 && this.queuedRecords > maxQueuedRecords) ||
      (maxQueuedBytes !== undefined && this.queuedBytes > maxQueuedBytes)
    );
  }

  /** Keeps memory bounded: the oldest waiting batches move to the spool. */
  private spillOverflow(): void {
    while (this.waiting.length > 0 && this.overflowing()) {
      const batch = this.waiting.shift()!;
      this.waitingRecords -= batch.size;
      this.waitingBytes -= batch.body!.length;
      const write = this.spool
        .write(batch.body!, batch.size)
        .then(
          (written) => {
            if (!written) this.metrics.recordsDropped.inc({ reason: "spool_full" }, batch.size);
          },
          (err) => {
            this.metrics.recordsDropped.inc({ reason: "spool_write_failed" }, batch.size);
            this.log.error("spool write failed", { error: String(err), records: batch.size });
          },
        )
        .finally(() => this.spoolWrites.delete(write));
      this.spoolWrites.add(write);
    }
  }

  private pump(): void {
    const now = Date.now();
    if (now < this.pausedUntil) {
      clearTimeout(this.resumeTimer);
      this.resumeTimer = setTimeout(() => this.pump(), this.pausedUntil - now);
      return;
    }
    // While the worker fails, one probe at a time.
    const slots = this.consecutiveFailures > 0 ? 1 : this.options.maxInFlight;
    while (this.inFlight.size < slots) {
      const batch = this.nextBatch();
      if (!batch) return;
      void this.send(batch);
    }
  }

  /** Live batches and spooled ones take turns, so neither starves the other. */
  private nextBatch(): Batch | undefined {
    this.preferSpool = !this.preferSpool;
    const fromSpool = () => {
      if (this.closing || this.consecutiveFailures > 0) return undefined;
      const file = this.spool.claim();
      return file && { file, size: file.records };
    };
    const fromMemory = () => {
      const batch = this.waiting.shift();
      if (batch) {
        this.waitingRecords -= batch.size;
        this.waitingBytes -= batch.body!.length;
      }
      return batch;
    };
    return this.preferSpool ? (fromSpool() ?? fromMemory()) : (fromMemory() ?? fromSpool());
  }

  private async send(batch: Batch): Promise<void> {
    this.inFlight.add(batch);
    if (batch.body !== undefined) {
      this.inFlightRecords += batch.size;
      this.inFlightBytes += batch.body.length;
    }
    try {
      const body = batch.body ?? (await this.readSpooled(batch));
      if (body === undefined) return;
      const result = await this.post(body);
      this.settle(batch);
      this.succeeded(batch, result);
      if (batch.file) await this.spool.remove(batch.file);
    } catch (err) {
      this.settle(batch);
      this.failed(batch, err);
    } finally {
      this.settle(batch);
      this.pump();
    }
  }

  /** The batch is no longer in flight (idempotent). */
  private settle(batch: Batch): void {
    if (this.inFlight.delete(batch) && batch.body !== undefined) {
      this.inFlightRecords -= batch.size;
      this.inFlightBytes -= batch.body.length;
    }
  }

  /**
   * A spooled batch, checked and described (its flights, its oldest record) on the way: packed, or
   * the JSON text an older relay spooled.
   */
  private async readSpooled(batch: Batch): Promise<Buffer | undefined> {
    const file = batch.file!;
    try {
      const text = await this.spool.read(file);
      const sessions = isPackedBatch(text)
        ? unpackBatch(text)
        : (JSON.parse(text.toString("utf8")) as SessionRecords[]);
      if (!Array.isArray(sessions)) throw new Error("not a list of sessions");
      batch.flights = new Map(sessions.map((s) => [s.session_id, s.flight_id]));
      batch.firstReceivedAt = sessions[0]?.records?.[0]?.[4];
      return text;
    } catch (err) {
      this.log.error("unreadable spool file set aside", { file: file.name, error: String(err) });
      this.metrics.recordsDropped.inc({ reason: "spool_unreadable" }, file.records);
      await this.spool.quarantine(file);
      return undefined;
    }
  }

  private succeeded(batch: Batch, result: IngestResult): void {
    if (this.consecutiveFailures > 0)
      this.log.info("worker reachable again", { after_failures: this.consecutiveFailures });
    this.consecutiveFailures = 0;
    this.metrics.recordsForwarded.inc(undefined, result.stored + result.duplicates);
    // The batch's first row is its oldest record; rows carry their received_at (item 4).
    const { firstReceivedAt } = batch;
    if (typeof firstReceivedAt === "number")
      this.metrics.batchLatency.observe((Date.now() - firstReceivedAt) / 1000);
    if (result.refused.length === 0) return;
    for (const r of result.refused) this.metrics.recordsDropped.inc({ reason: r.reason }, r.records);
    // Only a session the worker no longer takes makes its cached key stale (not implausible times).
    const refusedSessions = new Set(
      result.refused.filter((r) => SESSION_GONE.has(r.reason)).map((r) => r.session_id),
    );
    const flights = new Set<string>();
    for (const [sessionId, flightId] of batch.flights ?? [])
      if (refusedSessions.has(sessionId)) flights.add(flightId);
    this.onRefused(flights);
  }

  private failed(batch: Batch, err: unknown): void {
    if (err instanceof WorkerError && !err.retryable) {
      // The worker will never take this batch: drop it (counted, logged), a spooled one set aside.
      this.log.error("worker refused a batch", { error: err.message, records: batch.size });
      this.metrics.recordsDropped.inc({ reason: "refused_by_worker" }, batch.size);
      if (batch.file) void this.spool.quarantine(batch.file);
      return;
    }
    this.consecutiveFailures++;
    this.metrics.postFailures.inc();
    const ceiling = Math.min(
      this.options.retryMaxMs,
      this.options.retryBaseMs * 2 ** (this.consecutiveFailures - 1),
    );
    const delay = ceiling / 2 + (Math.random() * ceiling) / 2;
    this.pausedUntil = Date.now() + delay;
    if (this.consecutiveFailures === 1 || this.consecutiveFailures % 10 === 0) {
      this.log.warn("post to worker failed; retrying", {
        error: String((err as Error).message ?? err),
        failures: this.consecutiveFailures,
        retry_in_ms: Math.round(delay),
      });
    }
    if (batch.file) {
      this.spool.release(batch.file);
    } else {
      this.waiting.unshift(batch);
      this.waitingRecords += batch.size;
      this.waitingBytes += batch.body!.length;
      this.spillOverflow();
    }
  }
}
