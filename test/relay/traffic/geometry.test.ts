import { describe, expect, it } from "vitest";
import {
  bearingDeg,
  closestApproach,
  distanceM,
  extrapolate,
  type Kinematics,
  speedAndHeading,
} from "../../../relay/traffic/geometry";

const at = (
  latitude: number,
  longitude: number,
  groundSpeedMs = 0,
  headingDeg = 0,
  altitudeM = 100,
): Kinematics => ({
  latitude,
  longitude,
  altitudeM,
  groundSpeedMs,
  headingDeg,
  recordedAt: 0,
});

/** Metres per degree of latitude on the mean sphere. */
const M_PER_DEG = 111_195;

describe("distances and bearings", () => {
  it("measures a degree of latitude and the cardinal bearings", () => {
    expect(distanceM(0, 0, 1, 0)).toBeCloseTo(M_PER_DEG, -1);
    expect(bearingDeg(37, -122, 37.01, -122)).toBeCloseTo(0, 6);
    expect(bearingDeg(37, -122, 37, -121.99)).toBeCloseTo(90, 1);
    expect(bearingDeg(37, -122, 36.99, -122)).toBeCloseTo(180, 6);
    expect(bearingDeg(37, -122, 37, -122.01)).toBeCloseTo(270, 1);
  });

  it("turns a North-East velocity into speed over ground and heading", () => {
    expect(speedAndHeading(3, 4)).toEqual({ groundSpeedMs: 5, headingDeg: expect.closeTo(53.13, 2) });
    expect(speedAndHeading(0, -2).headingDeg).toBeCloseTo(270, 6);
  });

  it("dead-reckons along the heading", () => {
    const moved = extrapolate({ ...at(37, -122, 10, 0), recordedAt: 0 }, 10_000);
    expect(distanceM(37, -122, moved.latitude, moved.longitude)).toBeCloseTo(100, 0);
    expect(moved.longitude).toBe(-122);
  });
});

describe("closest point of approach", () => {
  it("finds a head-on encounter's meeting time", () => {
    // 2 km apart on a meridian, closing at 20 m/s each: they meet in 50 s, after the 30 s horizon.
    const own = at(37, -122, 20, 0);
    const other = at(37 + 2000 / M_PER_DEG, -122, 20, 180);
    const soon = closestApproach(own, other, 0, 30);
    expect(soon.rangeM).toBeCloseTo(2000, -1);
    expect(soon.timeS).toBe(30);
    expect(soon.distanceM).toBeCloseTo(800, -1);
    const later = closestApproach(own, other, 0, 120);
    expect(later.timeS).toBeCloseTo(50, 0);
    expect(later.distanceM).toBeLessThan(5);
  });

  it("gives the passing distance of a crossing track", () => {
    // Ours still; the other flies east 500 m north of us, 1 km west of abeam.
    const own = at(37, -122);
    const other = at(
      37 + 500 / M_PER_DEG,
      -122 - 1000 / (M_PER_DEG * Math.cos((37 * Math.PI) / 180)),
      50,
      90,
    );
    const approach = closestApproach(own, other, 0, 30);
    expect(approach.timeS).toBeCloseTo(20, 0);
    expect(approach.distanceM).toBeCloseTo(500, -1);
  });

  it("says now for two aircraft moving apart, and measures the vertical", () => {
    const own = at(37, -122, 10, 180, 100);
    const other = at(37.01, -122, 10, 0, 400);
    const approach = closestApproach(own, other, 0, 30);
    expect(approach.timeS).toBe(0);
    expect(approach.distanceM).toBeCloseTo(approach.rangeM, 6);
    expect(approach.verticalM).toBe(300);
  });
});
