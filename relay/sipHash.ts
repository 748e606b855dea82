/**
 * SipHash-2-4 with a 128-bit tag (Aumasson and Bernstein, "SipHash: a fast short-input PRF", and the
 * reference implementation's test vectors, test/relay/sipHash.test.ts): a keyed hash built for short
 * inputs, where a party without the key can neither predict a tag nor find two inputs with the same
 * one. JavaScript has no 64-bit integers that are cheap, so each 64-bit word is two int32 halves.
 * Written here, not taken from npm: the published `siphash` (1.2.0) has only the 64-bit tag and builds
 * an object per word operation, and the relay hashes every datagram in place, without allocating.
 */

const readLe32 = (b: Uint8Array, i: number) =>
  b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);

/** A SipHash key (16 bytes) as the four int32 halves of k0 and k1, little-endian as the reference reads it. */
export function sipKey(key: Uint8Array): Int32Array {
  if (key.length !== 16) throw new RangeError("a SipHash key is 16 bytes");
  return Int32Array.of(readLe32(key, 0), readLe32(key, 4), readLe32(key, 8), readLe32(key, 12));
}

/**
 * The 128-bit tag of bytes `start` to `end` of `bytes` under `key` (sipKey), into `out` as four
 * int32: the tag's bytes 0–3, 4–7, 8–11 and 12–15, each read little-endian. One loop with the state in
 * locals: the message words (two rounds each, the last holding the length), then the two finalizations
 * (four rounds each), with one copy of the round.
 */
export function sipHash128(
  key: Int32Array,
  bytes: Uint8Array,
  start: number,
  end: number,
  out: Int32Array,
): void {
  let v0l = key[0]! ^ 0x70736575;
  let v0h = key[1]! ^ 0x736f6d65;
  let v1l = key[2]! ^ 0x6e646f6d ^ 0xee;
  let v1h = key[3]! ^ 0x646f7261;
  let v2l = key[0]! ^ 0x6e657261;
  let v2h = key[1]! ^ 0x6c796765;
  let v3l = key[2]! ^ 0x79746573;
  let v3h = key[3]! ^ 0x74656462;
  const length = end - start;
  const whole = start + (length & ~7);
  /** Message words, the last one (remaining bytes and length) included. */
  const words = (length >>> 3) + 1;
  let ml = 0;
  let mh = 0;
  let lo: number;
  let t: number;
  for (let w = 0; w <= words + 1; w++) {
    let rounds = 4;
    if (w < words) {
      const i = start + 8 * w;
      if (i < whole) {
        ml = readLe32(bytes, i);
        mh = readLe32(bytes, i + 4);
      } else {
        ml = 0;
        mh = (length & 0xff) << 24;
        for (let j = 0; i + j < end; j++) {
          if (j < 4) ml |= bytes[i + j]! << (8 * j);
          else mh |= bytes[i + j]! << (8 * (j - 4));
        }
      }
      v3l ^= ml;
      v3h ^= mh;
      rounds = 2;
    } else if (w === words) {
      v2l ^= 0xee;
    } else {
      out[0] = v0l ^ v1l ^ v2l ^ v3l;
      out[1] = v0h ^ v1h ^ v2h ^ v3h;
      v1l ^= 0xdd;
    }
    for (let r = 0; r < rounds; r++) {
      // v0 += v1; v1 = rotl(v1, 13) ^ v0; v0 = rotl(v0, 32)
      lo = (v0l >>> 0) + (v1l >>> 0);
      v0h = (v0h + v1h + (lo > 0xffffffff ? 1 : 0)) | 0;
      v0l = lo | 0;
      t = (v1l << 13) | (v1h >>> 19);
      v1h = ((v1h << 13) | (v1l >>> 19)) ^ v0h;
      v1l = t ^ v0l;
      t = v0l;
      v0l = v0h;
      v0h = t;
      // v2 += v3; v3 = rotl(v3, 16) ^ v2
      lo = (v2l >>> 0) + (v3l >>> 0);
      v2h = (v2h + v3h + (lo > 0xffffffff ? 1 : 0)) | 0;
      v2l = lo | 0;
      t = (v3l << 16) | (v3h >>> 16);
      v3h = ((v3h << 16) | (v3l >>> 16)) ^ v2h;
      v3l = t ^ v2l;
      // v0 += v3; v3 = rotl(v3, 21) ^ v0
      lo = (v0l >>> 0) + (v3l >>> 0);
      v0h = (v0h + v3h + (lo > 0xffffffff ? 1 : 0)) | 0;
      v0l = lo | 0;
      t = (v3l << 21) | (v3h >>> 11);
      v3h = ((v3h << 21) | (v3l >>> 11)) ^ v0h;
      v3l = t ^ v0l;
      // v2 += v1; v1 = rotl(v1, 17) ^ v2; v2 = rotl(v2, 32)
      lo = (v2l >>> 0) + (v1l >>> 0);
      v2h = (v2h + v1h + (lo > 0xffffffff ? 1 : 0)) | 0;
      v2l = lo | 0;
      t = (v1l << 17) | (v1h >>> 15);
      v1h = ((v1h << 17) | (v1l >>> 15)) ^ v2h;
      v1l = t ^ v2l;
      t = v2l;
      v2l = v2h;
      v2h = t;
    }
    if (w < words) {
      v0l ^= ml;
      v0h ^= mh;
    }
  }
  out[2] = v0l ^ v1l ^ v2l ^ v3l;
  out[3] = v0h ^ v1h ^ v2h ^ v3h;
}
