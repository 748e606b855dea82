import booleanIntersects from "@turf/boolean-intersects";
import booleanPointInPolygon from "@turf/boolean-point-in-polygon";
import turfDistance from "@turf/distance";
import { convertLength, degreesToRadians, radiansToDegrees } from "@turf/helpers";
import pointToPolygonDistance from "@turf/point-to-polygon-distance";
import type * as GeoJSON from "geojson";
import {
  type BBox,
  type Geometry,
  type MultiPolygon,
  type Polygon,
  type Position,
  positionsOf,
} from "../geojson";

/** Distances between advisories and flight areas, in meters, rounded to whole meters. */

export function pointDistance(a: Position, b: Position): number {
  return turfDistance(a, b, { units: "meters" });
}

/** Meters from a point to a geometry: 0 inside a polygon or on a shape. */
export function distanceFromPoint(geometry: Geometry, point: Position): number {
  switch (geometry.type) {
    case "Point":
      return pointDistance(point, geometry.coordinates);
    case "LineString":
      return Math.min(...segments(geometry.coordinates).map(([a, b]) => segmentDistance(point, a, b)));
    case "Polygon":
      if (geometry.coordinates.length === 1) return distanceToRing(geometry.coordinates[0]!, point);
      return Math.max(0, pointToPolygonDistance(point, geometry as GeoJSON.Polygon, { units: "meters" }));
    case "MultiPolygon":
      return Math.max(
        0,
        pointToPolygonDistance(point, geometry as GeoJSON.MultiPolygon, { units: "meters" }),
      );
  }
}

/** Meters between a geometry and a flight area: 0 when they meet. */
export function distanceToArea(geometry: Geometry, area: Polygon): number {
  if (geometry.type === "Point") return distanceFromPoint(area, geometry.coordinates);
  if (booleanIntersects(geometry as GeoJSON.Geometry, area as GeoJSON.Polygon)) return 0;
  let nearest = Number.POSITIVE_INFINITY;
  for (const vertex of area.coordinates[0]!) nearest = Math.min(nearest, distanceFromPoint(geometry, vertex));
  for (const vertex of positionsOf(geometry)) nearest = Math.min(nearest, distanceFromPoint(area, vertex));
  return nearest;
}

/**
 * turf's pointToPolygonDistance for a polygon of one ring (0 inside), the same arithmetic step by
 * step (the geodesic nearest point on each edge) without turf's GeoJSON objects per edge: a status
 * answer measures it for each of thousands of facility-map cells.
 */
export function distanceToRing(ring: Position[], point: Position): number {
  if (booleanPointInPolygon(point, { type: "Polygon", coordinates: [ring] })) return 0;
  let nearest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < ring.length - 1; i++) {
    const a = ring[i]!;
    const b = ring[i + 1]!;
    let on: Position;
    if (b[0] === point[0] && b[1] === point[1]) on = b;
    else if (a[0] === point[0] && a[1] === point[1]) on = a;
    else on = nearestOnArc(a, b, point);
    const d = turfDistance(point, on, { units: "degrees" });
    if (d < nearest) nearest = d;
  }
  return Math.max(0, convertLength(nearest, "degrees", "meters"));
}

type Vector = [number, number, number];
const dot = (a: Vector, b: Vector) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: Vector, b: Vector): Vector => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
function normalize(v: Vector): Vector {
  // fdlibm's pow(x, 2) is x * x, so this matches turf's Math.pow to the bit.
  const length = Math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  return [v[0] / length, v[1] / length, v[2] / length];
}
function toVector(p: Position): Vector {
  const lat = degreesToRadians(p[1]);
  const lng = degreesToRadians(p[0]);
  return [Math.cos(lat) * Math.cos(lng), Math.cos(lat) * Math.sin(lng), Math.sin(lat)];
}

