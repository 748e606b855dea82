import type { Polygon, Position } from "../domain/geojson";
import { circlePolygon } from "../domain/geometry/circle";
import { polygonsMeet } from "../domain/geometry/polygonsMeet";
import { METERS_PER_FOOT } from "../domain/units";
import { isObject } from "../lib/json";

/**
 * The interfaces' geotemporal shapes (ASTM F3548-21 / InterUSS `geotemporal.yaml`): Volume4D,
 * Volume3D with an outline polygon or circle, Altitude, Time and LatLngPoint, read into what the
 * airspace domain works with: a polygon, heights in meters and times in epoch milliseconds.
 *
 * Altitudes are taken as heights above the ground: the airspace rules speak AGL, and the qualifier's
 * test volumes are near the surface. A W84 altitude over high ground reads as higher than it is,
 * which can only make a flight look more restricted, never less.
 */

export interface Volume {
  area: Polygon;
  /** The circle `area` approximates, when the volume was given as one (F3548 passes it on as such). */
  circle?: { center: Position; radiusM: number };
  lowerM: number | null;
  upperM: number | null;
  start: number | null;
  end: number | null;
}

/** A request field the interface's schema refuses; the route answers 400 naming it. */
export class InvalidInput extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** A position filter is a point: a square this wide (meters) stands for it. */
const POINT_SIDE_M = 1;

function finite(v: unknown, field: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new InvalidInput(field, "must be a number");
  return v;
}

export function latLng(v: unknown, field: string): Position {
  if (!isObject(v)) throw new InvalidInput(field, "must be an object with lat and lng");
  const lat = finite(v.lat, `${field}.lat`);
  const lng = finite(v.lng, `${field}.lng`);
  if (Math.abs(lat) > 90) throw new InvalidInput(`${field}.lat`, "must be within ±90");
  if (Math.abs(lng) > 180) throw new InvalidInput(`${field}.lng`, "must be within ±180");
  return [lng, lat];
}

/** `{value, units: M|FT}` as meters. */
function length(v: unknown, field: string): number {
  if (!isObject(v)) throw new InvalidInput(field, "must be an object with value and units");
  const value = finite(v.value, `${field}.value`);
  if (v.units === "M" || v.units === undefined) return value;
  if (v.units === "FT") return value * METERS_PER_FOOT;
  throw new InvalidInput(`${field}.units`, "must be M or FT");
}

export function altitude(v: unknown, field: string): number | null {
  return v === undefined || v === null ? null : length(v, field);
}

export function time(v: unknown, field: string): number | null {
  if (v === undefined || v === null) return null;
  const text = isObject(v) ? v.value : v;
  if (typeof text !== "string") throw new InvalidInput(field, "must be {value: RFC 3339 time}");
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw new InvalidInput(field, "must be an RFC 3339 time");
  return ms;
}

export function volume4d(v: unknown, field: string): Volume {
  if (!isObject(v)) throw new InvalidInput(field, "must be a Volume4D object");
  const volume = v.volume;
  if (!isObject(volume)) throw new InvalidInput(`${field}.volume`, "required");
  let area: Polygon;
  let circle: Volume["circle"];
  if (volume.outline_polygon !== undefined && volume.outline_polygon !== null) {
    const vertices = isObject(volume.outline_polygon) ? volume.outline_polygon.vertices : undefined;
    if (!Array.isArray(vertices) || vertices.length < 3)
      throw new InvalidInput(`${field}.volume.outline_polygon.vertices`, "needs at least 3 vertices");
    const ring = vertices.map((p, i) => latLng(p, `${field}.volume.outline_polygon.vertices.${i}`));
    const [first, last] = [ring[0]!, ring[ring.length - 1]!];
    if (first[0] !== last[0] || first[1] !== last[1]) ring.push([first[0], first[1]]);
    area = { type: "Polygon", coordinates: [ring] };
  } else if (isObject(volume.outline_circle)) {
    const center = latLng(volume.outline_circle.center, `${field}.volume.outline_circle.center`);
    const radius = length(volume.outline_circle.radius, `${field}.volume.outline_circle.radius`);
    if (radius <= 0) throw new InvalidInput(`${field}.volume.outline_circle.radius`, "must be positive");
    area = circlePolygon(center, radius);
    circle = { center, radiusM: radius };
  } else {
    throw new InvalidInput(`${field}.volume`, "needs outline_polygon or outline_circle");
  }
  const lowerM = altitude(volume.altitude_lower, `${field}.volume.altitude_lower`);
  const upperM = altitude(volume.altitude_upper, `${field}.volume.altitude_upper`);
  if (lowerM !== null && upperM !== null && upperM < lowerM)
    throw new InvalidInput(`${field}.volume.altitude_upper`, "must not be below altitude_lower");
  const start = time(v.time_start, `${field}.time_start`);
  const end = time(v.time_end, `${field}.time_end`);
  if (start !== null && end !== null && end < start)
    throw new InvalidInput(`${field}.time_end`, "must not be before time_start");
  return { area, lowerM, upperM, start, end, ...(circle ? { circle } : {}) };
}

/** A Position filter (`{location, altitude?}`) as a volume one meter across at that height. */
export function positionVolume(v: unknown, field: string): Volume {
  if (!isObject(v)) throw new InvalidInput(field, "must be a Position object");
  const [lng, lat] = latLng(v.location, `${field}.location`);
  const height = altitude(v.altitude, `${field}.altitude`);
  const dLat = POINT_SIDE_M / 2 / 111_320;
  const dLng = dLat / Math.max(Math.cos((lat * Math.PI) / 180), 1e-6);
  const ring: Position[] = [
    [lng - dLng, lat - dLat],
    [lng + dLng, lat - dLat],
    [lng + dLng, lat + dLat],
    [lng - dLng, lat + dLat],
    [lng - dLng, lat - dLat],
  ];
  return {
    area: { type: "Polygon", coordinates: [ring] },
    lowerM: height,
    upperM: height,
    start: null,
    end: null,
  };
}

/** Whether [aLow, aHigh] and [bLow, bHigh] meet; a missing bound is open. */
export function rangesMeet(
  aLow: number | null,
  aHigh: number | null,
  bLow: number | null,
  bHigh: number | null,
) {
  return (
    (aLow === null || bHigh === null || aLow <= bHigh) && (bLow === null || aHigh === null || bLow <= aHigh)
  );
}

/** Whether two volumes share a point of space and time (a missing bound is open). */
export function volumesMeet(a: Volume, b: Volume): boolean {
  return (
    rangesMeet(a.start, a.end, b.start, b.end) &&
    rangesMeet(a.lowerM, a.upperM, b.lowerM, b.upperM) &&
    polygonsMeet(a.area, b.area)
  );
}
