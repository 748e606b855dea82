import { createDecipheriv, type Decipher } from "node:crypto";
import { CIPHER_BLOCK_BYTES } from "../proto/datagram";
import { identityKeyOf } from "./datagramIdentity";

/**
 * A session's AES-256-CBC key with PKCS7 padding (spec 4.6). Decrypting a datagram with
 * createDecipheriv costs a new cipher object each time; instead one ECB decipher per key decrypts
 * every block and the CBC chaining (XOR with the previous ciphertext block, the IV first) and the
 * padding check are done here. ECB without padding keeps no state between update() calls.
 */
export class SessionKey {
  private readonly blocks: Decipher;
  /** The key of the session's datagram identities (datagramIdentity.ts). */
  readonly identityKey: Int32Array;

  constructor(key: Buffer) {
    this.blocks = createDecipheriv("aes-256-ecb", key, null).setAutoPadding(false);
    this.identityKey = identityKeyOf(key);
  }

  /** The plaintext, or undefined when the padding does not check out (wrong key, damaged data). */
  decrypt(iv: Buffer, ciphertext: Buffer): Buffer | undefined {
    return this.decryptAt(Buffer.concat([iv, ciphertext]), 0, iv.length, iv.length + ciphertext.length);
  }

  /**
   * The same for a datagram in place: the IV at `ivStart` (16 bytes), the ciphertext from `start` to
   * `end`, read without copying them out.
   */
  decryptAt(bytes: Buffer, ivStart: number, start: number, end: number): Buffer | undefined {
    const length = end - start;
    if (length <= 0 || length % CIPHER_BLOCK_BYTES !== 0) return undefined;
    return unchain(this.blocks.update(bytes.subarray(start, end)), bytes, ivStart, start);
  }

  /**
   * AES of every block of `ciphertexts` (several datagrams' ciphertexts side by side): one cipher call
   * for many datagrams, each then finished by unchain(). The call, not the AES, is what a small
   * datagram costs.
   */
  decryptBlocks(ciphertexts: Buffer): Buffer {
    return this.blocks.update(ciphertexts);
  }
}

/**
 * Finishes CBC in place on `plain` (the AES of a datagram's ciphertext, which sits in `bytes` from
 * `start`, its IV at `ivStart`): XOR with the previous ciphertext block, then the PKCS7 padding check.
 * The plaintext without padding, or undefined when the padding does not check out.
 */
export function unchain(plain: Buffer, bytes: Buffer, ivStart: number, start: number): Buffer | undefined {
  const end = unchainAt(plain, 0, plain.length, bytes, ivStart, start);
  return end < 0 ? undefined : plain.subarray(0, end);
}

/**
 * unchain() for the `length` bytes of `plain` from `at` (one datagram among a batch's), in place and
 * without a view: where its plaintext ends without the padding, or -1 when the padding does not
 * check out.
 */
export function unchainAt(
  plain: Uint8Array,
  at: number,
  length: number,
  bytes: Uint8Array,
  ivStart: number,
  start: number,
): number {
  for (let i = 0; i < CIPHER_BLOCK_BYTES; i++) plain[at + i]! ^= bytes[ivStart + i]!;
  const chain = start - CIPHER_BLOCK_BYTES;
  for (let i = CIPHER_BLOCK_BYTES; i < length; i++) plain[at + i]! ^= bytes[chain + i]!;
  const last = at + length - 1;
  const padding = plain[last]!;
  if (padding < 1 || padding > CIPHER_BLOCK_BYTES) return -1;
  for (let i = last + 1 - padding; i < last; i++) if (plain[i] !== padding) return -1;
  return last + 1 - padding;
}
