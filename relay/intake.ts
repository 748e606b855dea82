import {
  AES_256_CBC,
  CIPHER_BLOCK_BYTES,
  FLIGHT_ID_LENGTH_OFFSET,
  FLIGHT_ID_OFFSET,
  type FramingError,
  ISSUED_FLIGHT_ID,
  IV_BYTES,
  RECORD_HEADER_BYTES,
  SERIAL_OFFSET,
  validFraming,
} from "../proto/datagram";
import type { RecordRow } from "../proto/ingest";
import type { TelemetrySchema } from "../proto/messages";
import { type KeyCache, type KeyEntry, KeyUnavailable } from "./keyCache";
import type { Log } from "./log";
import type { RelayMetrics } from "./metrics";
import type { SourceFailures } from "./rateLimit";
import { RecordDecoder } from "./recordDecoder";
import type { SessionGuards } from "./sessionGuard";

/** Datagrams held at most while their flight's key is looked up; beyond, they are dropped at once. */
const MAX_WAITING_FOR_KEY = 10_000;
const noop = () => {};

/**
 * Drops that count against the source address's failure budget. A flight without a session counts
 * only when the worker had to be asked (a cached answer costs nothing, and a drone that keeps sending
 * after end-comm behind a shared address must not use up its neighbours' budget).
 */
const FAILURES = new Set([
  "truncated",
  "bad_flight_id_length",
  "bad_flight_id",
  "unsupported_encryption",
  "bad_ciphertext_length",
  "decrypt_failed",
  "bad_payload_framing",
  "replayed",
]);

export interface IntakeParts {
  schema: TelemetrySchema;
  /** Flight ids worth a key look-up (ISSUED_FLIGHT_ID unless configured otherwise). */
  flightIds?: RegExp;
  keys: KeyCache;
  /** Failures per source address: a source over its budget may not make the relay look keys up. */
  sources: SourceFailures;
  /** Replay memory and rate limit per session. */
  guards: SessionGuards;
  /**
   * Queues one record; bytes `start` to `end` of `datagram` (its last ciphertext block) name its
   * datagram for the worker's idempotency, as their base64. The row and the bytes are reused for the
   * next record: copy what you keep.
   */
  forward: (
    flightId: string,
    sessionId: string,
    row: RecordRow,
    datagram: Uint8Array,
    start: number,
    end: number,
  ) => void;
  metrics: RelayMetrics;
  log: Log;
}

/**
 * Turns datagrams into records: framing and flight id shape, the flight's session key (looked up once,
 * then cached; a failure looks the key up again once: the session may have rotated), the session's
 * replay memory, decryption, the session's rate limit, then each record decoded and range-checked.
 * Valid traffic is limited only per session; per source address only failures are (see
 * SourceFailures). Every drop is counted by reason; nothing a datagram contains can make handle() throw.
 */
/** A datagram's parts (as offsets into it: no views, no copies), once its framing checked out. */
interface Framed {
  bytes: Buffer;
  serial: number;
  flightId: string;
  ivStart: number;
}

export class Intake {
  private waitingForKey = 0;
  private readonly decoder: RecordDecoder;
  /** The datagram being handled, parsed into this one object (copied only to wait for a look-up). */
  private readonly framed: Framed = { bytes: Buffer.alloc(0), serial: 0, flightId: "", ivStart: 0 };
  /** The last flight id seen, as bytes and as the string: a flight's datagrams mostly come in runs. */
  private lastIdBytes = Buffer.alloc(0);
  private lastId = "";

  constructor(private readonly parts: IntakeParts) {
    this.decoder = new RecordDecoder(parts.schema);
  }

  handle(datagram: Buffer, source: string): void {
    this.parts.metrics.datagramsReceived.inc();
    const now = Date.now();
    // The same as settle(), without a closure per datagram on this hot path.
    try {
      const dropped = this.receive(datagram, source, now);
      if (dropped) this.drop(dropped, source, now, FAILURES.has(dropped));
    } catch (err) {
      this.failed(err);
    }
  }

  /** Sessions with replay memory, for the metrics. */
  get sessions(): number {
    return this.parts.guards.size;
  }

  private drop(reason: string, source: string, now: number, charge: boolean): void {
    this.parts.metrics.datagramsDropped.inc({ reason });
    if (charge) this.parts.sources.charge(source, now);
  }

  /** Runs one step of the pipeline after a look-up; counts the drop it names, or the error it throws. */
  private settle(source: string, step: () => string | undefined): void {
    try {
      const dropped = step();
      const now = Date.now();
      // The worker was asked here, so a flight without a session counts as a failure too.
      if (dropped) this.drop(dropped, source, now, FAILURES.has(dropped) || dropped === "unknown_flight");
    } catch (err) {
      this.failed(err);
    }
  }

  private failed(err: unknown): void {
    this.parts.metrics.datagramsDropped.inc({ reason: "internal_error" });
    this.parts.log.error("datagram handling failed", { error: String((err as Error)?.stack ?? err) });
  }

