import { isoTimeOrNull } from "../../lib/time";
import { bboxOf, boxPolygon, type Geometry, type Polygon } from "../geojson";
import type { AirspaceFeature } from "./advisories";
import { reachOfRecord } from "./queryGeometry";

/** Airspace records as the SDKs read them (`/airspace/v2/…`), and the `properties` their decoders need. */

/**
 * The keys the C++ decoder reads from `properties`, per type. It reads `properties` of these types
 * without checking that it exists, and some members (`special_use_airspace.type`) without checking
 * the key: every one of them is present, null where the data does not say.
 */
const DECODED_PROPERTIES: Record<string, readonly string[]> = {
  airport: ["iata", "icao", "paved", "phone", "tower", "runways", "elevation", "longest_runway", "use"],
  controlled_airspace: ["airspace_classification"],
  special_use_airspace: ["type"],
  tfr: ["url", "type", "notam_reason"],
  wildfire: ["date_effective"],
  heliport: ["faa", "phone", "usage"],
  power_plant: ["tech", "plant_code"],
  park: [],
  prison: [],
  school: [],
  hospital: [],
  fire: [],
  emergency: [],
};

/**
 * Members the Android and Swift SDKs read under other names than the C++ SDK and the spec: sent
 * under both (the decoders ignore names they do not know), `[their name, ours]`. Android:
 * `models/status/properties/AirMapControlledAirspaceProperties.java` 31–32,
 * `AirMapAirportProperties.java` 54, `AirMapHeliportProperties.java` 26; Swift:
 * `Source/Core/Models/JSONSerialization.swift` (controlled airspace `floor` 255, heliport `use`).
 * `floor` is in feet, as `ceiling` and the FAA's `floor_ft` are (the Swift SDK's Double has no unit).
 */
const SDK_ALIASES: Record<string, readonly (readonly [string, string])[]> = {
  controlled_airspace: [
    ["classAirspace", "airspace_classification"],
    ["airportIdentifier", "airport_id"],
    ["floor", "floor_ft"],
  ],
  airport: [["longestRunway", "longest_runway"]],
  heliport: [["use", "usage"]],
};

/** The types whose records and advisories must carry a `properties` object for the C++ decoder. */
export const TYPES_WITH_DECODED_PROPERTIES = Object.keys(DECODED_PROPERTIES);

/**
 * `properties` with every key the decoders read for `type`: the stored value where there is one,
 * else null. A wildfire's `date_effective` is when it takes effect, where that is known. For JSON:
 * properties already in that shape come back as they are.
 */
export function decodedProperties(
  type: string,
  properties: Record<string, unknown>,
  effectiveStart: string | null = null,
): Record<string, unknown> {
  const decoded = DECODED_PROPERTIES[type] ?? [];
  const aliases = SDK_ALIASES[type] ?? [];
  // A wide status answer fills this for each of a thousand cells, most of them already in shape.
  if (type !== "wildfire" && holdsDecoded(decoded, aliases, properties)) return properties;
  const filled: Record<string, unknown> = {};
  for (const key of decoded) filled[key] = null;
  if (type === "wildfire") filled.date_effective = effectiveStart;
  for (const key of Object.keys(properties)) {
    const value = properties[key];
    if (value !== undefined) filled[key] = value;
  }
  for (const [alias, ours] of aliases) if (filled[alias] === undefined) filled[alias] = filled[ours] ?? null;
  return filled;
}

/**
 * Whether `properties` already holds a value for each decoded key: then the copy decodedProperties
 * makes says the same in JSON (it only puts those keys first and drops undefined values, which JSON
 * leaves out anyway), so it is returned as it is. A key read per decoded key, not a walk over all:
 * a status answer's thousand facility-map cells each carry twenty.
 */
function holdsDecoded(
  decoded: readonly string[],
  aliases: readonly (readonly [string, string])[],
  properties: Record<string, unknown>,
): boolean {
  for (const key of decoded) if (properties[key] === undefined) return false;
  for (const [alias] of aliases) if (properties[alias] === undefined) return false;
  return true;
}

