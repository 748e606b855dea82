import type { MultiPolygon, Polygon, Position } from "../domain/geojson";
import { circlePolygon } from "../domain/geometry/circle";
import { METERS_PER_FOOT } from "../domain/units";
import { isObject } from "../lib/json";

/**
 * EUROCAE ED-269 UAS geographical zones (JSON, as InterUSS's test data and the Swiss CIS publish
 * them): a `UASZoneList` (or `features`) of zones, each with a restriction, applicability periods and
 * one or more volumes (a polygon or a circle between two limits). Parsed into what this service
 * works with: a polygon or multipolygon, limits in meters and the overall time window. Used by the
 * geospatial-map data sources and by the airspace importer (tools/airspace/formats/ed269.ts).
 */

export const RESTRICTIONS = ["PROHIBITED", "REQ_AUTHORISATION", "CONDITIONAL", "NO_RESTRICTION"] as const;
export type Restriction = (typeof RESTRICTIONS)[number];
export const USPACE_CLASSES = ["EUROCONTROL", "CORUS"] as const;

export interface Ed269Volume {
  area: Polygon;
  lowerM: number | null;
  upperM: number | null;
  lowerReference: string | null;
  upperReference: string | null;
}

export interface Ed269Zone {
  identifier: string;
  name: string;
  country: string | null;
  restriction: Restriction;
  uSpaceClass: string | null;
  reasons: string[];
  message: string | null;
  volumes: Ed269Volume[];
  /** The union of the applicability periods; null bounds for permanent zones. */
  start: number | null;
  end: number | null;
  authority: {
    name: string | null;
    phone: string | null;
    email: string | null;
    siteURL: string | null;
  } | null;
}

export interface Ed269Parsed {
  zones: Ed269Zone[];
  /** Zone index → why it was left out. */
  problems: string[];
}

/** Throws when the document is not ED-269 at all; zones it cannot use are reported, not fatal. */
export function parseEd269(json: unknown): Ed269Parsed {
  if (!isObject(json)) throw new Error("not ED-269: expected a JSON object");
  const list = Array.isArray(json.UASZoneList)
    ? json.UASZoneList
    : Array.isArray(json.features)
      ? json.features
      : undefined;
  if (!list) throw new Error("not ED-269: expected a UASZoneList (or features) array");
  const zones: Ed269Zone[] = [];
  const problems: string[] = [];
  list.forEach((item, index) => {
    try {
      zones.push(zoneOf(item));
    } catch (err) {
      problems.push(`zone ${index}: ${(err as Error).message}`);
    }
  });
  return { zones, problems };
}

function text(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
}

function limit(v: unknown, uom: string, what: string): number | null {
  if (v === null || v === undefined || v === "") return null;
  const n = typeof v === "number" ? v : Number(v);
  if (!Number.isFinite(n)) throw new Error(`${what} is not a number`);
  return uom === "FT" ? n * METERS_PER_FOOT : n;
}

function position(p: unknown): Position {
  if (
    !Array.isArray(p) ||
    typeof p[0] !== "number" ||
    typeof p[1] !== "number" ||
    Math.abs(p[0]) > 180 ||
    Math.abs(p[1]) > 90
  )
    throw new Error("a position is not [longitude, latitude]");
  return [p[0], p[1]];
}

function projection(h: unknown): Polygon {
  if (!isObject(h)) throw new Error("no horizontalProjection");
  if (h.type === "Polygon") {
    const rings = h.coordinates;
    if (!Array.isArray(rings) || !Array.isArray(rings[0]) || rings[0].length < 4)
      throw new Error("a Polygon needs a ring of at least 4 positions");
    return { type: "Polygon", coordinates: (rings as unknown[][]).map((r) => r.map(position)) };
  }
  if (h.type === "Circle") {
    const center = position(h.center);
    const radius = typeof h.radius === "number" ? h.radius : Number(h.radius);
    if (!Number.isFinite(radius) || radius <= 0) throw new Error("a Circle needs a positive radius (meters)");
    return circlePolygon(center, radius);
  }
  throw new Error(`horizontalProjection type ${String(h.type)} is not Polygon or Circle`);
}

function zoneOf(item: unknown): Ed269Zone {
  if (!isObject(item)) throw new Error("not an object");
  const identifier = text(item.identifier);
  if (!identifier) throw new Error("no identifier");
  const restriction = item.restriction as Restriction;
  if (!RESTRICTIONS.includes(restriction))
    throw new Error(`restriction ${String(item.restriction)} is not one of ${RESTRICTIONS.join(", ")}`);
  if (!Array.isArray(item.geometry) || item.geometry.length === 0) throw new Error("no geometry");
  const volumes = item.geometry.map((g): Ed269Volume => {
    if (!isObject(g)) throw new Error("a geometry entry is not an object");
    const uom = g.uomDimensions === "FT" ? "FT" : "M";
    return {
      area: projection(g.horizontalProjection),
      lowerM: limit(g.lowerLimit, uom, "lowerLimit"),
      upperM: limit(g.upperLimit, uom, "upperLimit"),
      lowerReference: text(g.lowerVerticalReference),
      upperReference: text(g.upperVerticalReference),
    };
  });
  const { start, end } = applicabilityWindow(item.applicability);
  const authority =
    Array.isArray(item.zoneAuthority) && isObject(item.zoneAuthority[0]) ? item.zoneAuthority[0] : null;
  return {
    identifier,
    name: text(item.name) ?? identifier,
    country: text(item.country),
    restriction,
    uSpaceClass: text(item.uSpaceClass),
    reasons: Array.isArray(item.reason) ? item.reason.filter((r): r is string => typeof r === "string") : [],
    message: text(item.message),
    volumes,
    start,
    end,
    authority: authority
      ? {
          name: text(authority.name),
          phone: text(authority.phone),
          email: text(authority.email),
          siteURL: text(authority.siteURL),
        }
      : null,
  };
}

/** The span of all periods; any permanent period (or none given) leaves the zone always in effect. */
function applicabilityWindow(applicability: unknown): { start: number | null; end: number | null } {
  if (!Array.isArray(applicability) || applicability.length === 0) return { start: null, end: null };
  let start: number | null = Number.POSITIVE_INFINITY;
  let end: number | null = Number.NEGATIVE_INFINITY;
  for (const period of applicability) {
    if (!isObject(period) || period.permanent === "YES") return { start: null, end: null };
    const s = typeof period.startDateTime === "string" ? Date.parse(period.startDateTime) : Number.NaN;
    const e = typeof period.endDateTime === "string" ? Date.parse(period.endDateTime) : Number.NaN;
    start = Number.isFinite(s) && start !== null ? Math.min(start, s) : null;
    end = Number.isFinite(e) && end !== null ? Math.max(end, e) : null;
  }
  return { start, end };
}

/** A zone's volumes as one geometry (records carry one). */
export function zoneGeometry(zone: Ed269Zone): Polygon | MultiPolygon {
  if (zone.volumes.length === 1) return zone.volumes[0]!.area;
  return { type: "MultiPolygon", coordinates: zone.volumes.map((v) => v.area.coordinates) };
}

/**
 * Block or Advise for a flight in a zone: PROHIBITED and REQ_AUTHORISATION need an authorization it
 * would not get automatically; CONDITIONAL and NO_RESTRICTION come with conditions or information.
 */
export function zoneEffect(restriction: Restriction): "Block" | "Advise" {
  return restriction === "PROHIBITED" || restriction === "REQ_AUTHORISATION" ? "Block" : "Advise";
}
