import turfDistance from "@turf/distance";
import { describe, expect, it } from "vitest";
import {
  bufferCircle,
  flightArea,
  geometryProblem,
  MAX_POSITIONS,
  maxLinearExtent,
} from "../../worker/domain/flightArea";
import { flightState } from "../../worker/domain/flightState";
import { bboxOf, type Polygon, type Position } from "../../worker/domain/geojson";
import { bowTie } from "../geometries";

/** A closed circle of `sides` sides around (8.5, 47.4): `sides` + 1 positions. */
function circleRing(sides: number, radius = 0.01): Position[] {
  const ring = Array.from({ length: sides }, (_, i) => {
    const angle = (2 * Math.PI * i) / sides;
    return [8.5 + radius * Math.cos(angle), 47.4 + radius * Math.sin(angle)] as Position;
  });
  return [...ring, ring[0]!];
}

const unitSquare: Polygon = {
  type: "Polygon",
  coordinates: [
    [
      [0, 0],
      [0.01, 0],
      [0.01, 0.01],
      [0, 0.01],
      [0, 0],
    ],
  ],
};

describe("geometryProblem", () => {
  it("accepts a closed simple polygon and buffered lines and points", () => {
    expect(geometryProblem(unitSquare, 0)).toBeNull();
    expect(
      geometryProblem(
        {
          type: "LineString",
          coordinates: [
            [0, 0],
            [1, 1],
          ],
        },
        10,
      ),
    ).toBeNull();
    expect(geometryProblem({ type: "Point", coordinates: [8.5, 47.4] }, 10)).toBeNull();
  });

  it.each([
    ["not an object", "Polygon"],
    ["unknown type", { type: "Circle", coordinates: [0, 0] }],
    [
      "open ring",
      {
        type: "Polygon",
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 1],
          ],
        ],
      },
    ],
    [
      "too few positions",
      {
        type: "Polygon",
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [0, 0],
          ],
        ],
      },
    ],
    ["bow tie", bowTie],
    [
      "latitude out of range",
      {
        type: "Polygon",
        coordinates: [
          [
            [0, 0],
            [1, 95],
            [1, 0],
            [0, 0],
          ],
        ],
      },
    ],
    ["longitude out of range", { type: "Point", coordinates: [181, 0] }],
    ["non-numbers", { type: "Point", coordinates: ["0", "0"] }],
    ["point without buffer", { type: "Point", coordinates: [0, 0] }],
    [
      "line without buffer",
      {
        type: "LineString",
        coordinates: [
          [0, 0],
          [1, 1],
        ],
      },
    ],
  ])("refuses %s with 400", (_label, geometry) => {
    expect(geometryProblem(geometry, 0)).toEqual({ field: "geometry", message: expect.any(String) });
  });

  it("accepts a simple polygon of exactly 10,000 positions and refuses a crossed one with 400", () => {
    const ring = circleRing(9_999);
    expect(ring).toHaveLength(MAX_POSITIONS);
    expect(geometryProblem({ type: "Polygon", coordinates: [ring] }, 0)).toBeNull();
    [ring[100], ring[101]] = [ring[101]!, ring[100]!];
    expect(geometryProblem({ type: "Polygon", coordinates: [ring] }, 0)).toEqual({
      field: "geometry",
      message: expect.stringMatching(/intersect/),
    });
  });

  it("counts the positions of every ring toward the limit", () => {
    const shell = circleRing(9_000);
    const hole = circleRing(999, 0.001);
    expect(geometryProblem({ type: "Polygon", coordinates: [shell, hole] }, 0)?.tooLarge).toBe(true);
    expect(geometryProblem({ type: "Polygon", coordinates: [shell, circleRing(998, 0.001)] }, 0)).toBeNull();
  });

  it("refuses more than 10,000 positions with 413", () => {
    const ring = Array.from({ length: MAX_POSITIONS + 1 }, (_, i) => [i * 1e-6, (i % 2) * 1e-6]);
    expect(geometryProblem({ type: "Polygon", coordinates: [ring] }, 0)?.tooLarge).toBe(true);
    expect(geometryProblem({ type: "LineString", coordinates: ring }, 5)?.tooLarge).toBe(true);
  });
});

describe("flight area", () => {
  it("keeps a polygon and buffers a point into a closed circle of the radius", () => {
    expect(flightArea(unitSquare as Polygon, 0)).toBe(unitSquare);
    const circle = bufferCircle([0, 0], 1000);
    const ring = circle.coordinates[0]!;
    expect(ring[0]).toEqual(ring[ring.length - 1]);
    const box = bboxOf(circle);
    // 1000 m is 0.008993° of latitude.
    expect(box.maxLat).toBeCloseTo(0.008993, 4);
    expect(box.minLat).toBeCloseTo(-0.008993, 4);
  });

  it("draws circles of 32 sides, as the original platform's flights, to 7 decimal places", () => {
    const ring = bufferCircle([-118.4853, 34.0151], 150.5).coordinates[0]!;
    expect(ring).toHaveLength(33);
    for (const [lng, lat] of ring) {
      expect(Math.round(lng * 1e7) / 1e7).toBe(lng);
      expect(Math.round(lat * 1e7) / 1e7).toBe(lat);
    }
  });

  it("buffers a line into a polygon covering it", () => {
    const area = flightArea(
      {
        type: "LineString",
        coordinates: [
          [0, 0],
          [0.01, 0],
        ],
      },
      100,
    );
    const box = bboxOf(area);
    expect(area.type).toBe("Polygon");
    expect(box.minLng).toBeLessThan(0);
    expect(box.maxLng).toBeGreaterThan(0.01);
    expect(box.maxLat).toBeCloseTo(0.0008993, 4);
  });

  it("measures the longest extent across the hull in meters", () => {
    // The diagonal of a 0.01° square at the equator: about 1572.6 m.
    expect(maxLinearExtent(unitSquare)).toBeCloseTo(1572.6, 0);
    expect(maxLinearExtent(bufferCircle([8.5, 47.4], 500))).toBeCloseTo(1000, -1);
  });

  it("measures a hull of thousands of vertices as every pair would", () => {
    for (const [lng, lat, rx, ry] of [
      [8.5, 47.4, 0.3, 0.1],
      [-84.2, 36.3, 0.05, 0.4],
      [151.2, -33.9, 0.45, 0.45],
    ] as const) {
      const ring = Array.from({ length: 1500 }, (_, i) => {
        const angle = (2 * Math.PI * i) / 1500;
        return [lng + rx * Math.cos(angle), lat + ry * Math.sin(angle)] as Position;
      });
      let longest = 0;
      for (let i = 0; i < ring.length; i++)
        for (let j = i + 1; j < ring.length; j++)
          longest = Math.max(longest, turfDistance(ring[i]!, ring[j]!, { units: "meters" }));
      const area: Polygon = { type: "Polygon", coordinates: [[...ring, ring[0]!]] };
      expect(maxLinearExtent(area)).toBe(Math.round(longest * 100) / 100);
    }
  });
});

describe("flight state", () => {
  it("is derived from the times, inclusive at both ends", () => {
    const f = { startTime: 100, endTime: 200 };
    expect(flightState(f, 99)).toBe("planned");
    expect(flightState(f, 100)).toBe("active");
    expect(flightState(f, 200)).toBe("active");
    expect(flightState(f, 201)).toBe("ended");
  });
});
