import {
  decodeMessage,
  invalidField,
  type RecordRow,
  type TelemetrySchema,
} from "../worker/domain/telemetryMessages";
import { type Datagram, parseDatagram, type RawRecord, splitRecords } from "./datagram";
import type { KeyCache, KeyEntry } from "./keyCache";
import type { Log } from "./log";
import type { RelayMetrics } from "./metrics";
import type { SourceRateLimit } from "./rateLimit";
import { ReplayWindow } from "./replayWindow";
import type { Session } from "./workerClient";

/** Replay windows kept at most; the least recently used session's goes first. */
const MAX_WINDOWS = 100_000;
/** Datagrams held at most while their flight's key is looked up; beyond, they are dropped at once. */
const MAX_WAITING_FOR_KEY = 10_000;

export interface IntakeParts {
  schema: TelemetrySchema;
  keys: KeyCache;
  limiter: SourceRateLimit;
  forward: (flightId: string, sessionId: string, row: RecordRow) => void;
  metrics: RelayMetrics;
  log: Log;
}

/**
 * Turns datagrams into records: rate limit per source, framing, the flight's session key (looked up
 * once, then cached), decryption (a failure looks the key up again once: the session may have rotated),
 * the session's replay window, then each record decoded and range-checked. Every drop is counted by
 * reason; nothing a datagram contains can make handle() throw.
 */
export class Intake {
  private readonly windows = new Map<string, ReplayWindow>();
  private lastWindow: { sessionId: string; window: ReplayWindow } | undefined;
  private waitingForKey = 0;

  constructor(private readonly parts: IntakeParts) {}

  handle(datagram: Buffer, source: string): void {
    this.parts.metrics.datagramsReceived.inc();
    // The same as settle(), without a closure per datagram on this hot path.
    try {
      const dropped = this.receive(datagram, source, Date.now());
      if (dropped) this.parts.metrics.datagramsDropped.inc({ reason: dropped });
    } catch (err) {
      this.failed(err);
    }
  }

  /** Replay windows held, for the metrics. */
  get sessions(): number {
    return this.windows.size;
  }

  /** Runs one step of the pipeline; counts the drop it names, or the error it throws. */
  private settle(step: () => string | undefined): void {
    try {
      const dropped = step();
      if (dropped) this.parts.metrics.datagramsDropped.inc({ reason: dropped });
    } catch (err) {
      this.failed(err);
    }
  }

  private failed(err: unknown): void {
    this.parts.metrics.datagramsDropped.inc({ reason: "internal_error" });
    this.parts.log.error("datagram handling failed", { error: String((err as Error)?.stack ?? err) });
  }

  /** Each step returns why the datagram was dropped, or undefined when it went on (maybe later). */
  private receive(datagram: Buffer, source: string, now: number): string | undefined {
    if (!this.parts.limiter.take(source, now)) return "rate_limited";
    const parsed = parseDatagram(datagram);
    if (typeof parsed === "string") return parsed;
    const entry = this.parts.keys.peek(parsed.flightId, now);
    if (entry) return this.open(parsed, entry, now, true);
    return this.afterLookUp(this.parts.keys.load(parsed.flightId, now), parsed, "key_unavailable");
  }

  private open(datagram: Datagram, entry: KeyEntry, now: number, mayRefetch: boolean): string | undefined {
    if (!entry.session) return "unknown_flight";
    const payload = entry.session.key.decrypt(datagram.iv, datagram.ciphertext);
    const records = payload && splitRecords(payload);
    if (records) return this.accept(datagram, entry.session, records, now);
    const failure = payload ? "bad_payload_framing" : "decrypt_failed";
    if (!mayRefetch) return failure;
    const previous = entry.session.id;
    const refetched = this.parts.keys.refetch(datagram.flightId, now);
    return this.afterLookUp(refetched, datagram, failure, (fresh) => fresh.session?.id !== previous);
  }

  /**
   * Holds the datagram until its flight's key is looked up, then opens it with what was found
   * (`worthTrying` tells whether that can change the outcome); `failure` names the drop otherwise.
   */
  private afterLookUp(
    lookUp: Promise<KeyEntry>,
    datagram: Datagram,
    failure: string,
    worthTrying: (entry: KeyEntry) => boolean = () => true,
  ): string | undefined {
    if (this.waitingForKey >= MAX_WAITING_FOR_KEY) {
      lookUp.catch(() => {});
      return failure;
    }
    this.waitingForKey++;
    lookUp
      .finally(() => this.waitingForKey--)
      .then(
        (entry) =>
          this.settle(() => (worthTrying(entry) ? this.open(datagram, entry, Date.now(), false) : failure)),
        () => this.settle(() => failure),
      );
    return undefined;
  }

  private accept(
    datagram: Datagram,
    session: Session,
    records: RawRecord[],
    now: number,
  ): string | undefined {
    const verdict = this.window(session.id).check(datagram.serial);
    if (verdict !== "fresh") return verdict;
    const { metrics, schema } = this.parts;
    metrics.datagramsAccepted.inc();
    for (let index = 0; index < records.length; index++) {
      const raw = records[index]!;
      const kind = schema.byId.get(raw.typeId);
      const message = kind && decodeMessage(kind, raw.bytes);
      if (!kind || !message || invalidField(kind, message)) {
        metrics.recordsDropped.inc({
          reason: !kind ? "unknown_type" : !message ? "malformed" : "out_of_range",
        });
        continue;
      }
      metrics.recordsAccepted.inc();
      const row: RecordRow = [
        datagram.serial,
        index,
        message.type,
        message.timestamp,
        now,
        ...message.values,
      ];
      this.parts.forward(datagram.flightId, session.id, row);
    }
    return undefined;
  }

  private window(sessionId: string): ReplayWindow {
    // Floods come from one session at a time: the last window needs no map work.
    if (this.lastWindow?.sessionId === sessionId) return this.lastWindow.window;
    let window = this.windows.get(sessionId);
    if (window) {
      // Most datagrams come from the few sessions flying now; re-inserting keeps them last to go.
      this.windows.delete(sessionId);
    } else {
      window = new ReplayWindow();
      if (this.windows.size >= MAX_WINDOWS) this.windows.delete(this.windows.keys().next().value!);
    }
    this.windows.set(sessionId, window);
    this.lastWindow = { sessionId, window };
    return window;
  }
}
