import { createCipheriv, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeMessage, telemetrySchema } from "../../proto/messages";
import { invalidField } from "../../proto/records";
import { SessionKey } from "../../relay/crypto";

describe("SessionKey (AES-256-CBC, PKCS7)", () => {
  it("decrypts what node's own CBC encrypts, for every length around the block size", () => {
    const raw = randomBytes(32);
    const key = new SessionKey(raw);
    for (let length = 0; length <= 70; length++) {
      const plain = randomBytes(length);
      const iv = randomBytes(16);
      const cipher = createCipheriv("aes-256-cbc", raw, iv);
      const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()]);
      expect(key.decrypt(iv, ciphertext)).toEqual(plain);
    }
  });

  it("refuses bad padding and lengths, and stays correct afterwards", () => {
    const raw = randomBytes(32);
    const key = new SessionKey(raw);
    const iv = randomBytes(16);
    const encrypt = (plain: Buffer, padding = true) => {
      const cipher = createCipheriv("aes-256-cbc", raw, iv).setAutoPadding(padding);
      return Buffer.concat([cipher.update(plain), cipher.final()]);
    };
    expect(key.decrypt(iv, encrypt(Buffer.alloc(16, 0), false))).toBeUndefined();
    expect(key.decrypt(iv, encrypt(Buffer.alloc(16, 17), false))).toBeUndefined();
    expect(key.decrypt(iv, encrypt(Buffer.from([...Array(14).fill(9), 3, 2]), false))).toBeUndefined();
    expect(key.decrypt(iv, Buffer.alloc(15))).toBeUndefined();
    expect(key.decrypt(iv, Buffer.alloc(0))).toBeUndefined();
    expect(key.decrypt(iv, encrypt(Buffer.from("still fine")))).toEqual(Buffer.from("still fine"));
  });
});

describe("decodeMessage", () => {
  /** A barometer record with the given uint64 timestamp, encoded by hand (field 1, varint). */
  function barometer(timestamp: bigint): Uint8Array {
    const bytes = [0x08];
    for (let v = timestamp; ; v >>= 7n) {
      if (v < 0x80n) {
        bytes.push(Number(v));
        break;
      }
      bytes.push(Number(v & 0x7fn) | 0x80);
    }
    return Uint8Array.from(bytes);
  }

  it("reads a uint64 timestamp up to 2^53 - 1 exactly and leaves larger ones unsafe, so they are refused", () => {
    const kind = telemetrySchema.byName.get("barometer")!;
    const decode = (timestamp: bigint) => decodeMessage(kind, barometer(timestamp))!;
    expect(decode(1763700000000n).timestamp).toBe(1763700000000);
    expect(decode(2n ** 53n - 1n).timestamp).toBe(Number.MAX_SAFE_INTEGER);
    for (const big of [2n ** 53n, 2n ** 53n + 1n, 2n ** 64n - 1n]) {
      expect(invalidField(kind, decode(big))).toBe("timestamp");
    }
  });
});
