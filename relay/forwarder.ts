import type { RecordRow, SessionRecords } from "../worker/domain/telemetryMessages";
import type { Log } from "./log";
import type { RelayMetrics } from "./metrics";
import type { Spool, SpoolFile } from "./spool";
import { type IngestResult, WorkerError } from "./workerClient";

export interface ForwarderOptions {
  /** A batch is posted when it holds this many records… */
  batchSize: number;
  /** …or when its first record has waited this long. */
  batchDelayMs: number;
  /** Records held in memory at most; beyond, the oldest batches go to the spool. */
  maxQueuedRecords: number;
  maxInFlight: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

/** A batch in memory, or one read back from the spool (then `file` names it). */
interface Batch {
  sessions?: SessionRecords[];
  file?: SpoolFile;
  /** Records in the batch. */
  size: number;
}

/**
 * Posts accepted records to the worker in batches. Nothing accepted is lost: a failed post is retried
 * with exponential backoff and jitter (one probe at a time while the worker fails), memory is bounded
 * by spilling the oldest batches to the on-disk spool, the spool is drained once posts succeed, and
 * close() spools whatever it could not post. Posts are idempotent, so a batch sent twice is harmless.
 */
export class Forwarder {
  /** The batch being filled, by session. */
  private pending = new Map<string, SessionRecords>();
  private pendingSize = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly waiting: Batch[] = [];
  private waitingRecords = 0;
  private readonly inFlight = new Set<Batch>();
  private inFlightRecords = 0;
  private readonly spoolWrites = new Set<Promise<unknown>>();
  private consecutiveFailures = 0;
  private pausedUntil = 0;
  private resumeTimer: NodeJS.Timeout | undefined;
  private preferSpool = false;
  private closing = false;

  constructor(
    private readonly post: (sessions: SessionRecords[]) => Promise<IngestResult>,
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

  /** Starts posting: spooled batches from an earlier run go out as soon as the worker answers. */
  start(): void {
    if (this.spool.batches > 0) {
      this.log.info("draining spool", { batches: this.spool.batches, records: this.spool.records });
    }
    this.pump();
  }

  /** Queues a record; `datagram` names its datagram, so the worker stores it once however it arrives. */
  enqueue(flightId: string, sessionId: string, row: RecordRow, datagram: string): void {
    const session = this.pending.get(sessionId);
    if (session) {
      session.records.push(row);
      session.datagrams!.push(datagram);
    } else {
      this.pending.set(sessionId, {
        flight_id: flightId,
        session_id: sessionId,
        records: [row],
        datagrams: [datagram],
      });
    }
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
      if (!batch.sessions) continue;
      if (this.spool.writeSync(batch.sessions, batch.size)) spooled += batch.size;
      else this.metrics.recordsDropped.inc({ reason: "spool_full" }, batch.size);
    }
    this.waiting.length = 0;
    this.log.info("forwarder closed", { spooled_records: spooled, spool_batches: this.spool.batches });
  }

  private cut(): void {
    clearTimeout(this.timer);
    if (this.pendingSize === 0) return;
    this.waiting.push({ sessions: [...this.pending.values()], size: this.pendingSize });
    this.waitingRecords += this.pendingSize;
    this.pending = new Map();
    this.pendingSize = 0;
    this.spillOverflow();
    this.pump();
  }

  /** Keeps memory bounded: the oldest waiting batches move to the spool. */
  private spillOverflow(): void {
    while (this.queuedRecords > this.options.maxQueuedRecords && this.waiting.length > 0) {
      const batch = this.waiting.shift()!;
      this.waitingRecords -= batch.size;
      const write = this.spool
        .write(batch.sessions!, batch.size)
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
      if (batch) this.waitingRecords -= batch.size;
      return batch;
    };
    return this.preferSpool ? (fromSpool() ?? fromMemory()) : (fromMemory() ?? fromSpool());
  }

  private async send(batch: Batch): Promise<void> {
    this.inFlight.add(batch);
    if (batch.sessions) this.inFlightRecords += batch.size;
    try {
      const sessions = batch.sessions ?? (await this.readSpooled(batch.file!));
      if (!sessions) return;
      const result = await this.post(sessions);
      this.settle(batch);
      this.succeeded(sessions, result);
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
    if (this.inFlight.delete(batch) && batch.sessions) this.inFlightRecords -= batch.size;
  }

  private async readSpooled(file: SpoolFile): Promise<SessionRecords[] | undefined> {
    try {
      return await this.spool.read(file);
    } catch (err) {
      this.log.error("unreadable spool file set aside", { file: file.name, error: String(err) });
      this.metrics.recordsDropped.inc({ reason: "spool_unreadable" }, file.records);
      await this.spool.quarantine(file);
      return undefined;
    }
  }

  private succeeded(sessions: SessionRecords[], result: IngestResult): void {
    if (this.consecutiveFailures > 0)
      this.log.info("worker reachable again", { after_failures: this.consecutiveFailures });
    this.consecutiveFailures = 0;
    this.metrics.recordsForwarded.inc(undefined, result.stored + result.duplicates);
    // The batch's first row is its oldest record; rows carry their received_at (item 4).
    const firstReceivedAt = sessions[0]?.records[0]?.[4];
    if (firstReceivedAt !== undefined)
      this.metrics.batchLatency.observe((Date.now() - firstReceivedAt) / 1000);
    if (result.refused.length === 0) return;
    const refusedSessions = new Set(result.refused.map((r) => r.session_id));
    for (const r of result.refused) this.metrics.recordsDropped.inc({ reason: r.reason }, r.records);
    this.onRefused(
      new Set(sessions.filter((s) => refusedSessions.has(s.session_id)).map((s) => s.flight_id)),
    );
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
      this.spillOverflow();
    }
  }
}
