import type { Polygon, Position } from "../domain/geojson";
import { circlePolygon } from "../domain/geometry/circle";
import { METERS_PER_FOOT } from "../domain/units";
import { isObject } from "../lib/json";
import type { Ed269Volume, Ed269Zone, Restriction } from "./ed269";

/**
 * EUROCAE ED-318 (2024) UAS geographical zones: a GeoJSON FeatureCollection whose features carry
 * the zone in `properties` (identifier, country, type, variant, reason, zoneAuthority,
 * limitedApplicability …) and its volumes as "layered" GeoJSON geometries (a `layer` with upper and
 * lower limits, their references and `uom`; a Point with a Circle `extent` in metres; a
 * GeometryCollection for stacked volumes). Member names and enumerations as the schema in
 * github.com/UASGeoZones/ED-318 and InterUSS's uas_standards `eurocae_ed318.py` give them.
 *
 * Parsed into the ED-269 zone model (worker/interuss/ed269.ts), so that what reads ED-269 zones
 * (the airspace importer, the geospatial-map assessment) reads these the same way. A feature that
 * breaks the schema is refused with the field named, never repaired.
 */

export const ED318_TYPES = [
  "USPACE",
  "PROHIBITED",
  "REQ_AUTHORIZATION",
  "CONDITIONAL",
  "NO_RESTRICTION",
] as const;
export type Ed318Type = (typeof ED318_TYPES)[number];
const VARIANTS = ["COMMON", "CUSTOMIZED"] as const;
// The schema's list, plus DAR (dynamic airspace reconfiguration) that uas_standards adds.
const REASONS = [
  "AIR_TRAFFIC",
  "SENSITIVE",
  "PRIVACY",
  "POPULATION",
  "NATURE",
  "NOISE",
  "FOREIGN_TERRITORY",
  "EMERGENCY",
  "DAR",
  "OTHER",
];
const PURPOSES = ["AUTHORIZATION", "NOTIFICATION", "INFORMATION"];
const REFERENCES = ["AGL", "AMSL", "WGS84"];
const DAYS = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN", "ANY"];
const EVENTS = ["BMCT", "SR", "SS", "EECT"];

/**
 * ED-318 types as ED-269 restrictions. A U-space airspace (USPACE) restricts nothing by itself: a
 * flight there uses the U-space services of a USSP, a condition (Advise), as CONDITIONAL is.
 */
const RESTRICTION: Record<Ed318Type, Restriction> = {
  USPACE: "CONDITIONAL",
  PROHIBITED: "PROHIBITED",
  REQ_AUTHORIZATION: "REQ_AUTHORISATION",
  CONDITIONAL: "CONDITIONAL",
  NO_RESTRICTION: "NO_RESTRICTION",
};

export interface Ed318Zone extends Ed269Zone {
  type: Ed318Type;
  variant: (typeof VARIANTS)[number];
  otherReasonInfo: string | null;
  restrictionConditions: string | null;
  regulationExemption: "YES" | "NO" | null;
  /** The daily schedules of limitedApplicability in words; the zone counts for the whole window. */
  schedule: string | null;
}

export interface Ed318Parsed {
  zones: Ed318Zone[];
  /** Why each refused feature was left out, naming the feature and the field. */
  problems: string[];
}

/** A field that breaks the schema: `field` is its path within the feature. */
class FieldError extends Error {
  constructor(field: string, problem: string) {
    super(`${field} ${problem}`);
  }
}

/** Whether a document is ED-318: a FeatureCollection with a feature carrying ED-318 zone properties. */
export function looksLikeEd318(json: unknown): boolean {
  if (!isObject(json) || json.type !== "FeatureCollection" || !Array.isArray(json.features)) return false;
  return json.features.some(
    (f) =>
      isObject(f) &&
      isObject(f.properties) &&
      "identifier" in f.properties &&
      ("variant" in f.properties ||
        "zoneAuthority" in f.properties ||
        (ED318_TYPES as readonly unknown[]).includes(f.properties.type)),
  );
}

