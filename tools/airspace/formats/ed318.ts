import { zoneGeometry } from "../../../worker/interuss/ed269";
import { type Ed318Zone, parseEd318 } from "../../../worker/interuss/ed318";
import type { AirspaceRecord } from "../dataset";
import { REFERENCE, SUBTYPE } from "./ed269";
import { count, type Parsed } from "./source";

/**
 * EUROCAE ED-318 geographical zones (a GeoJSON FeatureCollection, ED-269's successor) as the same
 * special-use airspace the ed269 format makes, so rulesets color them alike: PROHIBITED →
 * prohibited (red), REQ_AUTHORIZATION → restricted, CONDITIONAL and USPACE → conditional, and
 * NO_RESTRICTION → no_restriction (yellow, advisory). One record per zone: its volumes' lowest floor
 * and highest ceiling in metres with their reference, the span of its limitedApplicability (daily
 * schedules are kept in words: the zone counts for the whole span). Parsing is the worker's own
 * (worker/interuss/ed318.ts), which reads ED-318 into the ED-269 zone model.
 */

export function parseEd318Zones(text: string): Parsed {
  const parsed = parseEd318(JSON.parse(text));
  const skipped = new Map<string, number>();
  for (const problem of parsed.problems) count(skipped, problem);
  return { features: parsed.zones.map(ed318Record), facilityMaps: [], skipped };
}

export function ed318Record(zone: Ed318Zone): AirspaceRecord {
  // The reference of a limit is that of the volume which sets it.
  const floorVolume = zone.volumes.some((v) => v.lowerM === null)
    ? null
    : zone.volumes.reduce((a, b) => (b.lowerM! < a.lowerM! ? b : a));
  const ceilingVolume = zone.volumes.some((v) => v.upperM === null)
    ? null
    : zone.volumes.reduce((a, b) => (b.upperM! > a.upperM! ? b : a));
  const code = (reference: string | null) => REFERENCE[reference ?? "AGL"] ?? "AGL";
  const authority = zone.authority;
  return {
    sourceId: zone.identifier,
    type: "special_use_airspace",
    name: zone.name,
    geometry: zoneGeometry(zone),
    radiusM: 0,
    properties: {
      type: SUBTYPE[zone.restriction],
      ed318_identifier: zone.identifier,
      ed318_type: zone.type,
      ...(zone.variant === "CUSTOMIZED" ? { ed318_variant: zone.variant } : {}),
      ...(zone.reasons.length > 0 ? { reason: zone.reasons.join(", ") } : {}),
      ...(zone.otherReasonInfo ? { other_reason: zone.otherReasonInfo } : {}),
      ...(zone.message ? { message: zone.message } : {}),
      ...(zone.restrictionConditions ? { restriction_conditions: zone.restrictionConditions } : {}),
      ...(zone.regulationExemption ? { regulation_exemption: zone.regulationExemption } : {}),
      ...(zone.schedule ? { schedule: zone.schedule } : {}),
      ...(authority?.phone ? { phone: authority.phone } : {}),
      ...(authority?.email ? { email: authority.email } : {}),
      ...(authority?.siteURL ? { url: authority.siteURL } : {}),
      ...(authority?.name ? { authority: authority.name } : {}),
    },
    floorM: floorVolume?.lowerM ?? null,
    ceilingM: ceilingVolume?.upperM ?? null,
    floorCode: floorVolume ? code(floorVolume.lowerReference) : null,
    ceilingCode: ceilingVolume ? code(ceilingVolume.upperReference) : null,
    effectiveStart: zone.start,
    effectiveEnd: zone.end,
    country: zone.country,
    source: "ed318",
  };
}
