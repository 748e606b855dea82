import { METERS_PER_FOOT } from "../../units";
import type { AirspaceRecord } from "./records";
import { cleanGeometry, numberOf, type SourceFeature } from "./source";

/**
 * What the FAA's ADDS airspace layers (Class_Airspace, Special_Use_Airspace) share: polygon
 * shelves with LOWER_/UPPER_VAL limits in feet and their codes, NAME, CITY, STATE and GLOBAL_ID.
 */

/** What a layer decides about a feature; the rest is read alike from every layer. */
export interface AddsKind {
  type: string;
  /** The name when the feature has no NAME. */
  unnamed: string;
  properties: Record<string, unknown>;
  country: string | null;
}

/** An ADDS feature as a record; undefined when it has no polygon geometry. */
export function addsRecord(
  feature: SourceFeature,
  index: number,
  kind: AddsKind,
): AirspaceRecord | undefined {
  const p = feature.properties ?? {};
  const geometry = cleanGeometry(feature.geometry);
  if (!geometry || (geometry.type !== "Polygon" && geometry.type !== "MultiPolygon")) return undefined;
  const floor = limit(p.LOWER_VAL, p.LOWER_CODE);
  const ceiling = limit(p.UPPER_VAL, p.UPPER_CODE);
  return {
    sourceId: String(p.GLOBAL_ID ?? p.OBJECTID ?? feature.id ?? index),
    type: kind.type,
    name: String(p.NAME ?? kind.unnamed),
    geometry,
    properties: kind.properties,
    floorM: floor?.meters ?? 0,
    floorCode: floor?.code ?? "AGL",
    ceilingM: ceiling?.meters ?? null,
    ceilingCode: ceiling?.code ?? null,
    city: typeof p.CITY === "string" ? titleCase(p.CITY) : null,
    state: typeof p.STATE === "string" ? titleCase(p.STATE) : null,
    country: kind.country,
    source: "faa",
  };
}

/** A vertical limit in meters with its reference: SFC is 0 AGL; the FAA writes -9998 for "up to class A". */
export function limit(value: unknown, code: unknown): { meters: number; code: string } | undefined {
  const feet = numberOf(value);
  const reference = String(code ?? "").toUpperCase();
  if (reference === "SFC") return { meters: 0, code: "AGL" };
  if (feet === null || feet < 0) return undefined;
  return {
    meters: Math.round(feet * METERS_PER_FOOT * 100) / 100,
    code: reference === "AGL" ? "AGL" : "MSL",
  };
}

export function titleCase(text: string): string {
  return text.toLowerCase().replace(/\b\p{L}/gu, (c) => c.toUpperCase());
}