/** Throws when the document is not ED-318 at all; features it cannot use are reported, not fatal. */
export function parseEd318(json: unknown): Ed318Parsed {
  if (isObject(json) && Array.isArray(json.UASZoneList))
    throw new Error("not ED-318: this is an ED-269 UASZoneList (import it as ed269)");
  if (!isObject(json) || json.type !== "FeatureCollection" || !Array.isArray(json.features))
    throw new Error(
      'not ED-318: expected a GeoJSON FeatureCollection ({"type": "FeatureCollection", "features": […]})',
    );
  if (json.features.length > 0 && !looksLikeEd318(json))
    throw new Error(
      "not ED-318: no feature has ED-318 zone properties (identifier with type, variant, zoneAuthority)",
    );
  const zones: Ed318Zone[] = [];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  json.features.forEach((feature, index) => {
    const id = isObject(feature) && isObject(feature.properties) ? feature.properties.identifier : undefined;
    const label =
      typeof id === "string" && id.trim() !== "" ? `feature ${index} (${id.trim()})` : `feature ${index}`;
    try {
      const zone = zoneOf(feature);
      const first = seen.get(zone.identifier);
      if (first !== undefined) throw new FieldError("properties.identifier", `repeats feature ${first}'s`);
      seen.set(zone.identifier, index);
      zones.push(zone);
    } catch (err) {
      problems.push(`${label}: ${(err as Error).message}`);
    }
  });
  return { zones, problems };
}

/** A text: a string, a `{text, lang}`, or a list of them (English preferred, else the first). */
function text(v: unknown, field: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === "string") return v.trim() || null;
  const entries = Array.isArray(v) ? v : [v];
  const texts: { text: string; lang: string }[] = [];
  entries.forEach((entry, i) => {
    const at = Array.isArray(v) ? `${field}[${i}]` : field;
    if (typeof entry === "string") {
      if (entry.trim()) texts.push({ text: entry.trim(), lang: "" });
      return;
    }
    if (!isObject(entry)) throw new FieldError(at, "is not a text ({text, lang})");
    if (entry.text === undefined || entry.text === null) return;
    if (typeof entry.text !== "string") throw new FieldError(`${at}.text`, "is not a string");
    if (entry.text.trim())
      texts.push({ text: entry.text.trim(), lang: typeof entry.lang === "string" ? entry.lang : "" });
  });
  return (texts.find((t) => t.lang.toLowerCase().startsWith("en")) ?? texts[0])?.text ?? null;
}

function oneOf<T extends string>(
  v: unknown,
  allowed: readonly T[],
  field: string,
  required: boolean,
): T | null {
  if (v === undefined || v === null) {
    if (required) throw new FieldError(field, `is required (one of ${allowed.join(", ")})`);
    return null;
  }
  if (!(allowed as readonly unknown[]).includes(v))
    throw new FieldError(field, `${JSON.stringify(v)} is not one of ${allowed.join(", ")}`);
  return v as T;
}

function zoneOf(feature: unknown): Ed318Zone {
  if (!isObject(feature) || feature.type !== "Feature") throw new FieldError("type", 'is not "Feature"');
  const p = feature.properties;
  if (!isObject(p)) throw new FieldError("properties", "is required (an object)");
  if (typeof p.identifier !== "string" || p.identifier.trim() === "")
    throw new FieldError("properties.identifier", "is required (a string)");
  const identifier = p.identifier.trim();
  if (typeof p.country !== "string" || !/^[A-Z]{3}$/.test(p.country))
    throw new FieldError("properties.country", "is required (ISO 3166-1 alpha-3, e.g. FRA)");
  const type = oneOf(p.type, ED318_TYPES, "properties.type", true)!;
  const variant = oneOf(p.variant, VARIANTS, "properties.variant", true)!;
  const reasons = p.reason === undefined || p.reason === null ? [] : p.reason;
  if (!Array.isArray(reasons)) throw new FieldError("properties.reason", "is not a list");
  reasons.forEach((r, i) => {
    oneOf(r, REASONS, `properties.reason[${i}]`, true);
  });
  const conditions = p.restrictionConditions;
  if (
    conditions !== undefined &&
    conditions !== null &&
    typeof conditions !== "string" &&
    !(Array.isArray(conditions) && conditions.every((c) => typeof c === "string"))
  )
    throw new FieldError("properties.restrictionConditions", "is not a string");
  const authorities = p.zoneAuthority;
  if (!Array.isArray(authorities) || authorities.length === 0)
    throw new FieldError("properties.zoneAuthority", "is required (a list of at least one authority)");
  authorities.forEach((a, i) => {
    if (!isObject(a)) throw new FieldError(`properties.zoneAuthority[${i}]`, "is not an object");
    oneOf(a.purpose, PURPOSES, `properties.zoneAuthority[${i}].purpose`, true);
  });
  // The authority a pilot turns to: the one that authorizes, else the first.
  const authority = (authorities.find((a) => a.purpose === "AUTHORIZATION") ?? authorities[0]) as Record<
    string,
    unknown
  >;
  const at = `properties.zoneAuthority[${authorities.indexOf(authority)}]`;
  const { start, end, schedule } = applicability(p.limitedApplicability);
  return {
    identifier,
    name: text(p.name, "properties.name") ?? identifier,
    country: p.country,
    restriction: RESTRICTION[type],
    uSpaceClass: null,
    reasons: reasons as string[],
    message: text(p.message, "properties.message"),
    volumes: volumesOf(feature.geometry, "geometry"),
    start,
    end,
    authority: {
      name: text(authority.name, `${at}.name`),
      phone: text(authority.phone, `${at}.phone`),
      email: text(authority.email, `${at}.email`),
      siteURL: text(authority.siteURL, `${at}.siteURL`),
    },
    type,
    variant,
    otherReasonInfo: text(p.otherReasonInfo, "properties.otherReasonInfo"),
    restrictionConditions: Array.isArray(conditions)
      ? conditions.join("; ") || null
      : typeof conditions === "string"
        ? conditions.trim() || null
        : null,
    regulationExemption: oneOf(
      p.regulationExemption,
      ["YES", "NO"] as const,
      "properties.regulationExemption",
      false,
    ),
    schedule,
  };
}

