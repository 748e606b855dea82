import { METERS_PER_FOOT } from "../../units";
import { titleCase } from "./faaAdds";
import type { AirspaceRecord } from "./records";
import { cleanGeometry, count, featuresOf, numberOf, type Parsed, sourceTime } from "./source";

/**
 * FAA National Security UAS Flight Restrictions (14 CFR 99.7 special security instructions) GeoJSON:
 * NAME (the facility), TYPE (full or part time), CEILING in feet AGL (drones are prohibited from the
 * surface to it), REASON, CITY, STATE, LAST_EDIT. Drone flight inside is prohibited, so each is
 * special-use airspace of type `prohibited`, as the rulesets read it.
 */
export function parseNationalSecurity(text: string | object): Parsed {
  const features: AirspaceRecord[] = [];
  const skipped = new Map<string, number>();
  featuresOf(text).forEach((feature, index) => {
    const p = feature.properties ?? {};
    const geometry = cleanGeometry(feature.geometry);
    if (!geometry || (geometry.type !== "Polygon" && geometry.type !== "MultiPolygon")) {
      count(skipped, "no polygon geometry");
      return;
    }
    const name = typeof p.NAME === "string" && p.NAME.trim() ? p.NAME.trim() : undefined;
    if (!name) {
      count(skipped, "no NAME");
      return;
    }
    const ceilingFt = numberOf(p.CEILING);
    const properties: Record<string, unknown> = {
      type: "prohibited",
      restriction: "national_security_uas_flight_restriction",
    };
    if (typeof p.TYPE === "string" && p.TYPE) properties.schedule = p.TYPE.toLowerCase();
    if (typeof p.REASON === "string" && p.REASON) properties.description = p.REASON;
    features.push({
      sourceId: String(p.GLOBALID ?? p.GLOBAL_ID ?? p.OBJECTID ?? feature.id ?? index),
      type: "special_use_airspace",
      name,
      geometry,
      properties,
      floorM: 0,
      floorCode: "AGL",
      ceilingM: ceilingFt === null ? null : Math.round(ceilingFt * METERS_PER_FOOT * 100) / 100,
      ceilingCode: ceilingFt === null ? null : "AGL",
      lastUpdated: sourceTime(p.LAST_EDIT),
      city: typeof p.CITY === "string" ? titleCase(p.CITY) : null,
      state: typeof p.STATE === "string" ? titleCase(p.STATE) : null,
      country: "USA",
      source: "faa",
    });
  });
  return { features, facilityMaps: [], skipped };
}
