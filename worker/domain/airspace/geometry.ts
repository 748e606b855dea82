import booleanIntersects from "@turf/boolean-intersects";
import booleanPointInPolygon from "@turf/boolean-point-in-polygon";
import turfDistance from "@turf/distance";
import pointToPolygonDistance from "@turf/point-to-polygon-distance";
import type * as GeoJSON from "geojson";
import {
  type BBox,
  bboxOf,
  type Geometry,
  type MultiPolygon,
  type Polygon,
  type Position,
  positionsOf,
} from "../geojson";
import { polygonsMeet } from "../geometry/polygonsMeet";

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

/**
 * Meters between a geometry and a flight area: 0 when they meet. Otherwise the nearest of every
 * area vertex to the geometry and every geometry vertex to the area, which `nearestBetween` finds
 * without measuring each pair for large inputs.
 */
export function distanceToArea(geometry: Geometry, area: Polygon): number {
  if (geometry.type === "Point") return distanceFromPoint(area, geometry.coordinates);
  if (meets(geometry, area)) return 0;
  if (fastPathFits(geometry, area)) return nearestBetween(geometry, area);
  let nearest = Number.POSITIVE_INFINITY;
  for (const vertex of area.coordinates[0]!) nearest = Math.min(nearest, distanceFromPoint(geometry, vertex));
  for (const vertex of positionsOf(geometry)) nearest = Math.min(nearest, distanceFromPoint(area, vertex));
  return nearest;
}

/** turf's booleanIntersects, by polygonsMeet for areas (turf's is n·m in positions). */
function meets(geometry: Geometry, area: Polygon): boolean {
  if (geometry.type === "Polygon" || geometry.type === "MultiPolygon") return polygonsMeet(geometry, area);
  return booleanIntersects(geometry as GeoJSON.Geometry, area as GeoJSON.Polygon);
}

/**
 * Where the box bounds below hold (a flat lower bound of the geodesic distance, ten percent under
 * it): small spans away from the poles and the antimeridian, and an area of one ring. Elsewhere the
 * plain pairwise scan answers.
 */
function fastPathFits(geometry: Geometry, area: Polygon): boolean {
  if (area.coordinates.length !== 1) return false;
  const a = bboxOf(area);
  const g = bboxOf(geometry);
  const minLng = Math.min(a.minLng, g.minLng);
  const maxLng = Math.max(a.maxLng, g.maxLng);
  const minLat = Math.min(a.minLat, g.minLat);
  const maxLat = Math.max(a.maxLat, g.maxLat);
  return (
    maxLng - minLng <= 10 &&
    maxLat - minLat <= 10 &&
    minLng >= -170 &&
    maxLng <= 170 &&
    minLat >= -80 &&
    maxLat <= 80
  );
}

/**
 * The same minimum as the pairwise scan, the same arithmetic for each pair it measures, but pairs
 * whose boxes lie farther apart than the nearest found so far are skipped: edges are bucketed on a
 * grid, so each vertex measures only the edges near it. Neither shape holds a vertex of the other
 * (they do not meet), so no point-in-polygon test is needed.
 */
function nearestBetween(geometry: Geometry, area: Polygon): number {
  const areaIndex = edgeIndexOf(area.coordinates[0]!);
  const geometryBox = bboxOf(geometry);
  const ringIndex =
    geometry.type === "Polygon" && geometry.coordinates.length === 1
      ? edgeIndexOf(geometry.coordinates[0]!)
      : undefined;
  let nearest = Number.POSITIVE_INFINITY;
  // The geometry's vertices first: features are small, so a near bound is found cheaply.
  // Nearest boxes first, so the bound tightens early; the order does not change the minimum.
  for (const [vertex, reach] of byReach(positionsOf(geometry), areaIndex.box)) {
    if (reach > nearest) break;
    nearest = Math.min(nearest, areaIndex.nearest(vertex, nearest));
  }
  for (const [vertex, reach] of byReach(area.coordinates[0]!, geometryBox, nearest)) {
    if (reach > nearest) break;
    const d = ringIndex ? ringIndex.nearest(vertex, nearest) : distanceFromPoint(geometry, vertex);
    nearest = Math.min(nearest, d);
  }
  return nearest;
}

/** A lower bound of the meters across a gap of so many degrees, scaled by kx (cos of the widest latitude). */
function gapX(degrees: number, kx: number): number {
  return 0.9 * Math.max(0, degrees) * kx * 111_195;
}

