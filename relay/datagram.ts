/**
 * The datagram of spec 4.6, all big endian: serial u32 | flight id length u8 | flight id |
 * encryption type u8 | IV 16 | AES-256-CBC ciphertext. The plaintext is a run of records:
 * type u16 | length u16 | protobuf bytes.
 */

export const AES_256_CBC = 1;
const IV_BYTES = 16;
const BLOCK_BYTES = 16;
const RECORD_HEADER_BYTES = 4;

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

export interface RawRecord {
  typeId: number;
  bytes: Buffer;
}

/** Splits a datagram into its parts, or names what is wrong with its framing. */
export function parseDatagram(datagram: Buffer): Datagram | FramingError {
  if (datagram.length < 5) return "truncated";
  const serial = datagram.readUInt32BE(0);
  const idLength = datagram[4]!;
  const idEnd = 5 + idLength;
  if (idLength === 0 || idEnd > datagram.length) return "bad_flight_id_length";
  if (idEnd + 1 + IV_BYTES > datagram.length) return "truncated";
  if (datagram[idEnd] !== AES_256_CBC) return "unsupported_encryption";
  const ciphertext = datagram.subarray(idEnd + 1 + IV_BYTES);
  if (ciphertext.length === 0 || ciphertext.length % BLOCK_BYTES !== 0) return "bad_ciphertext_length";
  return {
    serial,
    flightId: datagram.toString("utf8", 5, idEnd),
    iv: datagram.subarray(idEnd + 1, idEnd + 1 + IV_BYTES),
    ciphertext,
  };
}

/**
 * The shape of the flight ids the worker issues (worker/lib/ids.ts): `flight|` and 22 base62
 * characters. A datagram naming anything else cannot belong to a flight the worker knows, so it is
 * dropped before it costs a key look-up.
 */
export const FLIGHT_ID = /^flight\|[0-9A-Za-z]{22}$/;

/** Whether a decrypted payload is a run of whole records (what splitRecords checks, without the array). */
export function validFraming(payload: Buffer): boolean {
  let offset = 0;
  while (offset < payload.length) {
    if (offset + RECORD_HEADER_BYTES > payload.length) return false;
    offset += RECORD_HEADER_BYTES + payload.readUInt16BE(offset + 2);
    if (offset > payload.length) return false;
  }
  return true;
}

/** The records of a decrypted payload; undefined when a header claims more bytes than remain. */
export function splitRecords(payload: Buffer): RawRecord[] | undefined {
  const records: RawRecord[] = [];
  let offset = 0;
  while (offset < payload.length) {
    if (offset + RECORD_HEADER_BYTES > payload.length) return undefined;
    const typeId = payload.readUInt16BE(offset);
    const length = payload.readUInt16BE(offset + 2);
    const start = offset + RECORD_HEADER_BYTES;
    if (start + length > payload.length) return undefined;
    records.push({ typeId, bytes: payload.subarray(start, start + length) });
    offset = start + length;
  }
  return records;
}