function position(p: unknown, field: string): Position {
  if (
    !Array.isArray(p) ||
    typeof p[0] !== "number" ||
    typeof p[1] !== "number" ||
    Math.abs(p[0]) > 180 ||
    Math.abs(p[1]) > 90
  )
    throw new FieldError(field, "is not a [longitude, latitude] position");
  return [p[0], p[1]];
}

function polygon(rings: unknown, field: string): Polygon {
  if (!Array.isArray(rings) || rings.length === 0) throw new FieldError(field, "is not a list of rings");
  return {
    type: "Polygon",
    coordinates: rings.map((ring, r) => {
      if (!Array.isArray(ring) || ring.length < 4)
        throw new FieldError(`${field}[${r}]`, "is not a ring of at least 4 positions");
      const positions = ring.map((p, i) => position(p, `${field}[${r}][${i}]`));
      const [first, last] = [positions[0]!, positions[positions.length - 1]!];
      if (first[0] !== last[0] || first[1] !== last[1])
        throw new FieldError(`${field}[${r}]`, "is not closed (its last position must repeat the first)");
      return positions;
    }),
  };
}

/** The volumes of one (layered) geometry: areas with the limits of their `layer`. */
function volumesOf(g: unknown, field: string): Ed269Volume[] {
  if (!isObject(g)) throw new FieldError(field, "is required (a GeoJSON geometry)");
  if (g.type === "GeometryCollection") {
    if (!Array.isArray(g.geometries) || g.geometries.length === 0)
      throw new FieldError(`${field}.geometries`, "is required (a non-empty list)");
    return g.geometries.flatMap((member, i) => {
      if (isObject(member) && member.type === "GeometryCollection")
        throw new FieldError(`${field}.geometries[${i}]`, "nests a GeometryCollection");
      return volumesOf(member, `${field}.geometries[${i}]`);
    });
  }
  const limits = layerOf(g.layer, `${field}.layer`);
  switch (g.type) {
    case "Polygon":
      return [{ area: polygon(g.coordinates, `${field}.coordinates`), ...limits }];
    case "MultiPolygon": {
      if (!Array.isArray(g.coordinates) || g.coordinates.length === 0)
        throw new FieldError(`${field}.coordinates`, "is not a list of polygons");
      return g.coordinates.map((rings, i) => ({
        area: polygon(rings, `${field}.coordinates[${i}]`),
        ...limits,
      }));
    }
    case "Point": {
      const center = position(g.coordinates, `${field}.coordinates`);
      if (!isObject(g.extent))
        throw new FieldError(
          `${field}.extent`,
          "is required for a Point zone (a Circle with its radius in metres)",
        );
      if (g.extent.subType !== "Circle")
        throw new FieldError(
          `${field}.extent.subType`,
          `${JSON.stringify(g.extent.subType)} is not "Circle"`,
        );
      const radius = g.extent.radius;
      if (typeof radius !== "number" || !Number.isFinite(radius) || radius <= 0)
        throw new FieldError(`${field}.extent.radius`, "is not a positive number of metres");
      const area = circlePolygon(center, radius);
      return [{ area, ...limits }];
    }
    default:
      throw new FieldError(
        `${field}.type`,
        `${JSON.stringify(g.type)} is not an area (Polygon, MultiPolygon, Point with a Circle extent, GeometryCollection)`,
      );
  }
}

type Limits = Omit<Ed269Volume, "area">;