/** The vertices within `within` meters of the box (by the box bound), nearest first. */
function byReach(vertices: Position[], box: BBox, within = Number.POSITIVE_INFINITY): [Position, number][] {
  const near: [Position, number][] = [];
  for (const vertex of vertices) {
    const reach = metersBetweenBoxes(pointBox(vertex), box);
    if (reach <= within) near.push([vertex, reach]);
  }
  return near.sort((a, b) => a[1] - b[1]);
}

function pointBox([lng, lat]: Position): BBox {
  return { minLng: lng, maxLng: lng, minLat: lat, maxLat: lat };
}

/** Built once per ring object: one plan area is measured against every nearby feature. */
const edgeIndexes = new WeakMap<Position[], EdgeIndex>();
function edgeIndexOf(ring: Position[]): EdgeIndex {
  let index = edgeIndexes.get(ring);
  if (!index) {
    index = new EdgeIndex(ring);
    edgeIndexes.set(ring, index);
  }
  return index;
}

/**
 * A ring's edges bucketed on a grid of about one cell per edge. Each edge is listed in the cells
 * its box (padded for the great-circle bulge) overlaps, so every point of its arc lies in its cells.
 */
class EdgeIndex {
  readonly box: BBox;
  private readonly cols: number;
  private readonly rows: number;
  private readonly cellW: number;
  private readonly cellH: number;
  private readonly cells: number[][];
  private readonly edgeBoxes: BBox[] = [];
  /** The ring's vertices with their unit vectors, made once: a point measures many edges. */
  private readonly points: ArcPoint[];
  private readonly seen: Uint32Array;
  private stamp = 0;
  /** The widest latitude (absolute) any edge's arc reaches. */
  private readonly widest: number;

  constructor(ring: Position[]) {
    const box = bboxOf({ type: "LineString", coordinates: ring });
    this.box = box;
    const edges = Math.max(1, ring.length - 1);
    const side = Math.max(1, Math.ceil(Math.sqrt(edges)));
    const w = box.maxLng - box.minLng;
    const h = box.maxLat - box.minLat;
    this.cols = w > 0 ? side : 1;
    this.rows = h > 0 ? side : 1;
    this.cellW = w > 0 ? w / this.cols : 1;
    this.cellH = h > 0 ? h / this.rows : 1;
    this.cells = Array.from({ length: this.cols * this.rows }, () => []);
    this.seen = new Uint32Array(edges);
    this.points = ring.map(([lng, lat]) => new ArcPoint(lng, lat));
    let widest = Math.max(Math.abs(box.minLat), Math.abs(box.maxLat));
    for (let i = 0; i + 1 < ring.length; i++) {
      const a = ring[i]!;
      const b = ring[i + 1]!;
      // A great-circle arc strays from its chord's box by about L²/8·tan(lat) (radians); pad by far more.
      const length = Math.hypot(a[0] - b[0], a[1] - b[1]);
      const pad = 0.01 * length * length * (1 + Math.tan((82 * Math.PI) / 180)) + 1e-9;
      const edgeBox: BBox = {
        minLng: Math.min(a[0], b[0]) - pad,
        maxLng: Math.max(a[0], b[0]) + pad,
        minLat: Math.min(a[1], b[1]) - pad,
        maxLat: Math.max(a[1], b[1]) + pad,
      };
      widest = Math.max(widest, Math.abs(edgeBox.minLat), Math.abs(edgeBox.maxLat));
      this.edgeBoxes.push(edgeBox);
      const [c0, c1] = [this.col(edgeBox.minLng), this.col(edgeBox.maxLng)];
      const [r0, r1] = [this.row(edgeBox.minLat), this.row(edgeBox.maxLat)];
      for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) this.cells[r * this.cols + c]!.push(i);
    }
    this.widest = widest;
  }

  private col(lng: number): number {
    return Math.min(this.cols - 1, Math.max(0, Math.floor((lng - this.box.minLng) / this.cellW)));
  }
  private row(lat: number): number {
    return Math.min(this.rows - 1, Math.max(0, Math.floor((lat - this.box.minLat) / this.cellH)));
  }

  /**
   * distanceToRing(ring, point) for a point outside the ring, when that is at most `within`
   * meters; otherwise some value above `within`. Cells are visited in growing squares around the
   * point's cell until everything unvisited lies farther than the nearest edge found.
   */
  nearest(point: Position, within: number): number {
    this.stamp++;
    if (this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    const home = [this.col(point[0]), this.row(point[1])] as const;
    let nearestDeg = Number.POSITIVE_INFINITY;
    let bound = within;
    const at = new ArcPoint(point[0], point[1]);
    const kx = Math.cos((Math.max(this.widest, Math.abs(point[1])) * Math.PI) / 180);
    for (let k = 0; ; k++) {
      const c0 = home[0] - k;
      const c1 = home[0] + k;
      const r0 = home[1] - k;
      const r1 = home[1] + k;
      for (let r = Math.max(0, r0); r <= Math.min(this.rows - 1, r1); r++) {
        const ring = r === r0 || r === r1;
        for (let c = Math.max(0, c0); c <= Math.min(this.cols - 1, c1); c++) {
          if (!ring && c !== c0 && c !== c1) continue;
          for (const i of this.cells[r * this.cols + c]!) {
            if (this.seen[i] === this.stamp) continue;
            this.seen[i] = this.stamp;
            if (this.lowerBound(point, this.edgeBoxes[i]!) > bound) continue;
            const d = arcDegrees(this.points[i]!, this.points[i + 1]!, at);
            if (d < nearestDeg) {
              nearestDeg = d;
              bound = Math.min(bound, degreesToMeters(d));
            }
          }
        }
      }
      // Everything unvisited lies beyond the square's sides that are not the grid's own.
      let beyond = Number.POSITIVE_INFINITY;
      if (c0 > 0) beyond = Math.min(beyond, gapX(point[0] - (this.box.minLng + c0 * this.cellW), kx));
      if (c1 < this.cols - 1)
        beyond = Math.min(beyond, gapX(this.box.minLng + (c1 + 1) * this.cellW - point[0], kx));
      if (r0 > 0) beyond = Math.min(beyond, gapX(point[1] - (this.box.minLat + r0 * this.cellH), 1));
      if (r1 < this.rows - 1)
        beyond = Math.min(beyond, gapX(this.box.minLat + (r1 + 1) * this.cellH - point[1], 1));
      if (beyond === Number.POSITIVE_INFINITY || beyond > bound) break;
    }
    return nearestDeg === Number.POSITIVE_INFINITY
      ? Number.POSITIVE_INFINITY
      : Math.max(0, degreesToMeters(nearestDeg));
  }

  /** A lower bound of the meters from the point to the box, as metersBetweenBoxes. */
  private lowerBound(p: Position, box: BBox): number {
    const dx = Math.max(0, box.minLng - p[0], p[0] - box.maxLng);
    const dy = Math.max(0, box.minLat - p[1], p[1] - box.maxLat);
    const widest = Math.max(Math.abs(p[1]), Math.abs(box.minLat), Math.abs(box.maxLat));
    return 0.9 * Math.hypot(dy, dx * Math.cos((widest * Math.PI) / 180)) * 111_195;
  }
}

