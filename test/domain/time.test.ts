import { describe, expect, it } from "vitest";
import { isoTime, parseTime } from "../../worker/lib/time";

describe("time parameters", () => {
  it("reads ISO 8601 with Z or an offset, and now", () => {
    expect(parseTime("2026-11-21T21:23:08.123Z")).toBe(Date.UTC(2026, 10, 21, 21, 23, 8, 123));
    expect(parseTime("2026-11-21T23:23:08+02:00")).toBe(Date.UTC(2026, 10, 21, 21, 23, 8));
    expect(parseTime("2026-11-21T16:23-0500")).toBe(Date.UTC(2026, 10, 21, 21, 23));
    expect(parseTime("now", 42)).toBe(42);
  });

  it.each(["2026-11-21T21:23:08", "2026-11-21", "yesterday", "", "2026-13-01T00:00:00Z", "NOW"])(
    "refuses %j",
    (value) => {
      expect(parseTime(value)).toBeUndefined();
    },
  );

  it("writes UTC with milliseconds", () => {
    expect(isoTime(Date.UTC(2026, 10, 21, 21, 23, 8, 123))).toBe("2026-11-21T21:23:08.123Z");
  });
});
