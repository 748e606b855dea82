import booleanIntersects from "@turf/boolean-intersects";
import pointToPolygonDistance from "@turf/point-to-polygon-distance";
import type * as GeoJSON from "geojson";
import { describe, expect, it } from "vitest";
import { distanceFromPoint, distanceToArea, distanceToRing } from "../../worker/domain/airspace/geometry";
import { type Geometry, type Polygon, type Position, positionsOf } from "../../worker/domain/geojson";

/**
 * distanceToArea against the plain n·m definition (turf's booleanIntersects, then every vertex of
 * each shape measured to the other) on random areas with many vertices: the bucketed search must
 * give the very same number, not a close one.
 */

function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A star-shaped ring around (cx, cy): simple by construction; clockwise when `reverse`. */
function star(next: () => number, cx: number, cy: number, radius: number, size: number, reverse = false) {
  const ring: Position[] = Array.from({ length: size }, (_, i) => {
    const angle = (2 * Math.PI * i) / size;
    const r = radius * (0.5 + 0.5 * next());
    return [cx + (r * Math.cos(angle)) / 0.79, cy + r * Math.sin(angle)];
  });
  if (reverse) ring.reverse();
  return [...ring, ring[0]!];
}

/** The definition, pair by pair, as the code before the bucketed search measured it. */
function reference(geometry: Geometry, area: Polygon): number {
  if (geometry.type === "Point") return distanceFromPoint(area, geometry.coordinates);
  if (booleanIntersects(geometry as GeoJSON.Geometry, area as GeoJSON.Polygon)) return 0;
  let nearest = Number.POSITIVE_INFINITY;
  for (const vertex of area.coordinates[0]!) nearest = Math.min(nearest, distanceFromPoint(geometry, vertex));
  for (const vertex of positionsOf(geometry)) nearest = Math.min(nearest, distanceFromPoint(area, vertex));
  return nearest;
}

/** A feature of a random kind near (cx, cy). */
function feature(next: () => number, cx: number, cy: number): Geometry {
  const x = cx + (next() - 0.5) * 0.12;
  const y = cy + (next() - 0.5) * 0.1;
  const radius = 0.001 + next() * 0.02;
  const kind = next();
  if (kind < 0.15) return { type: "Point", coordinates: [x, y] };
  if (kind < 0.3)
    return {
      type: "LineString",
      coordinates: Array.from({ length: 2 + Math.floor(next() * 30) }, () => [
        x + (next() - 0.5) * radius,
        y + (next() - 0.5) * radius,
      ]),
    };
  const size = 3 + Math.floor(next() * 60);
  if (kind < 0.45)
    return {
      type: "Polygon",
      coordinates: [star(next, x, y, radius, size), star(next, x, y, radius * 0.3, 8, true)],
    };
  if (kind < 0.55)
    return {
      type: "MultiPolygon",
      coordinates: [[star(next, x, y, radius, size)], [star(next, x + 0.05, y, radius, 12)]],
    };
  return { type: "Polygon", coordinates: [star(next, x, y, radius, size)] };
}

describe("distanceToArea on large areas", () => {
  it("equals the pairwise definition exactly on random areas of hundreds of vertices", () => {
    const next = random(2026);
    let apart = 0;
    let meeting = 0;
    for (let round = 0; round < 4; round++) {
      const cx = -122.38 + (next() - 0.5) * 0.1;
      const cy = 37.62 + (next() - 0.5) * 0.1;
      const area: Polygon = {
        type: "Polygon",
        coordinates: [star(next, cx, cy, 0.01 + next() * 0.02, 400 + Math.floor(next() * 400))],
      };
      for (let i = 0; i < 20; i++) {
        const f = feature(next, cx, cy);
        const expected = reference(f, area);
        expect(distanceToArea(f, area), JSON.stringify(f).slice(0, 200)).toBe(expected);
        if (expected === 0) meeting++;
        else apart++;
      }
    }
    // Both branches exercised: the meeting test and the nearest-vertex search.
    expect(apart).toBeGreaterThan(25);
    expect(meeting).toBeGreaterThan(5);
    // The reference is the slow n·m scan; a loaded machine needs more than the default minute.
  }, 240_000);

  it("a many-vertex feature against a small area, and a zigzag area with near-touching teeth", () => {
    const next = random(7);
    const small: Polygon = { type: "Polygon", coordinates: [star(next, -122.38, 37.62, 0.004, 5)] };
    const bigFeature: Geometry = { type: "Polygon", coordinates: [star(next, -122.33, 37.63, 0.03, 1500)] };
    expect(distanceToArea(bigFeature, small)).toBe(reference(bigFeature, small));
    // Teeth 4 m apart, 0.5 km long: many edges within reach of each other's vertices.
    const teeth: Position[] = [];
    for (let i = 0; i < 600; i++) teeth.push([-122.4 + i * 0.00005, 37.6 + (i % 2) * 0.005]);
    const zigzag: Polygon = {
      type: "Polygon",
      coordinates: [[...teeth, [-122.4 + 599 * 0.00005, 37.59], [-122.4, 37.59], teeth[0]!]],
    };
    for (let i = 0; i < 8; i++) {
      const f = feature(next, -122.385, 37.602);
      expect(distanceToArea(f, zigzag)).toBe(reference(f, zigzag));
    }
  });

  it("keeps the plain scan for areas with holes, matching turf's point-to-polygon distance", () => {
    const next = random(11);
    const holed: Polygon = {
      type: "Polygon",
      coordinates: [star(next, -122.38, 37.62, 0.02, 500), star(next, -122.38, 37.62, 0.005, 50, true)],
    };
    const inHole: Geometry = { type: "Point", coordinates: [-122.38, 37.62] };
    const expected = pointToPolygonDistance([-122.38, 37.62], holed as GeoJSON.Polygon, { units: "meters" });
    expect(distanceToArea(inHole, holed)).toBe(Math.max(0, expected));
    expect(distanceToArea(inHole, holed)).toBeGreaterThan(100);
    const ring = holed.coordinates[1]!;
    expect(distanceToRing(ring, [-122.2, 37.62])).toBeGreaterThan(10_000);
  });
});