/** @turf/nearest-point-on-line's nearest point of the great-circle arc a–b to c. */
function nearestOnArc(a: Position, b: Position, c: Position): Position {
  const A = toVector(a);
  const B = toVector(b);
  const C = toVector(c);
  const axis = cross(A, B);
  if (axis[0] === 0 && axis[1] === 0 && axis[2] === 0) return dot(A, B) > 0 ? b : c;
  const target = cross(axis, C);
  if (target[0] === 0 && target[1] === 0 && target[2] === 0) return b;
  const I1 = normalize(cross(target, axis));
  const I2: Vector = [-I1[0], -I1[1], -I1[2]];
  const I = dot(C, I1) > dot(C, I2) ? I1 : I2;
  const axisNorm = normalize(axis);
  if (dot(cross(A, I), axisNorm) >= 0 && dot(cross(I, B), axisNorm) >= 0) {
    const z = Math.min(Math.max(I[2], -1), 1);
    return [radiansToDegrees(Math.atan2(I[1], I[0])), radiansToDegrees(Math.asin(z))];
  }
  return dot(A, C) > dot(B, C) ? a : b;
}

/**
 * A lower bound of the meters between any point of one box and any point of the other (0 when
 * they meet): ten percent under the flat distance, so it never exceeds turf's geodesic one.
 */
export function metersBetweenBoxes(a: BBox, b: BBox): number {
  const dLat = Math.max(0, a.minLat - b.maxLat, b.minLat - a.maxLat);
  const apart = Math.max(0, a.minLng - b.maxLng, b.minLng - a.maxLng);
  const around = 360 - (Math.max(a.maxLng, b.maxLng) - Math.min(a.minLng, b.minLng));
  const dLng = Math.min(apart, Math.max(0, around), 180);
  if (dLat === 0 && dLng === 0) return 0;
  const widest = Math.min(
    89.9,
    Math.max(Math.abs(a.minLat), Math.abs(a.maxLat), Math.abs(b.minLat), Math.abs(b.maxLat)),
  );
  const kx = Math.cos((widest * Math.PI) / 180);
  return 0.9 * Math.hypot(dLat, dLng * kx) * 111_195;
}

export function containsPoint(geometry: Polygon | MultiPolygon, point: Position): boolean {
  return booleanPointInPolygon(point, geometry as GeoJSON.Polygon);
}

/** A label point for a shape: the point itself, or the mean of its outer ring. */
export function representativePoint(geometry: Geometry): Position {
  switch (geometry.type) {
    case "Point":
      return geometry.coordinates;
    case "LineString":
      return geometry.coordinates[Math.floor(geometry.coordinates.length / 2)]!;
    case "Polygon":
      return meanOf(geometry.coordinates[0]!);
    case "MultiPolygon": {
      const largest = geometry.coordinates.reduce((a, b) => (b[0]!.length > a[0]!.length ? b : a));
      return meanOf(largest[0]!);
    }
  }
}

function meanOf(ring: Position[]): Position {
  const open = ring.length > 1 ? ring.slice(0, -1) : ring;
  let lng = 0;
  let lat = 0;
  for (const [x, y] of open) {
    lng += x;
    lat += y;
  }
  return [lng / open.length, lat / open.length];
}

function segments(line: Position[]): [Position, Position][] {
  if (line.length === 1) return [[line[0]!, line[0]!]];
  return line.slice(1).map((b, i) => [line[i]!, b]);
}

/** Distance to a short segment on a local flat projection; plenty for advisory distances. */
function segmentDistance(p: Position, a: Position, b: Position): number {
  const kx = Math.cos((p[1] * Math.PI) / 180);
  const ax = (a[0] - p[0]) * kx;
  const ay = a[1] - p[1];
  const bx = (b[0] - p[0]) * kx;
  const by = b[1] - p[1];
  const dx = bx - ax;
  const dy = by - ay;
  const lengthSquared = dx * dx + dy * dy;
  const t = lengthSquared === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / lengthSquared));
  const cx = ax + t * dx;
  const cy = ay + t * dy;
  return Math.hypot(cx, cy) * 111_195;
}
