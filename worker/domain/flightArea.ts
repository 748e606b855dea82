import turfBuffer from "@turf/buffer";
import turfCircle from "@turf/circle";
import turfDistance from "@turf/distance";
import kinks from "@turf/kinks";
import { ApiError } from "../lib/errors";
import {
  type LineString,
  type Point,
  type Polygon,
  type Position,
  positionsOf,
  roundCoordinate,
} from "./geojson";

/** CONTRACT §1: a geometry of more positions than this is 413. */
export const MAX_POSITIONS = 10_000;

export type GeometryProblem = { status: 400 | 413; message: string };

/** Checks a flight geometry: GeoJSON shape, ranges, closed simple rings, size; null when valid. */
export function geometryProblem(input: unknown, buffer: number | undefined): GeometryProblem | null {
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
  const polygon = input as Polygon;
  if (kinks(polygon).features.length > 0) return bad("rings must not intersect themselves or each other");
  return null;
}

/** The JSend error for a geometry problem; `geometry` names the field wherever it came from. */
export function geometryError(problem: GeometryProblem): ApiError {
  return new ApiError(problem.status, `Invalid geometry: ${problem.message}`, [
    { name: "geometry", message: problem.message },
  ]);
}

function bad(message: string): GeometryProblem {
  return { status: 400, message };
}

function tooLarge(): GeometryProblem {
  return { status: 413, message: `at most ${MAX_POSITIONS} positions` };
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

/** The longest straight distance across the area, in meters: the farthest pair of hull vertices. */
export function maxLinearExtent(area: Polygon): number {
  const hull = convexHull(positionsOf(area));
  let longest = 0;
  for (let i = 0; i < hull.length; i++) {
    for (let j = i + 1; j < hull.length; j++) {
      const d = turfDistance(hull[i]!, hull[j]!, { units: "meters" });
      if (d > longest) longest = d;
    }
  }
  return Math.round(longest * 100) / 100;
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
