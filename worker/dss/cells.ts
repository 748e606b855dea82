import { s2 } from "s2js";

/**
 * Volumes as S2 cells, the way InterUSS's DSS indexes them: every cell of level 13 (about 1 km²)
 * that an outline touches. Cells are kept as S2 tokens (hex strings), since ids of faces 4 and 5 do
 * not fit a signed 64-bit integer.
 */

export const CELL_LEVEL = 13;
/** InterUSS's DSS refuses outlines larger than this. */
export const MAX_AREA_KM2 = 2500;
const EARTH_RADIUS_KM = 6371.0088;
const MAX_CELLS = 10_000;

export interface LatLng {
  lat: number;
  lng: number;
}

export class AreaTooLarge extends Error {}
export class BadOutline extends Error {}

const point = (p: LatLng) => s2.Point.fromLatLng(s2.LatLng.fromDegrees(p.lat, p.lng));

function cover(region: s2.Loop | s2.Cap): string[] {
  const coverer = new s2.RegionCoverer({ minLevel: CELL_LEVEL, maxLevel: CELL_LEVEL, maxCells: MAX_CELLS });
  return [...coverer.covering(region)].map((id) => s2.cellid.toToken(id));
}

function checkPoint(p: LatLng, where: string) {
  if (!(Math.abs(p.lat) <= 90) || !(Math.abs(p.lng) <= 180))
    throw new BadOutline(`${where}: latitude must be within ±90 and longitude within ±180`);
}

/** The level-13 cells of a polygon; either winding is accepted (the smaller side is the inside). */
export function polygonCells(vertices: LatLng[]): string[] {
  if (vertices.length < 3) throw new BadOutline("a polygon needs at least 3 vertices");
  for (const [i, v] of vertices.entries()) checkPoint(v, `vertex ${i}`);
  const points = vertices.map(point);
  // A closing vertex equal to the first would be a zero-length edge.
  if (points.length > 3 && points[0]!.equals(points[points.length - 1]!)) points.pop();
  if (selfCrossing(vertices.slice(0, points.length)))
    throw new BadOutline("the polygon's edges cross each other");
  const loop = new s2.Loop(points);
  if (loop.validate() !== null) throw new BadOutline("the polygon repeats a vertex or has a degenerate edge");
  loop.normalize();
  const areaKm2 = loop.area() * EARTH_RADIUS_KM * EARTH_RADIUS_KM;
  if (areaKm2 > MAX_AREA_KM2)
    throw new AreaTooLarge(`area of ${Math.round(areaKm2)} km² is over the ${MAX_AREA_KM2} km² a DSS covers`);
  return cover(loop);
}

/**
 * Whether two edges that share no vertex cross, in the lat/lng plane (S2's own validation does not
 * look for crossings; a crossing loop has no sound inside). Fine for the small outlines a DSS takes.
 */
function selfCrossing(v: LatLng[]): boolean {
  const side = (a: LatLng, b: LatLng, c: LatLng) =>
    Math.sign((b.lng - a.lng) * (c.lat - a.lat) - (b.lat - a.lat) * (c.lng - a.lng));
  const n = v.length;
  for (let i = 0; i < n; i++) {
    for (let j = i + 2; j < n; j++) {
      if (i === 0 && j === n - 1) continue;
      const [a, b, c, d] = [v[i]!, v[(i + 1) % n]!, v[j]!, v[(j + 1) % n]!];
      if (side(a, b, c) * side(a, b, d) < 0 && side(c, d, a) * side(c, d, b) < 0) return true;
    }
  }
  return false;
}

/** The level-13 cells of a circle of `radiusM` meters. */
export function circleCells(center: LatLng, radiusM: number): string[] {
  checkPoint(center, "center");
  if (!(radiusM > 0)) throw new BadOutline("the radius must be positive");
  const areaKm2 = Math.PI * (radiusM / 1000) ** 2;
  if (areaKm2 > MAX_AREA_KM2)
    throw new AreaTooLarge(`area of ${Math.round(areaKm2)} km² is over the ${MAX_AREA_KM2} km² a DSS covers`);
  const angle = radiusM / 1000 / EARTH_RADIUS_KM;
  return cover(s2.Cap.fromCenterAngle(point(center), angle));
}

/** `lat1,lng1,lat2,lng2,…` (the standard's GeoPolygonString) as vertices. */
export function parsePolygonString(text: string): LatLng[] {
  const numbers = text.split(",").map((s) => Number(s.trim()));
  if (numbers.length < 6 || numbers.length % 2 !== 0 || numbers.some((n) => !Number.isFinite(n)))
    throw new BadOutline("area must be at least 3 points as lat,lng pairs separated by commas");
  const vertices: LatLng[] = [];
  for (let i = 0; i < numbers.length; i += 2) vertices.push({ lat: numbers[i]!, lng: numbers[i + 1]! });
  const [first, last] = [vertices[0]!, vertices[vertices.length - 1]!];
  // The string is an open ring; InterUSS's DSS refuses one closed on its first point.
  if (first.lat === last.lat && first.lng === last.lng)
    throw new BadOutline("area must not repeat its first point at the end");
  return vertices;
}
