import { addsRecord, titleCase } from "./faaAdds";
import type { AirspaceRecord } from "./records";
import { count, featuresOf, type Parsed } from "./source";

/** The FAA's TYPE_CODE of special-use airspace, as the rulesets' `special_use_airspace.type`. */
const KINDS: Record<string, string> = {
  P: "prohibited",
  R: "restricted",
  W: "warning",
  A: "alert",
  MOA: "military_operations_area",
  NSA: "national_security_area",
};

/**
 * FAA Special_Use_Airspace (ADDS) GeoJSON: NAME, TYPE_CODE (P, R, W, A, MOA, NSA), LOWER_/UPPER_VAL
 * with their codes as in Class_Airspace, TIMESOFUSE, CONT_AGENT, CITY, STATE, GLOBAL_ID.
 */
export function parseSpecialUseAirspace(text: string | object): Parsed {
  const features: AirspaceRecord[] = [];
  const skipped = new Map<string, number>();
  featuresOf(text).forEach((feature, index) => {
    const p = feature.properties ?? {};
    const code = String(p.TYPE_CODE ?? "")
      .trim()
      .toUpperCase();
    const kind = KINDS[code];
    if (!kind) {
      count(skipped, `unknown TYPE_CODE "${code}"`);
      return;
    }
    const properties: Record<string, unknown> = { type: kind };
    if (typeof p.TIMESOFUSE === "string" && p.TIMESOFUSE) properties.times_of_use = p.TIMESOFUSE;
    if (typeof p.CONT_AGENT === "string" && p.CONT_AGENT) properties.controlling_agency = p.CONT_AGENT;
    const record = addsRecord(feature, index, {
      type: "special_use_airspace",
      unnamed: `${titleCase(kind.replace(/_/g, " "))} area`,
      properties,
      country: "USA",
    });
    if (record) features.push(record);
    else count(skipped, "no polygon geometry");
  });
  return { features, facilityMaps: [], skipped };
}
