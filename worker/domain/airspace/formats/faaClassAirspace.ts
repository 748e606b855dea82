import { METERS_PER_FOOT } from "../../units";
import type { AirspaceRecord } from "./records";
import { cleanGeometry, count, featuresOf, numberOf, type Parsed } from "./source";

/** Classes that reach the surface, where drones fly: B, C, D and the Class E surface areas. */
const SURFACE_E = new Set(["CLASS_E2", "CLASS_E3", "CLASS_E4"]);

/**
 * FAA Class_Airspace (ADDS) GeoJSON: NAME, CLASS, LOCAL_TYPE, LOWER_/UPPER_VAL in feet with their
 * codes (SFC, MSL, AGL), ICAO_ID, IDENT, CITY, STATE. Other classes of E (floors of 700 ft and
 * more) do not concern drones and are skipped.
 */
export function parseClassAirspace(text: string | object): Parsed {
  const features: AirspaceRecord[] = [];
  const skipped = new Map<string, number>();
  featuresOf(text).forEach((feature, index) => {
    const p = feature.properties ?? {};
    const airspaceClass = String(p.CLASS ?? "")
      .trim()
      .toUpperCase();
    const localType = String(p.LOCAL_TYPE ?? "")
      .trim()
      .toUpperCase();
    if (!["B", "C", "D"].includes(airspaceClass) && !(airspaceClass === "E" && SURFACE_E.has(localType))) {
      count(
        skipped,
        `class ${airspaceClass || "?"} ${localType} does not reach the surface`.replace(/\s+$/, ""),
      );
      return;
    }
    const geometry = cleanGeometry(feature.geometry);
    if (!geometry || (geometry.type !== "Polygon" && geometry.type !== "MultiPolygon")) {
      count(skipped, "no polygon geometry");
      return;
    }
    const floor = limit(p.LOWER_VAL, p.LOWER_CODE);
    const ceiling = limit(p.UPPER_VAL, p.UPPER_CODE);
    const properties: Record<string, unknown> = {
      type: localType.toLowerCase() || `class_${airspaceClass.toLowerCase()}`,
      airspace_classification: airspaceClass,
    };
    if (typeof p.ICAO_ID === "string" && p.ICAO_ID) properties.icao = p.ICAO_ID;
    if (typeof p.IDENT === "string" && p.IDENT) properties.airport_id = p.IDENT;
    features.push({
      sourceId: String(p.GLOBAL_ID ?? p.OBJECTID ?? feature.id ?? index),
      type: "controlled_airspace",
      name: String(p.NAME ?? `Class ${airspaceClass} airspace`),
      geometry,
      properties,
      floorM: floor?.meters ?? 0,
      floorCode: floor?.code ?? "AGL",
      ceilingM: ceiling?.meters ?? null,
      ceilingCode: ceiling?.code ?? null,
      city: typeof p.CITY === "string" ? titleCase(p.CITY) : null,
      state: typeof p.STATE === "string" ? titleCase(p.STATE) : null,
      country: p.COUNTRY === "UNITED STATES" || p.COUNTRY === "US" ? "USA" : null,
      source: "faa",
    });
  });
  return { features, facilityMaps: [], skipped };
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
