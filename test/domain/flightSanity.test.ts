import { describe, expect, it } from "vitest";
import {
  leadTimeProblem,
  MAX_LEAD_TIME_MS,
  MAX_TAKEOFF_DISTANCE_M,
  takeoffProblem,
} from "../../worker/domain/flightSanity";
import type { Polygon, Position } from "../../worker/domain/geojson";

const fields = { latitude: "takeoff_latitude", longitude: "takeoff_longitude" };

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
  it("accepts a take-off inside the area and up to 5 km outside it", () => {
    expect(takeoffProblem([-83.915, 35.965], knoxville, fields)).toBeNull();
    const edge = 35.97 + (MAX_TAKEOFF_DISTANCE_M - 100) * DEG_PER_M;
    expect(takeoffProblem([-83.915, edge], knoxville, fields)).toBeNull();
  });

  it("names the take-off point with its distance beyond 5 km", () => {
    const beyond = 35.97 + (MAX_TAKEOFF_DISTANCE_M + 100) * DEG_PER_M;
    expect(takeoffProblem([-83.915, beyond], knoxville, fields)).toEqual({
      field: "takeoff_latitude",
      message: "the take-off point lies 5.1 km outside the flight area; it must be within 5 km of it",
    });
  });

  it("names the geometry when the area's positions are [latitude, longitude]", () => {
    const problem = takeoffProblem([-83.915, 35.965], swappedKnoxville, fields);
    expect(problem?.field).toBe("geometry");
    expect(problem?.message).toMatch(
      /^positions look like \[latitude, longitude\]: as sent, the area lies 1\d,\d{3}(\.\d)? km/,
    );
  });

  it("says when the area is on the other side of the Earth (and no swap explains it)", () => {
    const perth = squareAt(115.85, -31.96);
    expect(takeoffProblem([-83.915, 35.965], perth, fields)).toMatchObject({
      field: "geometry",
      message: expect.stringMatching(/^the area lies on the other side of the Earth from the take-off point/),
    });
    // Far, but not that far: the take-off point is named.
    expect(takeoffProblem([-118.485, 34.015], knoxville, fields)?.field).toBe("takeoff_latitude");
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
