import type { AirspaceRecord } from "../dataset";
import { cleanGeometry, count, featuresOf, type Parsed, sourceTime } from "./source";

/** The airspace types of spec 2.4 that plain GeoJSON can supply. */
const GEOJSON_TYPES = [
  "park",
  "school",
  "hospital",
  "prison",
  "power_plant",
  "wildfire",
  "fire",
  "emergency",
  "ama_field",
  "special_use_airspace",
  "tfr",
  "notam",
  "controlled_airspace",
  "airport",
  "heliport",
] as const;

/** How near a flight must come to a place given only as a point (a hospital's pin, a fire's origin). */
const POINT_RADIUS_M: Record<string, number> = {
  school: 200,
  hospital: 200,
  prison: 300,
  power_plant: 300,
  wildfire: 2_000,
  fire: 1_000,
  emergency: 1_000,
  ama_field: 500,
  park: 100,
};

/** OpenStreetMap tags that name a type when no mapping is given (an Overpass or osmtogeojson export). */
const OSM_TAGS: [string, string, string, Record<string, unknown>?][] = [
  ["boundary", "national_park", "park", { type: "national_park" }],
  ["leisure", "nature_reserve", "park", { type: "nature_reserve" }],
  ["leisure", "park", "park", { type: "park" }],
  ["amenity", "school", "school", { type: "school" }],
  ["amenity", "college", "school", { type: "college" }],
  ["amenity", "university", "school", { type: "university" }],
  ["amenity", "hospital", "hospital"],
  ["amenity", "prison", "prison"],
  ["power", "plant", "power_plant"],
];

export interface GeoJsonOptions {
  /** Every feature gets this type. */
  type?: string;
  /** The property whose value names the type, through `map`. */
  typeField?: string;
  /** Property value → airspace type. */
  map?: Record<string, string>;
  nameField?: string;
  /** Properties holding the start and end of time-bound features (fires, emergencies). */
  startField?: string;
  endField?: string;
}

/**
 * Plain GeoJSON: the type comes from `--type`, or from a property through `--map`, or else from the
 * feature's own `airspace_type` property, or from OpenStreetMap tags. A `type` property that is not an
 * airspace type is kept as the subtype (`national_park`).
 */
export function parseGeoJson(text: string, options: GeoJsonOptions = {}): Parsed {
  for (const type of [options.type, ...Object.values(options.map ?? {})]) {
    if (type !== undefined && !(GEOJSON_TYPES as readonly string[]).includes(type))
      throw new Error(`unknown airspace type "${type}"; use one of ${GEOJSON_TYPES.join(", ")}`);
  }
  const features: AirspaceRecord[] = [];
  const skipped = new Map<string, number>();
  featuresOf(text).forEach((feature, index) => {
    const p = feature.properties ?? {};
    const typed = typeOf(p, options);
    if (!typed) {
      count(skipped, "no airspace type (give --type, or --type-field with --map)");
      return;
    }
    const geometry = cleanGeometry(feature.geometry);
    if (!geometry) {
      count(skipped, "no usable geometry");
      return;
    }
    const name = p[options.nameField ?? "name"] ?? p.NAME ?? p.Name;
    features.push({
      sourceId: String(feature.id ?? p.id ?? p["@id"] ?? index),
      type: typed.type,
      name:
        typeof name === "string" && name.trim()
          ? name.trim()
          : `${typed.type.replace(/_/g, " ")} ${index + 1}`,
      geometry,
      radiusM: geometry.type === "Point" ? (POINT_RADIUS_M[typed.type] ?? 100) : 0,
      properties: { ...typed.properties },
      effectiveStart: sourceTime(p[options.startField ?? "effective_start"]),
      effectiveEnd: sourceTime(p[options.endField ?? "effective_end"]),
      source: typeof p.source === "string" && p.source ? p.source : "geojson",
    });
  });
  return { features, facilityMaps: [], skipped };
}

function typeOf(
  p: Record<string, unknown>,
  options: GeoJsonOptions,
): { type: string; properties: Record<string, unknown> } | undefined {
  const passthrough =
    typeof p.type === "string" && !(GEOJSON_TYPES as readonly string[]).includes(p.type)
      ? { type: p.type }
      : {};
  if (options.type) return { type: options.type, properties: passthrough };
  if (options.typeField) {
    const mapped = options.map?.[String(p[options.typeField])];
    return mapped ? { type: mapped, properties: { type: String(p[options.typeField]) } } : undefined;
  }
  if (typeof p.airspace_type === "string" && (GEOJSON_TYPES as readonly string[]).includes(p.airspace_type))
    return { type: p.airspace_type, properties: passthrough };
  for (const [key, value, type, properties] of OSM_TAGS) {
    if (p[key] === value) return { type, properties: properties ?? {} };
  }
  return undefined;
}
