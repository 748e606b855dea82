import { METERS_PER_FOOT } from "../../../worker/domain/units";
import type { AirspaceRecord } from "../dataset";
import { cleanGeometry, count, numberOf, type Parsed, sourceTime } from "./source";

/** OpenAIP airspace types (core API `type`) mapped to ours; the rest do not concern drones. */
const TYPES: Record<number, { type: string; kind: string }> = {
  1: { type: "special_use_airspace", kind: "restricted" },
  2: { type: "special_use_airspace", kind: "danger" },
  3: { type: "special_use_airspace", kind: "prohibited" },
  4: { type: "controlled_airspace", kind: "ctr" },
  7: { type: "controlled_airspace", kind: "tma" },
  13: { type: "controlled_airspace", kind: "atz" },
  14: { type: "controlled_airspace", kind: "matz" },
  17: { type: "special_use_airspace", kind: "alert" },
  18: { type: "special_use_airspace", kind: "warning" },
  19: { type: "special_use_airspace", kind: "protected" },
  20: { type: "controlled_airspace", kind: "htz" },
  26: { type: "controlled_airspace", kind: "cta" },
  29: { type: "special_use_airspace", kind: "low_altitude_overflight_restriction" },
  36: { type: "controlled_airspace", kind: "mctr" },
};
const ICAO_CLASSES = ["A", "B", "C", "D", "E", "F", "G"];
/** OpenAIP limit units and reference data. */
const UNIT_FEET = 1;
const UNIT_FLIGHT_LEVEL = 6;
const REFERENCE = ["AGL", "MSL", "STD"];

interface OpenAipLimit {
  value?: number;
  unit?: number;
  referenceDatum?: number;
}
interface OpenAipAirspace {
  _id?: string;
  name?: string;
  type?: number;
  icaoClass?: number;
  country?: string;
  geometry?: unknown;
  upperLimit?: OpenAipLimit;
  lowerLimit?: OpenAipLimit;
  updatedAt?: string;
  byNotam?: boolean;
}

/** OpenAIP airspace JSON: an export (an array of airspaces) or a core API page (`{items: […]}`). */
export function parseOpenAip(text: string): Parsed {
  const json = JSON.parse(text) as OpenAipAirspace[] | { items?: OpenAipAirspace[] };
  const items = Array.isArray(json) ? json : json.items;
  if (!Array.isArray(items))
    throw new Error("not OpenAIP airspace JSON: expected an array or {items: [...]}");
  const features: AirspaceRecord[] = [];
  const skipped = new Map<string, number>();
  items.forEach((item, index) => {
    const mapped = TYPES[item.type ?? -1];
    if (!mapped) {
      count(skipped, `OpenAIP type ${item.type ?? "?"} does not concern drones`);
      return;
    }
    const geometry = cleanGeometry(item.geometry);
    if (!geometry || (geometry.type !== "Polygon" && geometry.type !== "MultiPolygon")) {
      count(skipped, "no polygon geometry");
      return;
    }
    const icaoClass = ICAO_CLASSES[item.icaoClass ?? -1];
    const floor = limit(item.lowerLimit);
    const ceiling = limit(item.upperLimit);
    features.push({
      sourceId: item._id ?? String(index),
      type: mapped.type,
      name: item.name ?? mapped.kind.toUpperCase(),
      geometry,
      properties: {
        type: mapped.kind,
        ...(icaoClass ? { airspace_classification: icaoClass } : {}),
        ...(item.byNotam ? { by_notam: true } : {}),
      },
      floorM: floor?.meters ?? null,
      floorCode: floor?.code ?? null,
      ceilingM: ceiling?.meters ?? null,
      ceilingCode: ceiling?.code ?? null,
      lastUpdated: sourceTime(item.updatedAt),
      source: "openaip",
    });
  });
  return { features, facilityMaps: [], skipped };
}

function limit(input: OpenAipLimit | undefined): { meters: number; code: string } | undefined {
  const value = numberOf(input?.value);
  if (!input || value === null) return undefined;
  const feet =
    input.unit === UNIT_FLIGHT_LEVEL
      ? value * 100
      : input.unit === UNIT_FEET
        ? value
        : value / METERS_PER_FOOT;
  return {
    meters: Math.round(feet * METERS_PER_FOOT * 100) / 100,
    code: input.unit === UNIT_FLIGHT_LEVEL ? "STD" : (REFERENCE[input.referenceDatum ?? 1] ?? "MSL"),
  };
}
