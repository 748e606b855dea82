import type { Geometry, Position } from "../../geojson";
import type { AirspaceRecord, FacilityMapRecord } from "./records";

/** What every format parser shares: its result, and readers of GeoJSON, times and numbers. */

/** What a format parser returns: records to load, and how many source items it left out and why. */
export interface Parsed {
  features: AirspaceRecord[];
  facilityMaps: FacilityMapRecord[];
  skipped: Map<string, number>;
}

export function count(skipped: Map<string, number>, reason: string) {
  skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
}

export interface SourceFeature {
  id?: unknown;
  geometry?: unknown;
  properties?: Record<string, unknown> | null;
}

/** The features of a GeoJSON FeatureCollection (or a bare Feature), as text or already parsed. */
export function featuresOf(text: string | object): SourceFeature[] {
  const json = (typeof text === "string" ? JSON.parse(text) : text) as {
    type?: string;
    features?: SourceFeature[];
  };
  if (json.type === "FeatureCollection" && Array.isArray(json.features)) return json.features;
  if (json.type === "Feature") return [json as SourceFeature];
  throw new Error("not GeoJSON: expected a FeatureCollection");
}

/**
 * A usable geometry from source data: Point, LineString, Polygon or MultiPolygon with positions in
 * range; unclosed rings are closed. Undefined when it cannot be used.
 */
export function cleanGeometry(input: unknown): Geometry | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const { type, coordinates } = input as { type?: unknown; coordinates?: unknown };
  const position = (p: unknown): Position | undefined =>
    Array.isArray(p) &&
    typeof p[0] === "number" &&
    typeof p[1] === "number" &&
    Math.abs(p[0]) <= 180 &&
    Math.abs(p[1]) <= 90
      ? [p[0], p[1]]
      : undefined;
  const ring = (r: unknown): Position[] | undefined => {
    if (!Array.isArray(r)) return undefined;
    const positions = r.map(position);
    if (positions.some((p) => !p)) return undefined;
    const closed = positions as Position[];
    const [first, last] = [closed[0], closed[closed.length - 1]];
    if (first && last && (first[0] !== last[0] || first[1] !== last[1])) closed.push([first[0], first[1]]);
    return closed.length >= 4 ? closed : undefined;
  };
  const polygon = (p: unknown): Position[][] | undefined => {
    if (!Array.isArray(p) || p.length === 0) return undefined;
    const rings = p.map(ring);
    return rings.every(Boolean) ? (rings as Position[][]) : undefined;
  };
  switch (type) {
    case "Point": {
      const p = position(coordinates);
      return p ? { type, coordinates: p } : undefined;
    }
    case "LineString": {
      if (!Array.isArray(coordinates) || coordinates.length < 2) return undefined;
      const line = coordinates.map(position);
      return line.every(Boolean) ? { type, coordinates: line as Position[] } : undefined;
    }
    case "Polygon": {
      const p = polygon(coordinates);
      return p ? { type, coordinates: p } : undefined;
    }
    case "MultiPolygon": {
      if (!Array.isArray(coordinates) || coordinates.length === 0) return undefined;
      const parts = coordinates.map(polygon);
      return parts.every(Boolean) ? { type, coordinates: parts as Position[][][] } : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Times as sources write them: epoch milliseconds (ArcGIS), ISO 8601 (taken as UTC without an
 * offset), or the FAA's `yyyyMMddHHmm`. Null when absent or unreadable.
 */
export function sourceTime(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value !== "string" || value.trim() === "") return null;
  const text = value.trim();
  const compact = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (compact) {
    const [, y, mo, d, h, mi] = compact.map(Number) as number[];
    return Date.UTC(y!, mo! - 1, d!, h!, mi!);
  }
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(text);
  const ms = Date.parse(hasZone || !/\d{2}:\d{2}/.test(text) ? text : `${text.replace(" ", "T")}Z`);
  return Number.isFinite(ms) ? ms : null;
}

/** A number from a source field that may be a string. */
export function numberOf(value: unknown): number | null {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? n : null;
}
