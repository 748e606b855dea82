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
import { recordTimeProblem } from "../proto/recordTime";
import { type SessionKey, unchainAt } from "./crypto";
import { datagramIdentity, IDENTITY_BYTES, writeIdentity } from "./datagramIdentity";
import { type KeyCache, type KeyEntry, KeyUnavailable } from "./keyCache";
import type { Log } from "./log";
import type { RelayMetrics } from "./metrics";
import type { SourceFailures } from "./rateLimit";
import { RecordDecoder } from "./recordDecoder";
import type { SessionGuards } from "./sessionGuard";

/** Datagrams held at most while their flight's key is looked up; beyond, they are dropped at once. */
const MAX_WAITING_FOR_KEY = 10_000;
/** …of which one source's line (datagrams waiting for one of its look-ups to give a token back). */
const MAX_WAITING_PER_SOURCE = 5000;
/** Datagrams with a cached key decrypted together at most (see Intake.flush). */
const DECRYPT_BATCH = 256;

/**
 * Drops that count against the source address's failure budget. A flight without a session is paid
 * for by the look-up that found nothing (see SourceFailures): a cached answer costs nothing, and a
 * drone that keeps sending after end-comm behind a shared address must not use up its neighbours'
 * budget.
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
   * Queues one record; bytes `start` to `end` of `datagram` (its identity, datagramIdentity.ts) name its
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
  /** Its identity (datagramIdentity.ts), once computed under `identityBy`'s key: four int32, its own. */
  identity: Int32Array;
  identityBy: SessionKey | undefined;
}

/**
 * The datagram's identity under its session's key (datagramIdentity.ts: keyed, over its IV and
 * ciphertext, so only an unchanged copy under any serial is a replay), computed once per key.
 */
function identityOf(datagram: Framed, key: SessionKey): Int32Array {
  if (datagram.identityBy !== key) {
    datagramIdentity(key.identityKey, datagram.bytes, datagram.ivStart, datagram.identity);
    datagram.identityBy = key;
  }
  return datagram.identity;
}

/** A copy of a datagram's parts that may wait (for a look-up) while the reused objects move on. */
const heldCopy = (datagram: Framed): Framed => ({
  bytes: datagram.bytes,
  serial: datagram.serial,
  flightId: datagram.flightId,
  ivStart: datagram.ivStart,
  identity: Int32Array.from(datagram.identity),
  identityBy: datagram.identityBy,
});

/** A look-up a datagram waits for, as afterLookUp takes it. */
interface PendingLookUp {
  lookUp: () => Promise<KeyEntry>;
  datagram: Framed;
  source: string;
  refused: string;
  failure: string;
  worthTrying: (entry: KeyEntry) => boolean;
}

/** A source's paid look-ups under way, and the look-ups waiting for one of them to give a token back. */
interface SourceLine {
  underWay: number;
  waiting: PendingLookUp[];
}

/** A datagram with a cached key, held until this turn of the event loop ends (see Intake.flush). */
interface Queued extends Framed {
  source: string;
  entry: KeyEntry;
  receivedAt: number;
}

/**
 * Whether bytes `start` to `end` of `bytes` equal `expected`; a loop, as a flight id is a few dozen
 * bytes: Buffer.compare's checks of its arguments cost more than the comparison.
 */
function sameBytes(expected: Uint8Array, bytes: Uint8Array, start: number, end: number): boolean {
  if (expected.length !== end - start) return false;
  for (let i = 0; i < expected.length; i++) if (expected[i] !== bytes[start + i]) return false;
  return true;
}