/** A `layer` in metres; without one the volume is open above and below. */
function layerOf(layer: unknown, field: string): Limits {
  if (layer === undefined || layer === null)
    return { lowerM: null, upperM: null, lowerReference: null, upperReference: null };
  if (!isObject(layer)) throw new FieldError(field, "is not an object");
  const uom = typeof layer.uom === "string" ? layer.uom.toLowerCase() : layer.uom;
  if (uom !== "m" && uom !== "ft")
    throw new FieldError(`${field}.uom`, `${JSON.stringify(layer.uom)} is not m or ft`);
  const metres = (key: "upper" | "lower"): number => {
    const v = layer[key];
    if (typeof v !== "number" || !Number.isFinite(v))
      throw new FieldError(`${field}.${key}`, "is not a number");
    return uom === "ft" ? v * METERS_PER_FOOT : v;
  };
  const limits: Limits = {
    upperM: metres("upper"),
    upperReference: oneOf(layer.upperReference, REFERENCES, `${field}.upperReference`, true),
    lowerM: metres("lower"),
    lowerReference: oneOf(layer.lowerReference, REFERENCES, `${field}.lowerReference`, true),
  };
  if (limits.lowerReference === limits.upperReference && limits.lowerM! > limits.upperM!)
    throw new FieldError(`${field}.lower`, "is above its upper limit");
  return limits;
}

/**
 * limitedApplicability as the window it spans (a period without a start or an end leaves that side
 * open; no periods: always in effect) and its daily schedules in words.
 */
function applicability(periods: unknown): {
  start: number | null;
  end: number | null;
  schedule: string | null;
} {
  if (periods === undefined || periods === null) return { start: null, end: null, schedule: null };
  const field = "properties.limitedApplicability";
  if (!Array.isArray(periods)) throw new FieldError(field, "is not a list of time periods");
  if (periods.length === 0) return { start: null, end: null, schedule: null };
  let start: number | null = Number.POSITIVE_INFINITY;
  let end: number | null = Number.NEGATIVE_INFINITY;
  const schedules: string[] = [];
  periods.forEach((period, i) => {
    const at = `${field}[${i}]`;
    if (!isObject(period)) throw new FieldError(at, "is not a time period");
    const s = dateTime(period.startDateTime, `${at}.startDateTime`);
    const e = dateTime(period.endDateTime, `${at}.endDateTime`);
    if (s !== null && e !== null && e < s)
      throw new FieldError(`${at}.endDateTime`, "is before its startDateTime");
    start = s === null || start === null ? null : Math.min(start, s);
    end = e === null || end === null ? null : Math.max(end, e);
    if (period.schedule === undefined || period.schedule === null) return;
    if (!Array.isArray(period.schedule))
      throw new FieldError(`${at}.schedule`, "is not a list of daily periods");
    period.schedule.forEach((daily, k) => {
      schedules.push(dailyPeriod(daily, `${at}.schedule[${k}]`));
    });
  });
  return { start, end, schedule: schedules.length > 0 ? schedules.join("; ") : null };
}

function dateTime(v: unknown, field: string): number | null {
  if (v === undefined || v === null) return null;
  const ms = typeof v === "string" && /^\d{4}-\d{2}-\d{2}T/.test(v) ? Date.parse(v) : Number.NaN;
  if (!Number.isFinite(ms)) throw new FieldError(field, "is not an ISO 8601 date-time");
  return ms;
}

/** `MON, TUE 08:00:00Z–SS`: the days, then each end as a time or a daylight event. */
function dailyPeriod(daily: unknown, field: string): string {
  if (!isObject(daily)) throw new FieldError(field, "is not a daily period");
  if (!Array.isArray(daily.day) || daily.day.length === 0)
    throw new FieldError(`${field}.day`, `is required (a list of ${DAYS.join(", ")})`);
  const days = daily.day.map((d, i) => oneOf(d, DAYS, `${field}.day[${i}]`, true)!);
  const side = (timeKey: "startTime" | "endTime", eventKey: "startEvent" | "endEvent") => {
    const time = daily[timeKey];
    if (time !== undefined && time !== null) {
      if (typeof time !== "string" || !/^\d{2}:\d{2}(:\d{2})?/.test(time))
        throw new FieldError(`${field}.${timeKey}`, "is not a time (hh:mm:ss)");
      return time;
    }
    const event = oneOf(daily[eventKey], EVENTS, `${field}.${eventKey}`, false);
    if (event === null) throw new FieldError(`${field}.${timeKey}`, `is required (or ${eventKey})`);
    return event;
  };
  return `${days.join(", ")} ${side("startTime", "startEvent")}–${side("endTime", "endEvent")}`;
}
