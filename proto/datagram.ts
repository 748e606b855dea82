import { createCipheriv, randomBytes } from "node:crypto";
import { recordKinds } from "./records";

/**
 * The telemetry datagram of spec 4.6, all integers big endian:
 * serial u32 | flight id length u8 | flight id | encryption type u8 | IV 16 | ciphertext.
 * The decrypted payload is a run of records: type u16 | length u16 | protobuf message.
 * Clients (and tools/tests) build datagrams with buildDatagram; the relay reads them with parseDatagram.
 */

export const SERIAL_OFFSET = 0;
export const FLIGHT_ID_LENGTH_OFFSET = 4;
export const FLIGHT_ID_OFFSET = 5;
export const MAX_FLIGHT_ID_BYTES = 255;
/** The encryption type byte of AES-256-CBC with PKCS#7 padding, the only one. */
export const AES_256_CBC = 1;
export const KEY_BYTES = 32;
export const IV_BYTES = 16;
export const CIPHER_BLOCK_BYTES = 16;
/** type u16 | length u16 in front of each record of the payload. */
export const RECORD_HEADER_BYTES = 4;

/**
 * The shape of the flight ids the worker issues (worker/lib/ids.ts): `flight|` and 22 base62
 * characters. The wire takes any 1..255 bytes; a relay drops other ids before they cost a key look-up.
 */
export const ISSUED_FLIGHT_ID = /^flight\|[0-9A-Za-z]{22}$/;

export interface Datagram {
  serial: number;
  flightId: string;
  iv: Buffer;
  ciphertext: Buffer;
}

export type FramingError =
  | "truncated"
  | "bad_flight_id_length"
  | "unsupported_encryption"
  | "bad_ciphertext_length";

/** Splits a datagram into its parts (views, no copies), or names what is wrong with its framing. */
export function parseDatagram(datagram: Buffer): Datagram | FramingError {
  if (datagram.length < FLIGHT_ID_OFFSET) return "truncated";
  const serial = datagram.readUInt32BE(SERIAL_OFFSET);
  const idEnd = FLIGHT_ID_OFFSET + datagram[FLIGHT_ID_LENGTH_OFFSET]!;
  if (idEnd === FLIGHT_ID_OFFSET || idEnd > datagram.length) return "bad_flight_id_length";
  const ivStart = idEnd + 1;
  if (ivStart + IV_BYTES > datagram.length) return "truncated";
  if (datagram[idEnd] !== AES_256_CBC) return "unsupported_encryption";
  const ciphertext = datagram.subarray(ivStart + IV_BYTES);
  if (ciphertext.length === 0 || ciphertext.length % CIPHER_BLOCK_BYTES !== 0) return "bad_ciphertext_length";
  return {
    serial,
    flightId: datagram.toString("utf8", FLIGHT_ID_OFFSET, idEnd),
    iv: datagram.subarray(ivStart, ivStart + IV_BYTES),
    ciphertext,
  };
}

/** A datagram as a client sends it: the payload encrypted under the session key, with a fresh IV unless given. */
export function buildDatagram(options: {
  serial: number;
  flightId: string;
  key: Buffer;
  payload: Buffer;
  iv?: Buffer;
}): Buffer {
  const iv = options.iv ?? randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-cbc", options.key, iv);
  const ciphertext = Buffer.concat([cipher.update(options.payload), cipher.final()]);
  const id = Buffer.from(options.flightId);
  if (id.length === 0 || id.length > MAX_FLIGHT_ID_BYTES)
    throw new RangeError(`a flight id is 1 to ${MAX_FLIGHT_ID_BYTES} bytes`);
  const head = Buffer.alloc(FLIGHT_ID_OFFSET);
  head.writeUInt32BE(options.serial, SERIAL_OFFSET);
  head.writeUInt8(id.length, FLIGHT_ID_LENGTH_OFFSET);
  return Buffer.concat([head, id, Buffer.from([AES_256_CBC]), iv, ciphertext]);
}

export interface RawRecord {
  typeId: number;
  bytes: Uint8Array;
}

/** Records as a payload: each behind its header (type u16 | length u16). */
export function frameRecords(records: readonly RawRecord[]): Buffer {
  const parts: Uint8Array[] = [];
  for (const { typeId, bytes } of records) {
    const header = Buffer.alloc(RECORD_HEADER_BYTES);
    header.writeUInt16BE(typeId, 0);
    header.writeUInt16BE(bytes.length, 2);
    parts.push(header, bytes);
  }
  return Buffer.concat(parts);
}

