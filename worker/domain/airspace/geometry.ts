import booleanIntersects from "@turf/boolean-intersects";
import booleanPointInPolygon from "@turf/boolean-point-in-polygon";
import turfDistance from "@turf/distance";
import pointToPolygonDistance from "@turf/point-to-polygon-distance";
import type * as GeoJSON from "geojson";
import { type Geometry, type MultiPolygon, type Polygon, type Position, positionsOf } from "../geojson";

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
    case "MultiPolygon":
      return Math.max(0, pointToPolygonDistance(point, geometry as GeoJSON.Polygon, { units: "meters" }));
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
