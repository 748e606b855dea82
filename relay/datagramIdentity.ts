import { createHash } from "node:crypto";
import { sipHash128, sipKey } from "./sipHash";

/**
 * A datagram's identity: SipHash-2-4's 128-bit tag over its IV and ciphertext (everything the serial
 * is not), under a key derived from its session's AES key. It names the datagram in the relay's replay
 * memory (64 bits) and in the worker's Durable Object (all 16 bytes), so that a resend under any serial
 * is a replay and stores nothing new.
 *
 * Why keyed, and why all the bytes: CBC without a MAC lets a third party change a datagram (a flipped
 * IV bit flips the same bit of the first plaintext block; a changed block garbles its own plaintext and
 * flips bits of the next). If such a copy could carry the genuine datagram's identity, sent first it
 * would be stored with its altered value and the genuine datagram dropped as a replay. Named by all its
 * bytes, any change makes another datagram unless the hash collides; an unkeyed fast hash (FNV,
 * xxHash, Murmur) can be made to collide on purpose, with the 16 bytes of IV free to choose. SipHash is
 * a pseudorandom function: without the key no one can find a collision for a given datagram better
 * than by chance (2^-64 a try for the relay's memory, and the attacker never sees a tag to learn from),
 * which also keeps crafted identities from piling up in one run of the replay memory's table. The key
 * is derived from the session key, which only the drone, the worker and the relays hold, so every
 * relay names a datagram alike without a secret of its own. It costs about half of SHA-256 (which was
 * 16 % of the relay's busy CPU) and allocates nothing.
 */

/** Bytes of an identity, as posted to the worker. */
export const IDENTITY_BYTES = 16;

/** The SipHash key of a session's datagram identities: SHA-256 of a label and the AES key, first 16 bytes. */
export function identityKeyOf(sessionKey: Uint8Array): Int32Array {
  const digest = createHash("sha256").update("windsock datagram identity\u0000").update(sessionKey).digest();
  return sipKey(digest.subarray(0, IDENTITY_BYTES));
}

/** The identity of the datagram in `bytes` whose IV starts at `ivStart`, into `out` (four int32). */
export function datagramIdentity(
  identityKey: Int32Array,
  bytes: Uint8Array,
  ivStart: number,
  out: Int32Array,
): void {
  sipHash128(identityKey, bytes, ivStart, bytes.length, out);
}

/** An identity's 16 bytes (each int32 little-endian), into `to` from `at`. */
export function writeIdentity(identity: Int32Array, to: Uint8Array, at = 0): void {
  for (let w = 0; w < 4; w++) {
    const word = identity[w]!;
    to[at + 4 * w] = word;
    to[at + 4 * w + 1] = word >>> 8;
    to[at + 4 * w + 2] = word >>> 16;
    to[at + 4 * w + 3] = word >>> 24;
  }
}
