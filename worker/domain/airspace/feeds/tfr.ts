import { sourceTime } from "../formats/source";
import { FeedError } from "./arcgis";

/**
 * tfr.faa.gov: the list of current TFRs (JSON, one entry per NOTAM), their shapes from the WFS
 * layer TFR:V_TFR_LOC (GeoJSON, read by formats/faaTfr.ts) and each TFR's detail (XNOTAM XML), whose
 * dateEffective and dateExpire (UTC) bound it.
 */

export const tfrListUrl = (base: string) => `${base.replace(/\/+$/, "")}/tfrapi/getTfrList`;

export const tfrShapesUrl = (base: string) =>
  `${base.replace(/\/+$/, "")}/geoserver/TFR/ows?${new URLSearchParams({
    service: "WFS",
    version: "1.1.0",
    request: "GetFeature",
    typeName: "TFR:V_TFR_LOC",
    maxFeatures: "10000",
    outputFormat: "application/json",
    srsname: "EPSG:4326",
  })}`;

/** `6/4321` → …/download/detail_6_4321.xml */
export const tfrDetailUrl = (base: string, notam: string) =>
  `${base.replace(/\/+$/, "")}/download/detail_${notam.replace("/", "_")}.xml`;

export interface ListedTfr {
  notam: string;
  type: string | null;
  description: string | null;
}

/** The NOTAM ids on the list (`notam_id`; older lists say `notam`). */
export function tfrList(json: unknown, url: string): ListedTfr[] {
  if (!Array.isArray(json)) throw new FeedError("not a TFR list (expected a JSON array)", url);
  return json.flatMap((entry) => {
    const e = (entry ?? {}) as Record<string, unknown>;
    const notam = String(e.notam_id ?? e.notam ?? "").trim();
    if (!/^\d+\/\d+$/.test(notam)) return [];
    return [
      {
        notam,
        type: typeof e.type === "string" ? e.type : null,
        description: typeof e.description === "string" ? e.description.trim() : null,
      },
    ];
  });
}

/** The times of a TFR's detail; null where it has none (a TFR "until further notice"). */
export function tfrDetailTimes(xml: string, url: string): { start: number | null; end: number | null } {
  if (!/<XNOTAM-Update[\s>]/.test(xml)) throw new FeedError("not a TFR detail (no XNOTAM-Update)", url);
  const field = (name: string) => {
    const text = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1]?.trim();
    return text ? sourceTime(text.endsWith("Z") ? text : `${text}Z`) : null;
  };
  return { start: field("dateEffective"), end: field("dateExpire") };
}
