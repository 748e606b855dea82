import { addsRecord } from "./faaAdds";
import type { AirspaceRecord } from "./records";
import { count, featuresOf, type Parsed } from "./source";

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
    const properties: Record<string, unknown> = {
      type: localType.toLowerCase() || `class_${airspaceClass.toLowerCase()}`,
      airspace_classification: airspaceClass,
    };
    if (typeof p.ICAO_ID === "string" && p.ICAO_ID) properties.icao = p.ICAO_ID;
    if (typeof p.IDENT === "string" && p.IDENT) properties.airport_id = p.IDENT;
    const record = addsRecord(feature, index, {
      type: "controlled_airspace",
      unnamed: `Class ${airspaceClass} airspace`,
      properties,
      country: p.COUNTRY === "UNITED STATES" || p.COUNTRY === "US" ? "USA" : null,
    });
    if (record) features.push(record);
    else count(skipped, "no polygon geometry");
  });
  return { features, facilityMaps: [], skipped };
}