/**
 * turf's pointToPolygonDistance for a polygon of one ring (0 inside), the same arithmetic step by
 * step (the geodesic nearest point on each edge) without turf's GeoJSON objects per edge: a status
 * answer measures it for each of thousands of facility-map cells.
 */
export function distanceToRing(ring: Position[], point: Position): number {
  if (booleanPointInPolygon(point, { type: "Polygon", coordinates: [ring] })) return 0;
  const at = new ArcPoint(point[0], point[1]);
  let nearest = Number.POSITIVE_INFINITY;
  let from = new ArcPoint(ring[0]![0], ring[0]![1]);
  for (let i = 1; i < ring.length; i++) {
    const to = new ArcPoint(ring[i]![0], ring[i]![1]);
    nearest = Math.min(nearest, arcDegrees(from, to, at));
    from = to;
  }
  return Math.max(0, degreesToMeters(nearest));
}

/**
 * distanceToRing for a grid-aligned box (a facility-map cell), to the bit: 0 inside, else the
 * nearest of the edges that face the point (the others lie behind them), each measured along the
 * ring's own direction. The same arithmetic as turf's, written with plain numbers: a wide status
 * answer measures a thousand cells, and turf's arrays and helpers were most of the cost.
 */
export function distanceToBox(box: BBox, point: Position): number {
  const [lng, lat] = point;
  const west = lng < box.minLng;
  const east = lng > box.maxLng;
  const south = lat < box.minLat;
  const north = lat > box.maxLat;
  if (!(west || east || south || north)) return 0;
  const at = new ArcPoint(lng, lat);
  const sw = new ArcPoint(box.minLng, box.minLat);
  const nw = west || north ? new ArcPoint(box.minLng, box.maxLat) : sw;
  const se = south || east ? new ArcPoint(box.maxLng, box.minLat) : sw;
  const ne = east || north ? new ArcPoint(box.maxLng, box.maxLat) : sw;
  let nearest = Number.POSITIVE_INFINITY;
  if (south) nearest = Math.min(nearest, arcDegrees(sw, se, at));
  if (east) nearest = Math.min(nearest, arcDegrees(se, ne, at));
  if (north) nearest = Math.min(nearest, arcDegrees(ne, nw, at));
  if (west) nearest = Math.min(nearest, arcDegrees(nw, sw, at));
  return Math.max(0, degreesToMeters(nearest));
}