/** An advisory (any of the advisory and status answers) with the decoders' `properties` filled in. */
export function withDecodedProperties<A extends { type: string; properties: Record<string, unknown> }>(
  advisory: A,
): A {
  const start = advisory.properties.effective_start;
  const properties = decodedProperties(
    advisory.type,
    advisory.properties,
    typeof start === "string" ? start : null,
  );
  return properties === advisory.properties ? advisory : { ...advisory, properties };
}

/**
 * Types whose stored area is the ground property itself (a park's or a prison's outline), so the
 * same area is its `property_boundary`. Airports and heliports are stored as notice circles around a
 * point, airspace has no property: those records name no related geometry.
 */
const PROPERTY_TYPES = new Set([
  "park",
  "school",
  "prison",
  "hospital",
  "power_plant",
  "stadium",
  "university",
  "military_property",
  "industrial_property",
  "residential_property",
  "federal_building",
  "embassy",
  "police_station",
  "recreational_area",
]);

/** The related areas the SDKs read (Android `related_geometry.property_boundary.geometry`, AirMapAirspace.java). */
function relatedGeometry(feature: AirspaceFeature, geometry: Geometry) {
  if (!PROPERTY_TYPES.has(feature.type)) return {};
  return { property_boundary: { id: `${feature.externalId}#property_boundary`, geometry } };
}

export interface AirspaceRecord {
  id: string;
  name: string;
  type: string;
  country: string;
  state: string | null;
  city: string | null;
  /** Always there (the Kotlin decoder needs it); with `full=false` its bounding box. */
  geometry: Geometry;
  related_geometry: { property_boundary?: { id: string; geometry: Geometry } };
  last_updated: string | null;
  /** Rules depend on the rulesets a flight chooses: the advisory routes list them; a record names none. */
  rules: never[];
  properties: Record<string, unknown>;
  effective_start: string | null;
  effective_end: string | null;
}

/** One stored airspace feature as an SDK airspace record. */
export function airspaceRecord(feature: AirspaceFeature, full = true): AirspaceRecord {
  const effectiveStart = isoTimeOrNull(feature.effectiveStart);
  // CONTRACT §11: simplified with full=false (to the box around it), never dropped.
  const geometry = full ? feature.geometry : boxPolygon(bboxOf(feature.geometry));
  return {
    id: feature.externalId,
    name: feature.name,
    type: feature.type,
    // Advisories say "" for an unknown country too: the Kotlin SDK requires the member.
    country: feature.country ?? "",
    state: feature.state,
    city: feature.city,
    geometry,
    related_geometry: relatedGeometry(feature, geometry),
    last_updated: isoTimeOrNull(feature.lastUpdated),
    rules: [],
    properties: decodedProperties(feature.type, feature.properties, effectiveStart),
    effective_start: effectiveStart,
    effective_end: isoTimeOrNull(feature.effectiveEnd),
  };
}

export interface RecordSearch {
  area: Polygon;
  buffer: number;
  /** Only these types; every type when absent. */
  types: string[] | undefined;
  offset: number;
  limit: number;
  full: boolean;
}

/**
 * The records that reach the query area (as advisories reach a flight area), nearest first and then by
 * id so pages are stable, one page of them.
 */
export function searchRecords(features: AirspaceFeature[], search: RecordSearch): AirspaceRecord[] {
  return features
    .filter((f) => !search.types || search.types.includes(f.type))
    .map((feature) => ({ feature, reach: reachOfRecord(feature, search.area, search.buffer) }))
    .filter(({ reach }) => reach.meets)
    .sort(
      (a, b) =>
        a.reach.distance - b.reach.distance || a.feature.externalId.localeCompare(b.feature.externalId),
    )
    .slice(search.offset, search.offset + search.limit)
    .map(({ feature }) => airspaceRecord(feature, search.full));
}
