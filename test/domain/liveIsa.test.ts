import { describe, expect, it } from "vitest";
import {
  covers,
  ISA_MAX_RETRY_MS,
  isaRetryDelayMs,
  liveIsaExtents,
  positionsBox,
  union,
} from "../../worker/rid/liveIsa";

/** The ISA of an ordinary live flight (worker/rid/liveIsa.ts). */

const flight = {
  latitude: 47.3769,
  longitude: 8.5417,
  minLat: 47.375,
  maxLat: 47.379,
  minLng: 8.539,
  maxLng: 8.544,
  maxAltitude: 60,
  endTime: Date.parse("2026-01-01T01:00:00Z"),
};

describe("live ISA extents", () => {
  it("boxes positions from the ground under them (MSL − AGL) to their altitude, skipping unusable ones", () => {
    expect(
      positionsBox([
        { latitude: 47.38, longitude: 8.54, altitude_agl: 30, altitude_msl: 440 },
        { latitude: 47.37, longitude: 8.55, altitude_agl: -5, altitude_msl: 415 },
        { latitude: Number.NaN, longitude: 8.6, altitude_msl: 9000 },
      ]),
    ).toEqual({ minLat: 47.37, maxLat: 47.38, minLng: 8.54, maxLng: 8.55, minAlt: 410, maxAlt: 440 });
    expect(positionsBox([{ longitude: 8.5 }])).toBeNull();
  });

  it("covers the planned area, the take-off point and the reports, up to the planned ceiling, in W84", () => {
    const reported = { minLat: 47.4, maxLat: 47.41, minLng: 8.5, maxLng: 8.51, minAlt: 400, maxAlt: 420 };
    const start = Date.parse("2026-01-01T00:00:00Z");
    const { extents, covered } = liveIsaExtents(reported, flight, start, 47);
    expect(covered.minLat).toBeLessThan(flight.minLat);
    expect(covered.maxLat).toBeGreaterThan(reported.maxLat);
    expect(covered.minLng).toBeLessThan(reported.minLng);
    expect(covered.maxLng).toBeGreaterThan(flight.maxLng);
    // Floor 400 MSL − 50 m margin; ceiling 400 + 60 m planned + 50 m margin; +47 m geoid for W84.
    expect(extents.volume.altitude_lower.value).toBe(400 - 50 + 47);
    expect(extents.volume.altitude_upper.value).toBe(460 + 50 + 47);
    expect([covered.minAlt, covered.maxAlt]).toEqual([350, 510]);
    expect(extents.time_start.value).toBe("2026-01-01T00:00:00.000Z");
    expect(extents.time_end.value).toBe("2026-01-01T01:01:00.000Z");
    expect(covers(covered, reported)).toBe(true);
    expect(covers(covered, union(reported, { ...reported, maxLat: covered.maxLat + 0.001 }))).toBe(false);
    expect(covers(covered, union(reported, { ...reported, maxAlt: 520 }))).toBe(false);
    expect(covers(covered, union(reported, { ...reported, minAlt: 340 }))).toBe(false);
  });

  it("retries after 5 s, doubling, at most 5 min apart", () => {
    expect([1, 2, 3, 4, 7, 20].map(isaRetryDelayMs)).toEqual([
      5_000, 10_000, 20_000, 40_000, 300_000, 300_000,
    ]);
    expect(ISA_MAX_RETRY_MS).toBe(300_000);
  });
});
