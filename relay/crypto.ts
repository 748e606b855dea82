import { createDecipheriv, type Decipher } from "node:crypto";

const BLOCK = 16;

/**
 * A session's AES-256-CBC key with PKCS7 padding (spec 4.6). Decrypting a datagram with
 * createDecipheriv costs a new cipher object each time; instead one ECB decipher per key decrypts
 * every block and the CBC chaining (XOR with the previous ciphertext block, the IV first) and the
 * padding check are done here. ECB without padding keeps no state between update() calls.
 */
export class SessionKey {
  private readonly blocks: Decipher;

  constructor(key: Buffer) {
    this.blocks = createDecipheriv("aes-256-ecb", key, null).setAutoPadding(false);
  }

  /** The plaintext, or undefined when the padding does not check out (wrong key, damaged data). */
  decrypt(iv: Buffer, ciphertext: Buffer): Buffer | undefined {
    if (ciphertext.length === 0 || ciphertext.length % BLOCK !== 0) return undefined;
    const plain = this.blocks.update(ciphertext);
    for (let i = 0; i < BLOCK; i++) plain[i]! ^= iv[i]!;
    for (let i = BLOCK; i < plain.length; i++) plain[i]! ^= ciphertext[i - BLOCK]!;
    const padding = plain[plain.length - 1]!;
    if (padding < 1 || padding > BLOCK) return undefined;
    for (let i = plain.length - padding; i < plain.length - 1; i++)
      if (plain[i] !== padding) return undefined;
    return plain.subarray(0, plain.length - padding);
  }
}
