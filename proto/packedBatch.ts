import type { RecordRow, SessionRecords } from "./ingest";
import { type RecordType, recordKinds } from "./records";

/**
 * The relay's posts of decoded records as bytes rather than JSON text. Writing a fraction as JSON costs
 * the relay a shortest-round-trip decimal conversion per value (most of its CPU per datagram under a
 * flood); here each value is its 8 bytes, exact by construction. The worker unpacks a batch into the
 * same SessionRecords it validates for a JSON post, so both carry one contract. Little-endian:
 *
 *   batch   := "WSR" 0x01, session*
 *   session := u8 n, flight_id (n bytes UTF-8), u8 m, session_id (m bytes UTF-8), u32 records, record*
 *   record  := u32 serial, u16 index, u8 type id, u8 k, f64 timestamp, f64 received_at,
 *              datagram identity (k bytes), f64 per field of the type (records.ts order)
 */

/** The Content-Type of a packed batch. */
export const PACKED_BATCH_TYPE = "application/vnd.windsock.records";

const MAGIC = [0x57, 0x53, 0x52, 0x01] as const;
const SESSION_HEADER_BYTES = 1 + 1 + 4;
const RECORD_HEADER_BYTES = 4 + 2 + 1 + 1 + 8 + 8;

/** True when `bytes` start like a packed batch (a JSON batch starts with "["). */
export function isPackedBatch(bytes: Uint8Array): boolean {
  return MAGIC.every((byte, i) => bytes[i] === byte);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Copies up to this many bytes go byte by byte. */
const SHORT_COPY = 64;

/** A growable little-endian byte buffer, reused from batch to batch by the relay. */
export class ByteWriter {
  private bytes: Uint8Array;
  private view: DataView;
  /** Bytes written so far. */
  length = 0;

  constructor(capacity = 1024) {
    this.bytes = new Uint8Array(capacity);
    this.view = new DataView(this.bytes.buffer);
  }

  /** Bytes it can hold before it grows. */
  get capacity(): number {
    return this.bytes.length;
  }

  /** Starts over, keeping the memory. */
  reset(): void {
    this.length = 0;
  }

  /** What was written, as a view (valid until the next write or reset). */
  written(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  u8(value: number): void {
    this.room(1);
    this.bytes[this.length++] = value;
  }

  u16(value: number): void {
    this.room(2);
    this.view.setUint16(this.length, value, true);
    this.length += 2;
  }

  u32(value: number): void {
    this.room(4);
    this.view.setUint32(this.length, value, true);
    this.length += 4;
  }

  f64(value: number): void {
    this.room(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  /** Bytes `start` to `end` of `source`. */
  copy(source: Uint8Array, start = 0, end = source.length): void {
    const count = end - start;
    this.room(count);
    // A record's datagram identity is 16 bytes: a loop beats making a view to set() from.
    if (count <= SHORT_COPY) {
      const { bytes, length } = this;
      for (let i = 0; i < count; i++) bytes[length + i] = source[start + i]!;
    } else this.bytes.set(source.subarray(start, end), this.length);
    this.length += count;
  }

  /** A string's UTF-8 bytes after one byte of their length (at most 255). */
  shortText(text: string): void {
    const utf8 = encoder.encode(text);
    if (utf8.length > 255) throw new RangeError(`"${text.slice(0, 40)}…" is longer than 255 bytes`);
    this.u8(utf8.length);
    this.copy(utf8);
  }

  private room(needed: number): void {
    if (this.length + needed <= this.bytes.length) return;
    const bigger = new Uint8Array(Math.max(this.bytes.length * 2, this.length + needed));
    bigger.set(this.bytes.subarray(0, this.length));
    this.bytes = bigger;
    this.view = new DataView(bigger.buffer);
  }
}

const typeIds = new Map<string, number>([...recordKinds.byName].map(([name, kind]) => [name, kind.id]));

/** Starts a batch. */
export function packBatchHeader(out: ByteWriter): void {
  for (const byte of MAGIC) out.u8(byte);
}

/** One session's part of a batch: its ids and how many records follow (then the records, packed). */
export function packSession(out: ByteWriter, flightId: string, sessionId: string, records: number): void {
  out.shortText(flightId);
  out.shortText(sessionId);
  out.u32(records);
}

/**
 * One record (a row as the relay decodes it) with its datagram's identity, bytes `start` to `end` of
 * `datagram` (at most 255).
 */
export function packRecord(
  out: ByteWriter,
  row: RecordRow,
  datagram: Uint8Array,
  start = 0,
  end = datagram.length,
): void {
  out.u32(row[0]);
  out.u16(row[1]);
  out.u8(typeIds.get(row[2])!);
  out.u8(end - start);
  out.f64(row[3]);
  out.f64(row[4]);
  out.copy(datagram, start, end);
  for (let i = 5; i < row.length; i++) out.f64(row[i] as number);
}

/** A batch that cannot be unpacked: `message` says where and why. */
export class PackedBatchError extends Error {}

/**
 * A packed batch as the SessionRecords a JSON post carries (datagram identities as base64), for the
 * same validation. Throws PackedBatchError when the bytes do not follow the layout.
 */
export function unpackBatch(bytes: Uint8Array): SessionRecords[] {
  if (!isPackedBatch(bytes)) throw new PackedBatchError("not a packed batch (no WSR1 header)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = MAGIC.length;
  const need = (count: number, what: string) => {
    if (at + count > bytes.length) throw new PackedBatchError(`truncated at byte ${at}: ${what}`);
  };
  const shortText = (what: string) => {
    need(1, what);
    const length = bytes[at++]!;
    need(length, what);
    const start = at;
    at += length;
    try {
      return decoder.decode(bytes.subarray(start, at));
    } catch {
      throw new PackedBatchError(`${what} at byte ${start} is not UTF-8`);
    }
  };
  const sessions: SessionRecords[] = [];
  while (at < bytes.length) {
    const s = sessions.length;
    const flight_id = shortText(`session ${s} flight_id`);
    const session_id = shortText(`session ${s} session_id`);
    need(SESSION_HEADER_BYTES - 2, `session ${s} record count`);
    const count = view.getUint32(at, true);
    at += 4;
    const records: RecordRow[] = [];
    const datagrams: string[] = [];
    for (let r = 0; r < count; r++) {
      const where = `session ${s} record ${r}`;
      need(RECORD_HEADER_BYTES, where);
      const serial = view.getUint32(at, true);
      const index = view.getUint16(at + 4, true);
      const kind = recordKinds.byId.get(bytes[at + 6]!);
      if (!kind) throw new PackedBatchError(`${where}: unknown type id ${bytes[at + 6]}`);
      const identity = bytes[at + 7]!;
      const timestamp = view.getFloat64(at + 8, true);
      const receivedAt = view.getFloat64(at + 16, true);
      // What IngestRow asks of received_at, which the format alone does not hold.
      if (!Number.isSafeInteger(receivedAt) || receivedAt < 0)
        throw new PackedBatchError(`${where}: received_at at byte ${at + 16} is not whole milliseconds`);
      at += RECORD_HEADER_BYTES;
      need(identity + 8 * kind.fields.length, where);
      datagrams.push(base64(bytes, at, at + identity));
      at += identity;
      const row: RecordRow = [serial, index, kind.name as RecordType, timestamp, receivedAt];
      for (let f = 0; f < kind.fields.length; f++, at += 8) row.push(view.getFloat64(at, true));
      records.push(row);
    }
    sessions.push({ flight_id, session_id, records, datagrams });
  }
  return sessions;
}

function base64(bytes: Uint8Array, start: number, end: number): string {
  let binary = "";
  for (let i = start; i < end; i++) binary += String.fromCharCode(bytes[i]!);
  return btoa(binary);
}