/** Whether a decrypted payload is a run of whole records (what splitRecords checks, without the array). */
export function validFraming(payload: Buffer, start = 0, end = payload.length): boolean {
  let offset = start;
  while (offset < end) {
    if (offset + RECORD_HEADER_BYTES > end) return false;
    offset += RECORD_HEADER_BYTES + payload.readUInt16BE(offset + 2);
    if (offset > end) return false;
  }
  return true;
}

/** The records of a decrypted payload; undefined when a header claims more bytes than remain. */
export function splitRecords(payload: Buffer): RawRecord[] | undefined {
  if (!validFraming(payload)) return undefined;
  const records: RawRecord[] = [];
  for (let offset = 0; offset < payload.length; ) {
    const start = offset + RECORD_HEADER_BYTES;
    const end = start + payload.readUInt16BE(offset + 2);
    records.push({ typeId: payload.readUInt16BE(offset), bytes: payload.subarray(start, end) });
    offset = end;
  }
  return records;
}

const recordTypeRows = [...recordKinds.byId.values()]
  .map(
    (kind) =>
      `| \`${kind.id}\` | \`${kind.name}\` | \`timestamp\`, ${kind.fields.map((f) => `\`${f}\``).join(", ")} |`,
  )
  .join("\n");

/** The byte layout above for people (README, OpenAPI description); the record types come from records.ts. */
export const datagramLayoutMarkdown = `## Telemetry datagrams (UDP, spec 4.6)

After \`POST /flight/v2/{flight_id}/start-comm\` a flight streams telemetry to the relay on UDP port
16060 (\`TELEMETRY_PORT\` locally). One datagram, all integers big endian:

| Offset | Bytes | Type | Field | Rule |
|---|---|---|---|---|
| ${SERIAL_OFFSET} | 4 | uint32 | serial | 1 for the first datagram of a session, then +1 per datagram; stored with each record, but in the clear, so it decides nothing (see below) |
| ${FLIGHT_ID_LENGTH_OFFSET} | 1 | uint8 | flight id length *n* | 1 to ${MAX_FLIGHT_ID_BYTES} |
| ${FLIGHT_ID_OFFSET} | *n* | UTF-8 | flight id | the \`flight_id\` of start-comm |
| ${FLIGHT_ID_OFFSET} + *n* | 1 | uint8 | encryption type | \`${AES_256_CBC}\` = AES-256-CBC, the only one |
| ${FLIGHT_ID_OFFSET + 1} + *n* | ${IV_BYTES} | bytes | IV | fresh for every datagram |
| ${FLIGHT_ID_OFFSET + 1 + IV_BYTES} + *n* | rest | bytes | ciphertext | AES-256-CBC with PKCS#7 padding: a multiple of ${CIPHER_BLOCK_BYTES} bytes, at least one block; keep the whole datagram under about 1200 bytes (no IP fragmentation) |

The key is the base64-decoded \`key\` (${KEY_BYTES} bytes) that start-comm returned; each start-comm
opens a new session with a new key, and serials start again at 1. Replays are refused by the
IV and ciphertext, not the serial: a keyed hash of them (SipHash-2-4 under a key derived from the
session key) names the datagram, and each record is stored once
per session, datagram and position in it, so a datagram resent under any serial stores nothing new.
Record times must lie from 1 h before start-comm to 5 min after the relay's clock; others, and empty
records, are dropped. The decrypted payload is a run of records, each:

| Bytes | Type | Field |
|---|---|---|
| 2 | uint16 | message type (below) |
| 2 | uint16 | length of the message in bytes |
| length | bytes | the protobuf message (\`proto/telemetry.proto\`, package \`windsock.telemetry\`) |

| Type | Record | Fields (protobuf field numbers 1, 2, …) |
|---|---|---|
${recordTypeRows}

\`timestamp\` is UNIX time in milliseconds (uint64); latitude and longitude are WGS84 degrees (double),
the other fields float: meters, m/s in the North-East-Down frame, degrees, hPa. Records of any types
may share a datagram; a record of an unknown type is skipped, one out of range (latitude beyond
±90, yaw outside 0..360, …) is dropped, and a datagram that fails to decrypt or whose records overrun
the payload is dropped whole. The relay sends no reply; read what arrived with
\`GET /flight/v2/{flight_id}/telemetry\`. \`proto/datagram.ts\` builds (\`buildDatagram\`) and parses
(\`parseDatagram\`) such datagrams, \`proto/messages.ts\` encodes their records.
`;
