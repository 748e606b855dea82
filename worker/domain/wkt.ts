import type { LineString, Point, Polygon, Position } from "geojson";

/**
 * Well-Known Text geometries as the Android SDK sends them in status queries (AirMapSDK-Android
 * StatusService.java 66 and 89, Coordinate.toString "lon lat", Utils.makeGeoString joins with ","):
 * `LINESTRING(lon lat,lon lat)` and `POLYGON(lon lat,…)`, a single ring without its inner
 * parentheses; the standard `POLYGON((lon lat,…),(…))` and `POINT(lon lat)` are read too. Pure:
 * the result is GeoJSON for the checks every geometry takes, or null when the text is not WKT.
 */
export type WktGeometry = Point | LineString | Polygon;

const WKT = /^\s*(POINT|LINESTRING|POLYGON)\s*\(([\s\S]*)\)\s*$/i;

export function looksLikeWkt(text: string): boolean {
  return WKT.test(text);
}

/** The GeoJSON of a WKT text, or a message saying what is wrong with it. */
export function parseWkt(text: string): { ok: true; geometry: WktGeometry } | { ok: false; message: string } {
  const match = WKT.exec(text);
  if (!match) return { ok: false, message: "is not a WKT POINT, LINESTRING or POLYGON" };
  const kind = match[1]!.toUpperCase();
  const body = match[2]!.trim();
  if (kind === "POINT") {
    const positions = positionsOf(body);
    if (positions?.length !== 1) return { ok: false, message: "POINT takes one `lon lat`" };
    return { ok: true, geometry: { type: "Point", coordinates: positions[0]! } };
  }
  if (kind === "LINESTRING") {
    const positions = positionsOf(body);
    if (!positions || positions.length < 2)
      return { ok: false, message: "LINESTRING takes at least two `lon lat` positions, comma-separated" };
    return { ok: true, geometry: { type: "LineString", coordinates: positions } };
  }
  // A polygon's rings in parentheses, or (Android) its one ring bare.
  const ringTexts = body.startsWith("(") ? [...body.matchAll(/\(([^()]*)\)/g)].map((m) => m[1]!) : [body];
  const rings: Position[][] = [];
  for (const ringText of ringTexts) {
    const ring = positionsOf(ringText);
    if (!ring || ring.length < 3)
      return { ok: false, message: "POLYGON rings take at least three `lon lat` positions, comma-separated" };
    const [first, last] = [ring[0]!, ring[ring.length - 1]!];
    if (first[0] !== last[0] || first[1] !== last[1]) ring.push([...first]);
    rings.push(ring);
  }
  if (rings.length === 0) return { ok: false, message: "POLYGON has no ring" };
  return { ok: true, geometry: { type: "Polygon", coordinates: rings } };
}

function positionsOf(text: string): Position[] | null {
  const positions: Position[] = [];
  for (const pair of text.split(",")) {
    const numbers = pair.trim().split(/\s+/).map(Number);
    if (numbers.length < 2 || numbers.length > 3 || numbers.some((n) => !Number.isFinite(n))) return null;
    positions.push(numbers);
  }
  return positions;
}