export class Intake {
  private waitingForKey = 0;
  /** By source, while it has paid look-ups under way (see afterLookUp). */
  private readonly lines = new Map<string, SourceLine>();
  private readonly decoder: RecordDecoder;
  /** Datagrams waiting to be decrypted together, reused slots: `queuedCount` of them are live. */
  private readonly queued: Queued[] = [];
  private queuedCount = 0;
  private flushScheduled = false;
  /** Where a run of datagrams' ciphertexts is put side by side for one cipher call. */
  private scratch = Buffer.alloc(64 * 1024);
  private readonly flushSoon = () => {
    this.flushScheduled = false;
    this.flush();
  };
  /** The datagram being handled, parsed into this one object (copied only to wait for a look-up). */
  private readonly framed: Framed = {
    bytes: Buffer.alloc(0),
    serial: 0,
    flightId: "",
    ivStart: 0,
    identity: new Int32Array(4),
    identityBy: undefined,
  };
  /** The identity's 16 bytes, as forwarded with each record (the forwarder copies them). */
  private readonly identityBytes = new Uint8Array(IDENTITY_BYTES);
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
      if (dropped) this.drop(dropped, source, Date.now(), FAILURES.has(dropped));
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
    framed.identityBy = undefined;
    if (!sameBytes(this.lastIdBytes, datagram, FLIGHT_ID_OFFSET, idEnd)) {
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
    if (entry) return this.queue(framed, source, entry, now);
    if (!(this.parts.flightIds ?? ISSUED_FLIGHT_ID).test(framed.flightId)) return "bad_flight_id";
    const held = heldCopy(framed);
    return this.afterLookUp(
      () => this.parts.keys.load(held.flightId, now),
      held,
      source,
      now,
      "rate_limited",
      "key_unavailable",
    );
  }

