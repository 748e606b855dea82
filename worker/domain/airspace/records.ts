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
  // A wide status answer fills this for each of a thousand cells, most of them already in shape.
  if (type !== "wildfire" && holdsDecoded(decoded, properties)) return properties;
  const filled: Record<string, unknown> = {};
  for (const key of decoded) filled[key] = null;
  if (type === "wildfire") filled.date_effective = effectiveStart;
  for (const key of Object.keys(properties)) {
    const value = properties[key];
    if (value !== undefined) filled[key] = value;
  }
  return filled;
}

/**
 * Whether `properties` already holds a value for each decoded key: then the copy decodedProperties
 * makes says the same in JSON (it only puts those keys first and drops undefined values, which JSON
 * leaves out anyway), so it is returned as it is. A key read per decoded key, not a walk over all:
 * a status answer's thousand facility-map cells each carry twenty.
 */
function holdsDecoded(decoded: readonly string[], properties: Record<string, unknown>): boolean {
  for (const key of decoded) if (properties[key] === undefined) return false;
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

export interface AirspaceRecord {
  id: string;
  name: string;
  type: string;
  country: string;
  state: string | null;
  city: string | null;
  /** Always there (the Kotlin decoder needs it); with `full=false` its bounding box. */
  geometry: Geometry;
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
  return {
    id: feature.externalId,
    name: feature.name,
    type: feature.type,
    // Advisories say "" for an unknown country too: the Kotlin SDK requires the member.
    country: feature.country ?? "",
    state: feature.state,
    city: feature.city,
    // CONTRACT §11: simplified with full=false (to the box around it), never dropped.
    geometry: full ? feature.geometry : boxPolygon(bboxOf(feature.geometry)),
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