  /**
   * Checks a datagram's framing as parseDatagram (proto/datagram.ts) does, into `this.framed` rather
   * than a new object with views; names what is wrong otherwise.
   */
  private frame(datagram: Buffer): FramingError | undefined {
    if (datagram.length < FLIGHT_ID_OFFSET) return "truncated";
    const idEnd = FLIGHT_ID_OFFSET + datagram[FLIGHT_ID_LENGTH_OFFSET]!;
    if (idEnd === FLIGHT_ID_OFFSET || idEnd > datagram.length) return "bad_flight_id_length";
    const ivStart = idEnd + 1;
    if (ivStart + IV_BYTES > datagram.length) return "truncated";
    if (datagram[idEnd] !== AES_256_CBC) return "unsupported_encryption";
    const length = datagram.length - ivStart - IV_BYTES;
    if (length === 0 || length % CIPHER_BLOCK_BYTES !== 0) return "bad_ciphertext_length";
    const framed = this.framed;
    framed.bytes = datagram;
    framed.serial = datagram.readUInt32BE(SERIAL_OFFSET);
    framed.ivStart = ivStart;
    const last = this.lastIdBytes;
    if (
      last.length !== idEnd - FLIGHT_ID_OFFSET ||
      datagram.compare(last, 0, last.length, FLIGHT_ID_OFFSET, idEnd) !== 0
    ) {
      this.lastIdBytes = Buffer.from(datagram.subarray(FLIGHT_ID_OFFSET, idEnd));
      this.lastId = datagram.toString("utf8", FLIGHT_ID_OFFSET, idEnd);
    }
    framed.flightId = this.lastId;
    return undefined;
  }

  /** Each step returns why the datagram was dropped, or undefined when it went on (maybe later). */
  private receive(datagram: Buffer, source: string, now: number): string | undefined {
    const failure = this.frame(datagram);
    if (failure) return failure;
    const framed = this.framed;
    const entry = this.parts.keys.peek(framed.flightId, now);
    if (entry) return this.open(framed, source, entry, now, true);
    if (!(this.parts.flightIds ?? ISSUED_FLIGHT_ID).test(framed.flightId)) return "bad_flight_id";
    // A source that has used up its failure budget may not make the relay ask the worker; joining a
    // look-up under way costs nothing.
    if (!this.mayLookUp(framed.flightId, source, now)) return "rate_limited";
    const held = { ...framed };
    return this.afterLookUp(() => this.parts.keys.load(held.flightId, now), held, source, "key_unavailable");
  }

  private open(
    datagram: Framed,
    source: string,
    entry: KeyEntry,
    now: number,
    mayRefetch: boolean,
  ): string | undefined {
    const session = entry.session;
    if (!session) return "unknown_flight";
    const { guards } = this.parts;
    const guard = guards.get(session.id, now);
    // The last ciphertext block names the datagram (see sessionGuard.ts); 64 bits of it are remembered.
    const { bytes } = datagram;
    const cipherStart = datagram.ivStart + IV_BYTES;
    const end = bytes.length;
    const last = end - CIPHER_BLOCK_BYTES;
    const hi = bytes.readUInt32LE(last);
    const lo = bytes.readUInt32LE(last + 4);
    if (guards.seen(guard, hi, lo)) return "replayed";
    const payload = session.key.decryptAt(bytes, datagram.ivStart, cipherStart, end);
    if (!payload || !validFraming(payload)) {
      const failure = payload ? "bad_payload_framing" : "decrypt_failed";
      if (!mayRefetch || !this.mayLookUp(datagram.flightId, source, now)) return failure;
      const previous = session.id;
      const held = datagram === this.framed ? { ...datagram } : datagram;
      return this.afterLookUp(
        () => this.parts.keys.refetch(held.flightId, now),
        held,
        source,
        failure,
        (fresh) => fresh.session?.id !== previous,
      );
    }
    if (!guard.take(now)) return "session_rate_limited";
    guards.remember(guard, hi, lo);

    const { metrics, forward } = this.parts;
    metrics.datagramsAccepted.inc();
    // Records straight from the payload into a reused row (framing checked above).
    let index = 0;
    for (let offset = 0; offset < payload.length; index++) {
      const typeId = payload.readUInt16BE(offset);
      const start = offset + RECORD_HEADER_BYTES;
      offset = start + payload.readUInt16BE(offset + 2);
      const row = this.decoder.decode(typeId, payload, start, offset, datagram.serial, index, now);
      if (typeof row === "string") {
        metrics.recordsDropped.inc({ reason: row });
        continue;
      }
      metrics.recordsAccepted.inc();
      forward(datagram.flightId, session.id, row, bytes, last, end);
    }
    return undefined;
  }

  private mayLookUp(flightId: string, source: string, now: number): boolean {
    return this.parts.keys.isLoading(flightId) || this.parts.sources.mayLookUp(source, now);
  }

  /**
   * Holds the datagram until its flight's key is looked up, then opens it with what was found
   * (`worthTrying` tells whether that can change the outcome); `failure` names the drop otherwise.
   */
  private afterLookUp(
    lookUp: () => Promise<KeyEntry>,
    datagram: Framed,
    source: string,
    failure: string,
    worthTrying: (entry: KeyEntry) => boolean = () => true,
  ): string | undefined {
    if (this.waitingForKey >= MAX_WAITING_FOR_KEY) return failure;
    this.waitingForKey++;
    const done = this.parts.keys.isLoading(datagram.flightId) ? noop : this.parts.sources.lookUp(source);
    lookUp()
      .finally(() => {
        this.waitingForKey--;
        done();
      })
      .then(
        (entry) =>
          this.settle(source, () =>
            worthTrying(entry) ? this.open(datagram, source, entry, Date.now(), false) : failure,
          ),
        (err) =>
          this.settle(source, () =>
            // A first look-up names why it failed; a refetch keeps the datagram's own failure.
            failure === "key_unavailable" && err instanceof KeyUnavailable ? err.reason : failure,
          ),
      );
    return undefined;
  }
}