  /**
   * Holds a datagram whose key is cached for flush(), which decrypts the datagrams of one turn of the
   * event loop together: a cipher call per datagram was the relay's largest cost per datagram under a
   * flood. A replay the session already remembers is dropped here, before any decryption.
   */
  private queue(framed: Framed, source: string, entry: KeyEntry, now: number): string | undefined {
    const session = entry.session;
    if (!session) return "unknown_flight";
    const { guards } = this.parts;
    const identity = identityOf(framed, session.key);
    if (guards.seen(guards.get(session.id, now), identity[0]!, identity[1]!)) return "replayed";
    let slot = this.queued[this.queuedCount];
    if (slot === undefined) {
      slot = { ...heldCopy(framed), source, entry, receivedAt: now };
      this.queued.push(slot);
    } else {
      slot.bytes = framed.bytes;
      slot.serial = framed.serial;
      slot.flightId = framed.flightId;
      slot.ivStart = framed.ivStart;
      slot.identity.set(identity);
      slot.identityBy = framed.identityBy;
      slot.source = source;
      slot.entry = entry;
      slot.receivedAt = now;
    }
    this.queuedCount++;
    if (this.queuedCount === DECRYPT_BATCH) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.flushSoon);
    }
    return undefined;
  }

  /**
   * Decrypts the held datagrams, a run of one session's datagrams with one cipher call (ECB over all
   * their blocks, the CBC chaining done per datagram), then opens each in arrival order. Runs by itself
   * once per turn of the event loop; the relay calls it once more when it stops.
   */
  flush(): void {
    const count = this.queuedCount;
    this.queuedCount = 0;
    for (let first = 0; first < count; ) {
      const key = this.queued[first]!.entry.session!.key;
      let end = first;
      let bytes = 0;
      for (; end < count && this.queued[end]!.entry.session!.key === key; end++) {
        const q = this.queued[end]!;
        bytes += q.bytes.length - q.ivStart - IV_BYTES;
      }
      if (this.scratch.length < bytes) this.scratch = Buffer.alloc(Math.max(bytes, this.scratch.length * 2));
      let at = 0;
      for (let i = first; i < end; i++) {
        const q = this.queued[i]!;
        at += q.bytes.copy(this.scratch, at, q.ivStart + IV_BYTES);
      }
      const plain = key.decryptBlocks(this.scratch.subarray(0, bytes));
      at = 0;
      for (let i = first; i < end; i++) {
        const q = this.queued[i]!;
        const cipherStart = q.ivStart + IV_BYTES;
        const length = q.bytes.length - cipherStart;
        // The payload stays where it is in `plain`, read by offsets: no view per datagram.
        const payloadEnd = unchainAt(plain, at, length, q.bytes, q.ivStart, cipherStart);
        const payloadStart = at;
        at += length;
        try {
          const payload = payloadEnd < 0 ? undefined : plain;
          const dropped = this.opened(
            q,
            q.source,
            q.entry,
            payload,
            payloadStart,
            payloadEnd,
            q.receivedAt,
            true,
          );
          if (dropped) this.drop(dropped, q.source, q.receivedAt, FAILURES.has(dropped));
        } catch (err) {
          this.failed(err);
        }
      }
      first = end;
    }
  }

  /** One datagram, decrypted on its own (after a key look-up). */
  private open(
    datagram: Framed,
    source: string,
    entry: KeyEntry,
    now: number,
    mayRefetch: boolean,
  ): string | undefined {
    const session = entry.session;
    if (!session) return "unknown_flight";
    const payload = session.key.decryptAt(
      datagram.bytes,
      datagram.ivStart,
      datagram.ivStart + IV_BYTES,
      datagram.bytes.length,
    );
    return this.opened(datagram, source, entry, payload, 0, payload?.length ?? 0, now, mayRefetch);
  }

  /**
   * The rest of a datagram's way once decrypted (`payload` undefined: the padding did not check out):
   * a failure may look the key up again, then the replay memory, the session's rate limit, and its
   * records decoded, checked and forwarded. The replay memory takes the datagram only once at least
   * one of its records went to the worker (whose Durable Object stores it under the same identity):
   * a copy that failed anywhere on the way, or whose records were all dropped, leaves no trace that
   * could make the genuine datagram look like a replay.
   */
  private opened(
    datagram: Framed,
    source: string,
    entry: KeyEntry,
    payload: Buffer | undefined,
    /** Where in `payload` the plaintext lies (a batch's datagrams share one buffer). */
    payloadStart: number,
    payloadEnd: number,
    now: number,
    mayRefetch: boolean,
  ): string | undefined {
    const session = entry.session!;
    const { guards } = this.parts;
    const guard = guards.get(session.id, now);
    // 64 bits of the datagram's identity are remembered (see identityOf).
    const identity = identityOf(datagram, session.key);
    const hi = identity[0]!;
    const lo = identity[1]!;
    // Checked again: a copy may have come in the same batch, or while the key was looked up.
    if (guards.seen(guard, hi, lo)) return "replayed";
    if (!payload || !validFraming(payload, payloadStart, payloadEnd)) {
      const failure = payload ? "bad_payload_framing" : "decrypt_failed";
      if (!mayRefetch) return failure;
      const previous = session.id;
      // The datagram's parts live in a reused object: the look-up keeps its own copy.
      const held = heldCopy(datagram);
      return this.afterLookUp(
        () => this.parts.keys.refetch(held.flightId, now),
        held,
        source,
        now,
        failure,
        failure,
        (fresh) => fresh.session?.id !== previous,
      );
    }
    if (!guard.take(now)) return "session_rate_limited";

    const { metrics, forward } = this.parts;
    metrics.datagramsAccepted.inc();
    // Records straight from the payload into a reused row (framing checked above).
    const identityBytes = this.identityBytes;
    writeIdentity(identity, identityBytes);
    let forwarded = 0;
    let index = 0;
    for (let offset = payloadStart; offset < payloadEnd; index++) {
      const typeId = payload.readUInt16BE(offset);
      const start = offset + RECORD_HEADER_BYTES;
      offset = start + payload.readUInt16BE(offset + 2);
      const row = this.decoder.decode(typeId, payload, start, offset, datagram.serial, index, now);
      const dropped = typeof row === "string" ? row : recordTimeProblem(row[3], session.openedAt, now);
      if (dropped !== undefined) {
        metrics.recordsDropped.inc({ reason: dropped });
        continue;
      }
      metrics.recordsAccepted.inc();
      forward(datagram.flightId, session.id, row as RecordRow, identityBytes, 0, IDENTITY_BYTES);
      forwarded++;
    }
    if (forwarded > 0) guards.remember(guard, hi, lo);
    return undefined;
  }

  /**
   * Holds the datagram until its flight's key is looked up, then opens it with what was found
   * (`worthTrying` tells whether that can change the outcome); `failure` names the drop otherwise.
   * Joining a look-up under way costs nothing; starting one costs the source a token of its failure
   * budget, given back when the look-up found a session worth trying (see SourceFailures). Without a
   * token, the datagram waits in its source's line while the source has look-ups under way (each
   * may give its token back: a fleet's new flights behind one address), and is dropped as `refused`
   * otherwise, or once one of them found nothing (see lookUpDone).
   */
  private afterLookUp(
    lookUp: () => Promise<KeyEntry>,
    datagram: Framed,
    source: string,
    now: number,
    refused: string,
    failure: string,
    worthTrying: (entry: KeyEntry) => boolean = () => true,
  ): string | undefined {
    if (this.waitingForKey >= MAX_WAITING_FOR_KEY) return failure;
    const pending: PendingLookUp = { lookUp, datagram, source, refused, failure, worthTrying };
    if (this.parts.keys.isLoading(datagram.flightId)) {
      this.waitingForKey++;
      this.startLookUp(pending, false);
      return undefined;
    }
    if (this.parts.sources.beginLookUp(source, now)) {
      this.waitingForKey++;
      this.startLookUp(pending, true);
      return undefined;
    }
    const line = this.lines.get(source);
    if (line === undefined || line.underWay === 0 || line.waiting.length >= MAX_WAITING_PER_SOURCE)
      return refused;
    this.waitingForKey++;
    line.waiting.push(pending);
    return undefined;
  }

  /** Runs a look-up (`paid`: with a token of its source's, see afterLookUp) and opens the datagram after. */
  private startLookUp(pending: PendingLookUp, paid: boolean): void {
    const { lookUp, datagram, source, failure, worthTrying } = pending;
    const { sources } = this.parts;
    if (paid) this.lineOf(source).underWay++;
    let found = false;
    lookUp()
      .finally(() => {
        this.waitingForKey--;
      })
      .then(
        (entry) => {
          const useful = entry.session !== null && worthTrying(entry);
          found = useful;
          if (paid && useful) sources.refund(source, Date.now());
          this.settle(source, () => {
            if (useful) return this.open(datagram, source, entry, Date.now(), false);
            return entry.session === null ? "unknown_flight" : failure;
          });
        },
        (err) => {
          const reason = err instanceof KeyUnavailable ? err.reason : "key_unavailable";
          // The global budget refused it before the worker was asked: the source owes nothing.
          if (paid && reason === "lookup_budget") sources.refund(source, Date.now());
          // A first look-up names why it failed; a refetch keeps the datagram's own failure.
          this.settle(source, () => (failure === "key_unavailable" ? reason : failure));
        },
      )
      .finally(() => {
        if (paid) this.lookUpDone(source, found);
      });
  }

  private lineOf(source: string): SourceLine {
    let line = this.lines.get(source);
    if (line === undefined) {
      line = { underWay: 0, waiting: [] };
      this.lines.set(source, line);
    }
    return line;
  }

  /**
   * A paid look-up of the source came back. When it found its session, the line moves on as far as
   * the source's tokens allow; when it found nothing, the source sends failing traffic and what waits
   * is refused at once (held, it would trickle out at the budget's refill rate for minutes).
   */
  private lookUpDone(source: string, found: boolean): void {
    const line = this.lines.get(source)!;
    line.underWay--;
    const { keys, sources } = this.parts;
    const now = Date.now();
    while (found && line.waiting.length > 0) {
      const next = line.waiting[0]!;
      const joins = keys.isLoading(next.datagram.flightId);
      if (!joins && !sources.beginLookUp(source, now)) break;
      line.waiting.shift();
      this.startLookUp(next, !joins);
    }
    if (found && line.underWay > 0) return;
    // Nothing under way could give a token back, or the source's look-ups fail: what waits is refused.
    for (const pending of line.waiting) {
      this.waitingForKey--;
      this.drop(pending.refused, source, now, FAILURES.has(pending.refused));
    }
    line.waiting.length = 0;
    if (line.underWay === 0) this.lines.delete(source);
  }
}
