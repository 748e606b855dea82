import { describe, expect, it } from "vitest";
import { fliesAtNight, sunElevation } from "../../worker/domain/airspace/daylight";

// San Francisco International: on 21 June 2026 the sun sets at 03:34Z (20:34 PDT) and evening civil
// twilight ends at about 04:06Z.
const SFO = [37.6198, -122.3748] as const;
const at = (iso: string) => Date.parse(iso);

describe("night by civil twilight (14 CFR 1.1)", () => {
  it("places the sun as the almanac does", () => {
    expect(sunElevation(at("2026-06-21T20:00:00Z"), ...SFO)).toBeGreaterThan(70); // local noon-ish
    expect(sunElevation(at("2026-06-22T03:34:00Z"), ...SFO)).toBeCloseTo(-0.8, 0); // sunset
    expect(sunElevation(at("2026-06-22T04:06:00Z"), ...SFO)).toBeCloseTo(-6, 0); // end of civil twilight
    expect(sunElevation(at("2026-06-22T08:00:00Z"), ...SFO)).toBeLessThan(-20); // 1 am
  });

  it("counts a window as night when any part of it is past civil twilight, not mere sunset", () => {
    expect(fliesAtNight(at("2026-06-21T18:00:00Z"), at("2026-06-21T23:00:00Z"), ...SFO)).toBe(false);
    // Into evening twilight, but not past it.
    expect(fliesAtNight(at("2026-06-22T03:00:00Z"), at("2026-06-22T03:55:00Z"), ...SFO)).toBe(false);
    expect(fliesAtNight(at("2026-06-22T03:00:00Z"), at("2026-06-22T04:20:00Z"), ...SFO)).toBe(true);
    // A long window that ends in daylight still crosses the night.
    expect(fliesAtNight(at("2026-06-21T20:00:00Z"), at("2026-06-22T20:00:00Z"), ...SFO)).toBe(true);
    // Midsummer in Svalbard: the sun never sets.
    expect(fliesAtNight(at("2026-06-21T00:00:00Z"), at("2026-06-22T00:00:00Z"), 78.2, 15.6)).toBe(false);
  });
});