/** turf's constants and unit conversions, operation for operation. */
const EARTH_RADIUS_M = 6371008.8;
const DEGREES_PER_RADIAN = 360 / (2 * Math.PI);
const toRadians = (degrees: number) => ((degrees % 360) * Math.PI) / 180;
const toDegrees = (radians: number) => ((radians % (2 * Math.PI)) * 180) / Math.PI;
/** convertLength(degrees, "degrees", "meters"). */
const degreesToMeters = (degrees: number) => (degrees / DEGREES_PER_RADIAN) * EARTH_RADIUS_M;

/** A position and its unit vector. */
class ArcPoint {
  readonly x: number;
  readonly y: number;
  readonly z: number;
  constructor(
    readonly lng: number,
    readonly lat: number,
  ) {
    const phi = toRadians(lat);
    const lambda = toRadians(lng);
    this.x = Math.cos(phi) * Math.cos(lambda);
    this.y = Math.cos(phi) * Math.sin(lambda);
    this.z = Math.sin(phi);
  }
}

/**
 * Degrees from c to the nearest point of the great-circle arc a–b, as turf measures it
 * (@turf/nearest-point-on-line's nearest point, then turf's distance), with plain numbers.
 */
function arcDegrees(a: ArcPoint, b: ArcPoint, c: ArcPoint): number {
  let lng: number;
  let lat: number;
  if (b.lng === c.lng && b.lat === c.lat) [lng, lat] = [b.lng, b.lat];
  else if (a.lng === c.lng && a.lat === c.lat) [lng, lat] = [a.lng, a.lat];
  else {
    const ax = a.y * b.z - a.z * b.y;
    const ay = a.z * b.x - a.x * b.z;
    const az = a.x * b.y - a.y * b.x;
    const tx = ay * c.z - az * c.y;
    const ty = az * c.x - ax * c.z;
    const tz = ax * c.y - ay * c.x;
    if (ax === 0 && ay === 0 && az === 0) {
      const ahead = a.x * b.x + a.y * b.y + a.z * b.z > 0;
      [lng, lat] = ahead ? [b.lng, b.lat] : [c.lng, c.lat];
    } else if (tx === 0 && ty === 0 && tz === 0) [lng, lat] = [b.lng, b.lat];
    else {
      let ix = ty * az - tz * ay;
      let iy = tz * ax - tx * az;
      let iz = tx * ay - ty * ax;
      const iLength = Math.sqrt(ix * ix + iy * iy + iz * iz);
      ix /= iLength;
      iy /= iLength;
      iz /= iLength;
      // Of ±I the one nearer c: c·(−I) is exactly −(c·I).
      if (!(c.x * ix + c.y * iy + c.z * iz > 0)) [ix, iy, iz] = [-ix, -iy, -iz];
      const axisLength = Math.sqrt(ax * ax + ay * ay + az * az);
      const nx = ax / axisLength;
      const ny = ay / axisLength;
      const nz = az / axisLength;
      const afterA = (a.y * iz - a.z * iy) * nx + (a.z * ix - a.x * iz) * ny + (a.x * iy - a.y * ix) * nz;
      const beforeB = (iy * b.z - iz * b.y) * nx + (iz * b.x - ix * b.z) * ny + (ix * b.y - iy * b.x) * nz;
      if (afterA >= 0 && beforeB >= 0) {
        lng = toDegrees(Math.atan2(iy, ix));
        lat = toDegrees(Math.asin(Math.min(Math.max(iz, -1), 1)));
      } else {
        const towardA = a.x * c.x + a.y * c.y + a.z * c.z > b.x * c.x + b.y * c.y + b.z * c.z;
        [lng, lat] = towardA ? [a.lng, a.lat] : [b.lng, b.lat];
      }
    }
  }
  const sinLat = Math.sin(toRadians(lat - c.lat) / 2);
  const sinLng = Math.sin(toRadians(lng - c.lng) / 2);
  const h = sinLat * sinLat + sinLng * sinLng * Math.cos(toRadians(c.lat)) * Math.cos(toRadians(lat));
  return 2 * Math.atan2(Math.sqrt(h), Math.sqrt(1 - h)) * DEGREES_PER_RADIAN;
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
