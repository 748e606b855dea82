import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { JsonBytes } from "../../relay/jsonBytes";

/** What `write` puts into a fresh writer that starts tiny (so every write also makes it grow). */
function written(write: (w: JsonBytes) => void): string {
  const w = new JsonBytes(1);
  write(w);
  return w.copy().toString("utf8");
}

describe("JsonBytes", () => {
  it("writes numbers exactly as JSON.stringify does", () => {
    const values = [0, -0, 1, -1, 9, 10, 999_999_999, 1e9, 1e9 + 1, 1_700_000_000_005, 2 ** 53 - 1];
    values.push(-(2 ** 53 - 1), 2 ** 53, 1.5e21, 1e-7, 47.3769251, 0.1, -3, 0xffffffff, Math.fround(0.3));
    for (let i = 0; i < 4_000; i++) {
      const scale = 10 ** (i % 17);
      values.push(
        Math.floor(Math.random() * scale),
        -Math.floor(Math.random() * scale),
        Math.random() * scale,
      );
    }
    for (const value of values) expect(written((w) => w.number(value))).toBe(JSON.stringify(value));
  });

  it("writes strings and base64 as JSON.stringify and Buffer do", () => {
    for (const text of ["session|a", 'odd "id"\\', "é ü 😀", "\u0001\n", ""])
      expect(written((w) => w.string(text))).toBe(JSON.stringify(text));
    for (let n = 0; n < 40; n++) {
      const bytes = randomBytes(n);
      const start = Math.min(3, n);
      expect(written((w) => w.base64String(bytes, start, n))).toBe(
        JSON.stringify(bytes.subarray(start).toString("base64")),
      );
    }
  });

  it("appends, resets and keeps its memory", () => {
    const a = new JsonBytes(2);
    const b = new JsonBytes(2);
    a.ascii("[1,");
    b.number(2);
    a.append(b);
    a.byte(0x5d);
    expect(a.copy().toString()).toBe("[1,2]");
    const capacity = a.capacity;
    a.reset();
    expect(a.length).toBe(0);
    expect(a.capacity).toBe(capacity);
  });
});
