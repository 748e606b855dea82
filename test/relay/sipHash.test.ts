import { describe, expect, it } from "vitest";
import { sipHash128, sipKey } from "../../relay/sipHash";

/**
 * Known answers of SipHash-2-4 with a 128-bit tag from the reference implementation's vectors.h
 * (github.com/veorq/SipHash): key 00 01 … 0f, message 00 01 … (n − 1) for the n given.
 */
const VECTORS: Record<number, string> = {
  0: "a3817f04ba25a8e66df67214c7550293",
  1: "da87c1d86b99af44347659119b22fc45",
  4: "f88164c12d9c8faf7d0f6e7c7bcd5579",
  7: "a1f1ebbed8dbc153c0b84aa61ff08239",
  8: "3b62a9ba6258f5610f83e264f31497b4",
  9: "264499060ad9baabc47f8b02bb6d71ed",
  15: "5493e99933b0a8117e08ec0f97cfc3d9",
  63: "5150d1772f50834a503e069a973fbd7c",
};

const key = sipKey(Uint8Array.from({ length: 16 }, (_, i) => i));

function tagHex(bytes: Uint8Array, start = 0, end = bytes.length): string {
  const out = new Int32Array(4);
  sipHash128(key, bytes, start, end, out);
  return Buffer.from(out.buffer).toString("hex");
}

describe("SipHash-2-4-128", () => {
  for (const [length, expected] of Object.entries(VECTORS)) {
    it(`gives the reference tag of a ${length}-byte message`, () => {
      expect(tagHex(Uint8Array.from({ length: Number(length) }, (_, i) => i))).toBe(expected);
    });
  }

  it("hashes the bytes from start to end of a larger buffer as those bytes alone", () => {
    const message = Uint8Array.from({ length: 15 }, (_, i) => i);
    const padded = new Uint8Array(40).fill(0xaa);
    padded.set(message, 11);
    expect(tagHex(padded, 11, 26)).toBe(VECTORS[15]);
  });

  it("refuses a key that is not 16 bytes", () => {
    expect(() => sipKey(new Uint8Array(15))).toThrow(RangeError);
  });
});
