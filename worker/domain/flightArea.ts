import turfBuffer from "@turf/buffer";
import turfCircle from "@turf/circle";
import turfDistance from "@turf/distance";
import {
  type LineString,
  type Point,
  type Polygon,
  type Position,
  positionsOf,
  roundCoordinate,
} from "./geojson";
import { ringsIntersect } from "./geometry/selfIntersection";
import type { Problem } from "./problem";

/** CONTRACT §1: a geometry of more positions than this is 413. */
export const MAX_POSITIONS = 10_000;

/**
 * Checks a flight geometry: GeoJSON shape, ranges, closed simple rings, size; null when valid. The
 * problem names `geometry` wherever the geometry came from; too many positions is `tooLarge`.
 */
export function geometryProblem(input: unknown, buffer: number | undefined): Problem | null {
  if (typeof input !== "object" || input === null) return bad("must be a GeoJSON geometry object");
  const { type, coordinates } = input as { type?: unknown; coordinates?: unknown };
  if (type !== "Polygon" && type !== "LineString" && type !== "Point") {
    return bad("type must be Polygon, LineString or Point");
  }
  if (type === "Point") {
    if (!isPosition(coordinates)) return bad("a Point's coordinates are [longitude, latitude] in range");
    return (buffer ?? 0) > 0 ? null : bad("a Point needs a buffer > 0 (meters)");
  }
  if (type === "LineString") {
    if (!Array.isArray(coordinates) || coordinates.length < 2)
      return bad("a LineString needs at least 2 positions");
    if (coordinates.length > MAX_POSITIONS) return tooLarge();
    if (!coordinates.every(isPosition)) return bad("every position is [longitude, latitude] in range");
    return (buffer ?? 0) > 0 ? null : bad("a LineString needs a buffer > 0 (meters)");
  }
  if (!Array.isArray(coordinates) || coordinates.length === 0)
    return bad("a Polygon needs at least one ring");
  let positions = 0;
  for (const ring of coordinates) {
    if (!Array.isArray(ring)) return bad("each ring is an array of positions");
    positions += ring.length;
    if (positions > MAX_POSITIONS) return tooLarge();
    if (ring.length < 4) return bad("each ring needs at least 4 positions");
    if (!ring.every(isPosition)) return bad("every position is [longitude, latitude] in range");
    const first = ring[0] as Position;
    const last = ring[ring.length - 1] as Position;
    if (first[0] !== last[0] || first[1] !== last[1])
      return bad("each ring must be closed (last position = first)");
  }
  // A sweep line, O(n log n): turf's kinks tested every pair of edges, seconds at 10,000 positions.
  if (ringsIntersect((input as Polygon).coordinates))
    return bad("rings must not intersect, touch or fold onto themselves or each other");
  return null;
}

function bad(message: string): Problem {
  return { field: "geometry", message };
}

function tooLarge(): Problem {
  return { field: "geometry", message: `at most ${MAX_POSITIONS} positions`, tooLarge: true };
}

function isPosition(p: unknown): p is Position {
  return (
    Array.isArray(p) &&
    (p.length === 2 || p.length === 3) &&
    typeof p[0] === "number" &&
    typeof p[1] === "number" &&
    Number.isFinite(p[0]) &&
    Number.isFinite(p[1]) &&
    p[0] >= -180 &&
    p[0] <= 180 &&
    p[1] >= -90 &&
    p[1] <= 90
  );
}

/** The flight area: a Polygon as given, or a LineString/Point buffered by `buffer` meters. */
export function flightArea(geometry: Polygon | LineString | Point, buffer: number): Polygon {
  if (geometry.type === "Polygon") return geometry;
  if (geometry.type === "Point") return bufferCircle(geometry.coordinates, buffer);
  const buffered = turfBuffer(geometry, buffer, { units: "meters", steps: 16 });
  if (buffered?.geometry.type !== "Polygon") throw new Error("buffering a LineString gave no polygon");
  return roundedPolygon(buffered.geometry as Polygon);
}

/** A circle of `radius` meters around a point: a closed 32-sided Polygon, as the original platform drew it. */
export function bufferCircle(center: Position, radius: number): Polygon {
  return roundedPolygon(turfCircle(center, radius, { units: "meters", steps: 32 }).geometry as Polygon);
}

/** Computed areas keep 7 decimal places (about 1 cm): more is noise that every flight list would carry. */
function roundedPolygon(polygon: Polygon): Polygon {
  return {
    type: "Polygon",
    coordinates: polygon.coordinates.map((ring) =>
      ring.map(([lng, lat]) => [roundCoordinate(lng), roundCoordinate(lat)] as Position),
    ),
  };
}

/** Hulls up to this many vertices are measured pair by pair, exactly as before. */
const EXACT_HULL = 256;

/**
 * The longest straight distance across the area, in meters: the farthest pair of hull vertices.
 * A large hull (a circle drawn with thousands of positions) is measured by rotating calipers over
 * an equirectangular projection, which names the few antipodal pairs; their great-circle distances
 * decide. Linear instead of quadratic in the hull's size.
 */
export function maxLinearExtent(area: Polygon): number {
  const hull = convexHull(positionsOf(area));
  let longest = 0;
  const measure = (a: Position, b: Position) => {
    const d = turfDistance(a, b, { units: "meters" });
    if (d > longest) longest = d;
  };
  if (hull.length <= EXACT_HULL) {
    for (let i = 0; i < hull.length; i++)
      for (let j = i + 1; j < hull.length; j++) measure(hull[i]!, hull[j]!);
  } else {
    for (const [i, j] of antipodalPairs(hull)) {
      measure(hull[i]!, hull[j]!);
      measure(hull[i]!, hull[(j + 1) % hull.length]!);
      measure(hull[i]!, hull[(j + hull.length - 1) % hull.length]!);
    }
  }
  return Math.round(longest * 100) / 100;
}

/** Antipodal vertex pairs of a counter-clockwise convex hull (Shamos's rotating calipers). */
function antipodalPairs(hull: Position[]): [number, number][] {
  const m = hull.length;
  const scale = Math.cos((hull.reduce((sum, p) => sum + p[1], 0) / m) * (Math.PI / 180));
  const xy = hull.map(([lng, lat]) => [lng * scale, lat] as const);
  const twiceArea = (a: number, b: number, c: number) =>
    Math.abs(
      (xy[b]![0] - xy[a]![0]) * (xy[c]![1] - xy[a]![1]) - (xy[b]![1] - xy[a]![1]) * (xy[c]![0] - xy[a]![0]),
    );
  const pairs: [number, number][] = [];
  let j = 1;
  for (let i = 0; i < m; i++) {
    const next = (i + 1) % m;
    // Move j to the vertex farthest from the edge i→next; it stays antipodal to both ends.
    for (let steps = 0; steps < m && twiceArea(i, next, (j + 1) % m) > twiceArea(i, next, j); steps++)
      j = (j + 1) % m;
    pairs.push([i, j], [next, j]);
  }
  return pairs;
}

/** Andrew's monotone chain: the hull is small even when the polygon has thousands of vertices. */
function convexHull(points: Position[]): Position[] {
  const sorted = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (sorted.length < 3) return sorted;
  const cross = (o: Position, a: Position, b: Position) =>
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Position[] = [];
  for (const p of sorted) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0)
      lower.pop();
    lower.push(p);
  }
  const upper: Position[] = [];
  for (const p of sorted.reverse()) {
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0)
      upper.pop();
    upper.push(p);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}
