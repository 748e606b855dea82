import { describe, expect, it } from "vitest";
import {
  leadTimeProblem,
  MAX_LEAD_TIME_MS,
  MAX_TAKEOFF_DISTANCE_M,
  takeoffDistance,
  takeoffProblem,
} from "../../worker/domain/flightSanity";
import type { Polygon, Position } from "../../worker/domain/geojson";

/** A 0.01° square (about 1.1 km) with its south-west corner at (lng, lat). */
function squareAt(lng: number, lat: number): Polygon {
  const ring: Position[] = [
    [lng, lat],
    [lng + 0.01, lat],
    [lng + 0.01, lat + 0.01],
    [lng, lat + 0.01],
    [lng, lat],
  ];
  return { type: "Polygon", coordinates: [ring] };
}

const knoxville = squareAt(-83.92, 35.96);
const swappedKnoxville: Polygon = {
  type: "Polygon",
  coordinates: knoxville.coordinates.map((ring) => ring.map(([lng, lat]) => [lat, lng] as Position)),
};
/** Degrees of latitude per metre (a meridian degree is about 111.2 km). */
const DEG_PER_M = 1 / 111_195;

describe("takeoffProblem", () => {
  it("accepts a take-off point at any distance: legacy apps send the device's position (CONTRACT §4)", () => {
    expect(takeoffProblem([-83.915, 35.965], knoxville)).toBeNull();
    const beyond = 35.97 + (MAX_TAKEOFF_DISTANCE_M + 100) * DEG_PER_M;
    expect(takeoffProblem([-83.915, beyond], knoxville)).toBeNull();
    // The C++ SDK's laanc.phoenix.manual: take-off near LAX, area in Phoenix.
    expect(takeoffProblem([-118.485, 34.015], knoxville)).toBeNull();
    expect(takeoffProblem([-83.915, 35.965], squareAt(115.85, -31.96))).toBeNull();
  });

  it("names the geometry when the area's positions are [latitude, longitude]", () => {
    const problem = takeoffProblem([-83.915, 35.965], swappedKnoxville);
    expect(problem?.field).toBe("geometry");
    expect(problem?.message).toMatch(
      /^positions look like \[latitude, longitude\]: as sent, the area lies 1\d,\d{3}(\.\d)? km/,
    );
  });

  it("measures how far outside the area the take-off point lies", () => {
    expect(takeoffDistance([-83.915, 35.965], knoxville)).toBe(0);
    const beyond = 35.97 + 10_000 * DEG_PER_M;
    expect(takeoffDistance([-83.915, beyond], knoxville)).toBeCloseTo(10_000, -2);
  });
});

describe("leadTimeProblem", () => {
  const now = Date.UTC(2026, 10, 24);
  it("takes times up to a year ahead and names a later one with its date", () => {
    expect(leadTimeProblem("start_time", now + MAX_LEAD_TIME_MS, now)).toBeNull();
    expect(leadTimeProblem("end_time", now - 1000, now)).toBeNull();
    expect(leadTimeProblem("end_time", Date.UTC(2028, 0, 1), now)).toEqual({
      field: "end_time",
      message:
        "2028-01-01T00:00:00.000Z is more than a year ahead; plans and flights reach at most a year ahead (check the year)",
    });
  });
});
