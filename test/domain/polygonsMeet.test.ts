import booleanIntersects from "@turf/boolean-intersects";
import { describe, expect, it } from "vitest";
import type { MultiPolygon, Polygon, Position } from "../../worker/domain/geojson";
import { polygonsMeet } from "../../worker/domain/geometry/polygonsMeet";

/** mulberry32: a seeded generator, so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A star-shaped ring: simple by construction; clockwise when `reverse` (a hole). */
function star(next: () => number, cx: number, cy: number, radius: number, size: number, reverse = false) {
  const ring: Position[] = Array.from({ length: size }, (_, i) => {
    const angle = (2 * Math.PI * i) / size;
    const r = radius * (0.6 + 0.4 * next());
    return [cx + r * Math.cos(angle), cy + r * Math.sin(angle)];
  });
  if (reverse) ring.reverse();
  return [...ring, ring[0]!];
}

function randomArea(next: () => number): Polygon | MultiPolygon {
  const cx = -84.2 + next() * 0.02;
  const cy = 36.3 + next() * 0.02;
  const radius = 0.001 + next() * 0.01;
  const shell = star(next, cx, cy, radius, 3 + Math.floor(next() * 60));
  const polygon: Position[][] =
    next() < 0.3 ? [shell, star(next, cx, cy, radius * 0.4, 3 + Math.floor(next() * 12), true)] : [shell];
  if (next() < 0.2) {
    const far = star(next, cx + 0.03, cy, radius, 5);
    return { type: "MultiPolygon", coordinates: [polygon, [far]] };
  }
  return { type: "Polygon", coordinates: polygon };
}

describe("polygonsMeet", () => {
  it("agrees with turf booleanIntersects on random areas: apart, crossing, nested, in holes", () => {
    const next = random(31337);
    let meeting = 0;
    for (let round = 0; round < 3000; round++) {
      const a = randomArea(next);
      const b = randomArea(next);
      const expected = booleanIntersects(a as GeoJSON.Geometry, b as GeoJSON.Geometry);
      expect(polygonsMeet(a, b), JSON.stringify([a, b])).toBe(expected);
      expect(polygonsMeet(b, a)).toBe(expected);
      if (expected) meeting++;
    }
    expect(meeting).toBeGreaterThan(300);
    expect(meeting).toBeLessThan(2700);
  });

  it("tells nesting from a hole: inside the shell meets, inside the hole does not", () => {
    const square = (x0: number, y0: number, x1: number, y1: number): Position[] => [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
      [x0, y0],
    ];
    const donut: Polygon = {
      type: "Polygon",
      coordinates: [square(0, 0, 10, 10), square(3, 3, 7, 7).reverse()],
    };
    expect(polygonsMeet(donut, { type: "Polygon", coordinates: [square(1, 1, 2, 2)] })).toBe(true);
    expect(polygonsMeet(donut, { type: "Polygon", coordinates: [square(4, 4, 6, 6)] })).toBe(false);
    expect(polygonsMeet({ type: "Polygon", coordinates: [square(4, 4, 6, 6)] }, donut)).toBe(false);
    expect(polygonsMeet(donut, { type: "Polygon", coordinates: [square(-5, -5, 20, 20)] })).toBe(true);
    // Touching edges and corners count, as closed sets.
    expect(polygonsMeet(donut, { type: "Polygon", coordinates: [square(10, 0, 12, 2)] })).toBe(true);
    expect(polygonsMeet(donut, { type: "Polygon", coordinates: [square(10, 10, 12, 12)] })).toBe(true);
    expect(polygonsMeet(donut, { type: "Polygon", coordinates: [square(10.5, 0, 12, 2)] })).toBe(false);
  });

  it("answers a 10,000-position area against a 5,000-position shape", () => {
    const next = random(5);
    const big: Polygon = { type: "Polygon", coordinates: [star(next, -84.2, 36.3, 0.01, 9_999)] };
    const near: Polygon = { type: "Polygon", coordinates: [star(next, -84.2 + 0.0205, 36.3, 0.01, 4_999)] };
    const inner: Polygon = { type: "Polygon", coordinates: [star(next, -84.2, 36.3, 0.001, 4_999)] };
    expect(polygonsMeet(big, near)).toBe(booleanIntersects(big, near));
    expect(polygonsMeet(big, inner)).toBe(true);
  });
});
