import { createCipheriv, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SessionKey } from "../../relay/crypto";
import { telemetrySchema } from "../../relay/messages";
import { decodeMessage } from "../../worker/domain/telemetryMessages";

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
  it("reads a uint64 timestamp up to 2^53 - 1 exactly and marks larger ones as unsafe", () => {
    const kind = telemetrySchema.byName.get("barometer")!;
    const encode = (timestamp: string) =>
      kind.type.encode(kind.type.fromObject({ timestamp, pressure: 1 })).finish();
    expect(decodeMessage(kind, encode("9007199254740991"))?.timestamp).toBe(Number.MAX_SAFE_INTEGER);
    expect(decodeMessage(kind, encode("1763700000000"))?.timestamp).toBe(1763700000000);
    expect(Number.isSafeInteger(decodeMessage(kind, encode("9007199254740993"))?.timestamp)).toBe(false);
    expect(Number.isSafeInteger(decodeMessage(kind, encode("18446744073709551615"))?.timestamp)).toBe(false);
  });
});
