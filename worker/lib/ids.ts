const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export type RecordKind = "flight" | "flight_plan" | "pilot" | "aircraft" | "account" | "key" | "session";

/** Opaque record id `<kind>|<22 base62 chars>` (~131 random bits), well under the 64-byte limit. */
export function newId(kind: RecordKind): string {
  return `${kind}|${randomBase62(22)}`;
}

export function randomBase62(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
  let out = "";
  // 62 * 4 = 248: rejecting bytes >= 248 keeps every character equally likely.
  for (const b of bytes) {
    if (b < 248) out += BASE62[b % 62];
    if (out.length === length) return out;
  }
  return out + randomBase62(length - out.length);
}

/** Deterministic base62 of a digest, for ids derived from other ids (same input, same id). */
export function base62OfBytes(bytes: Uint8Array, length: number): string {
  let out = "";
  let acc = 0n;
  for (const b of bytes) acc = (acc << 8n) | BigInt(b);
  while (out.length < length) {
    out += BASE62[Number(acc % 62n)];
    acc /= 62n;
  }
  return out;
}
