import type { AirspaceRecord } from "./records";
import { cleanGeometry, count, featuresOf, type Parsed, sourceTime } from "./source";

/**
 * FAA TFR shapes from tfr.faa.gov's WFS layer TFR:V_TFR_LOC: NOTAM_KEY, TITLE, LEGAL (the kind:
 * SECURITY, HAZARDS, VIP…), STATE, LAST_MODIFICATION_DATETIME. The layer carries no times; where an
 * operator has joined them from the NOTAM detail (DATE_EFFECTIVE, DATE_EXPIRE) they bound the TFR,
 * otherwise it stands until the next load of the dataset replaces it.
 */
export function parseTfr(text: string | object): Parsed {
  const features: AirspaceRecord[] = [];
  const skipped = new Map<string, number>();
  featuresOf(text).forEach((feature, index) => {
    const p = feature.properties ?? {};
    const geometry = cleanGeometry(feature.geometry);
    if (!geometry) {
      count(skipped, "no usable geometry");
      return;
    }
    const key = String(p.NOTAM_KEY ?? feature.id ?? index);
    const notam = /\d+\/\d+/.exec(key)?.[0];
    const properties: Record<string, unknown> = {
      type: String(p.LEGAL ?? "tfr").toLowerCase(),
      ...(notam ? { notam, url: `https://tfr.faa.gov/tfr3/?page=detail_${notam.replace("/", "_")}` } : {}),
      ...(p.TITLE ? { description: String(p.TITLE) } : {}),
    };
    features.push({
      sourceId: key,
      type: "tfr",
      name: String(p.TITLE ?? (notam ? `TFR ${notam}` : "Temporary flight restriction")),
      geometry,
      properties,
      effectiveStart: sourceTime(p.DATE_EFFECTIVE),
      effectiveEnd: sourceTime(p.DATE_EXPIRE),
      lastUpdated: sourceTime(p.LAST_MODIFICATION_DATETIME),
      source: "faa",
    });
  });
  return { features, facilityMaps: [], skipped };
}
