import { type Ed269Zone, parseEd269, type Restriction, zoneGeometry } from "../../../worker/interuss/ed269";
import type { AirspaceRecord } from "../dataset";
import { count, type Parsed } from "./source";

/**
 * EUROCAE ED-269 geographical zones (JSON `UASZoneList`, as national geo-zone services and InterUSS's
 * test data publish them) as special-use airspace. The restriction becomes the subtype that the
 * rulesets already color: PROHIBITED → prohibited (red), REQ_AUTHORISATION → restricted, CONDITIONAL
 * and NO_RESTRICTION → conditional and no_restriction (yellow, advisory). The parsing is the worker's
 * own (worker/interuss/ed269.ts), shared with the InterUSS geospatial-map data sources.
 */

/** A zone's restriction as the special-use subtype the rulesets color (ED-318's too, read as ED-269's). */
export const SUBTYPE: Record<Restriction, string> = {
  PROHIBITED: "prohibited",
  REQ_AUTHORISATION: "restricted",
  CONDITIONAL: "conditional",
  NO_RESTRICTION: "no_restriction",
};

/** ED-269 (and ED-318) vertical references in this service's codes. */
export const REFERENCE: Record<string, string> = { AGL: "AGL", AMSL: "MSL", WGS84: "MSL" };

export function parseEd269Zones(text: string): Parsed {
  const parsed = parseEd269(JSON.parse(text));
  const skipped = new Map<string, number>();
  for (const problem of parsed.problems) count(skipped, problem.replace(/^zone \d+: /, ""));
  return { features: parsed.zones.map(recordOf), facilityMaps: [], skipped };
}

function recordOf(zone: Ed269Zone): AirspaceRecord {
  // One record per zone: its volumes' lowest floor and highest ceiling (an open limit stays open).
  const lowers = zone.volumes.map((v) => v.lowerM);
  const uppers = zone.volumes.map((v) => v.upperM);
  const floor = lowers.includes(null) ? null : Math.min(...(lowers as number[]));
  const ceiling = uppers.includes(null) ? null : Math.max(...(uppers as number[]));
  const first = zone.volumes[0]!;
  return {
    sourceId: zone.identifier,
    type: "special_use_airspace",
    name: zone.name,
    geometry: zoneGeometry(zone),
    radiusM: 0,
    properties: {
      type: SUBTYPE[zone.restriction],
      ed269_identifier: zone.identifier,
      ed269_restriction: zone.restriction,
      ...(zone.uSpaceClass ? { u_space_class: zone.uSpaceClass } : {}),
      ...(zone.reasons.length > 0 ? { reason: zone.reasons.join(", ") } : {}),
      ...(zone.message ? { message: zone.message } : {}),
      ...(zone.authority?.phone ? { phone: zone.authority.phone } : {}),
      ...(zone.authority?.siteURL ? { url: zone.authority.siteURL } : {}),
      ...(zone.authority?.name ? { authority: zone.authority.name } : {}),
    },
    floorM: floor,
    ceilingM: ceiling,
    floorCode: floor === null ? null : (REFERENCE[first.lowerReference ?? "AGL"] ?? "AGL"),
    ceilingCode: ceiling === null ? null : (REFERENCE[first.upperReference ?? "AGL"] ?? "AGL"),
    effectiveStart: zone.start,
    effectiveEnd: zone.end,
    source: "ed269",
  };
}
