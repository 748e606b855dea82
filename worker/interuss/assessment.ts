import booleanIntersects from "@turf/boolean-intersects";
import { adviseArea, CONTROLLED_AIRSPACE, laancOverArea } from "../domain/airspace/advisories";
import { flightBand, type HeightBand } from "../domain/airspace/heights";
import { decideLaanc } from "../domain/airspace/laanc";
import { defaultSelection } from "../domain/airspace/rules";
import { bboxOf } from "../domain/geojson";
import { METERS_PER_FOOT } from "../domain/units";
import type { Db } from "../env";
import { rulesetsFor } from "../services/airspace";
import { advisoryInputs } from "../store/airspace";
import { type Ed269Zone, type Restriction, zoneEffect } from "./ed269";
import { activeZones } from "./store";
import { rangesMeet, type Volume } from "./volumes";

/**
 * What this service would tell a pilot planning a flight in one volume, as findings that Block or
 * Advise (the geospatial-map interface's operational impacts), from its own airspace and rules and
 * from the ED-269 zones loaded as data sources. Shared by `/map/queries` and flight planning, so the
 * map shows exactly what planning decides.
 *
 * Block: the flight would need an authorization it would not get automatically: a facility-map
 * ceiling below its altitude (or 0), controlled airspace without a facility map, a LAANC request it
 * could not make, a prohibited or restricted area, or a red advisory (a TFR, a fire: no flying).
 * Advise: any other advisory under the rulesets, and an automatic LAANC authorization (a condition).
 */

export type Effect = "Block" | "Advise";

/** The source of findings from this service's own airspace, rules and LAANC. */
export const OWN_SOURCE = "windsock";

export interface Finding {
  effect: Effect;
  /** `windsock` for this service's airspace, else the data source id of an ED-269 zone. */
  source: string;
  id: string;
  name: string;
  reason: string;
  ed269?: { restriction: Restriction; uSpaceClass: string | null };
}

export interface AssessOptions {
  /** Ruleset ids to plan under; undefined means the default selection where the volume is. */
  rulesetIds?: string[];
  now: number;
}

/** Rulesets spelled as the qualifier's test designers name them. */
const RULE_SET_ALIASES: Record<string, string> = { Part107: "usa_part_107", "Part 107": "usa_part_107" };
export const rulesetIdOf = (name: string) => RULE_SET_ALIASES[name] ?? name;

const BLOCKING_SPECIAL_USE = new Set(["prohibited", "restricted"]);

export async function assessVolume(
  db: Db,
  d1: D1Database,
  volume: Volume,
  options: AssessOptions,
): Promise<Finding[]> {
  const start = volume.start ?? options.now;
  const end = volume.end ?? Math.max(start, options.now);
  const rulesetIds =
    options.rulesetIds ?? defaultSelection(await rulesetsFor(db, volume.area)).map((r) => r.id);
  const [inputs, zones] = await Promise.all([
    advisoryInputs(db, bboxOf(volume.area), rulesetIds, { start, end, band: volumeBand(volume) }),
    activeZones(d1),
  ]);
  const findings: Finding[] = [];
  const altitudeM = volumeBand(volume).upperM;

  const { facilityMaps, uncoveredAirspace } = laancOverArea(volume.area, inputs.features, inputs.cells);
  const authorizations = decideLaanc({
    maxAltitudeAgl: altitudeM,
    startTime: start,
    now: options.now,
    rulesets: inputs.rulesets,
    facilityMaps,
    uncoveredAirspace,
  });
  const laancDecides = authorizations.length > 0;
  for (const a of authorizations) {
    findings.push({
      effect: a.status === "accepted" ? "Advise" : "Block",
      source: OWN_SOURCE,
      id: `laanc:${a.description}`,
      name: a.description,
      reason: a.message,
    });
  }
  if (laancDecides) {
    // LAANC accepts a flight at the surface under a 0 ft ceiling, but nothing flies there without more.
    for (const map of facilityMaps.filter((m) => Math.min(...m.ceilingsFt) === 0))
      findings.push({
        effect: "Block",
        source: OWN_SOURCE,
        id: `facility_map:${map.airportId}`,
        name: `${map.icao ?? map.airportId} ${map.name} facility map`,
        reason: "The facility-map ceiling here is 0 ft: every flight needs further coordination",
      });
  } else {
    // No LAANC rule among the rulesets (or none where the volume is): the facility maps still say
    // how high a flight goes without further authorization.
    for (const map of facilityMaps) {
      const ceilingFt = Math.min(...map.ceilingsFt);
      const blocked = ceilingFt === 0 || altitudeM > ceilingFt * METERS_PER_FOOT + 1e-6;
      findings.push({
        effect: blocked ? "Block" : "Advise",
        source: OWN_SOURCE,
        id: `facility_map:${map.airportId}`,
        name: `${map.icao ?? map.airportId} ${map.name} facility map`,
        reason: blocked
          ? `The facility-map ceiling here is ${ceilingFt} ft, below ${Math.round(altitudeM / METERS_PER_FOOT)} ft: authorization needed`
          : `Controlled airspace: authorization available up to ${ceilingFt} ft`,
      });
    }
    for (const name of uncoveredAirspace)
      findings.push({
        effect: "Block",
        source: OWN_SOURCE,
        id: `controlled_airspace:${name}`,
        name,
        reason: `No facility map covers ${name} here: authorization through FAADroneZone`,
      });
  }

  const { advisories } = adviseArea({ area: volume.area, ...inputs, withExtents: true });
  for (const advisory of advisories) {
    // Controlled airspace is decided above, by its facility maps.
    if (advisory.type === CONTROLLED_AIRSPACE) continue;
    const extents = advisory.extents;
    if (extents && !rangesMeet(volume.lowerM, volume.upperM, extents.floor_m, extents.ceiling_m)) continue;
    const subtype = advisory.properties.type;
    const blocked =
      advisory.color === "red" ||
      (advisory.type === "special_use_airspace" &&
        typeof subtype === "string" &&
        BLOCKING_SPECIAL_USE.has(subtype));
    findings.push({
      effect: blocked ? "Block" : "Advise",
      source: OWN_SOURCE,
      id: advisory.id,
      name: advisory.name,
      reason: `${advisory.type.replace(/_/g, " ")} (${advisory.color}) under ruleset ${advisory.ruleset_id}`,
    });
  }

  for (const { sourceId, zone } of zones) {
    if (!zoneMeets(zone, volume, start, end)) continue;
    findings.push({
      effect: zoneEffect(zone.restriction),
      source: sourceId,
      id: `${sourceId}:${zone.identifier}`,
      name: zone.name,
      reason: `ED-269 zone ${zone.identifier}: ${zone.restriction}${zone.message ? ` (${zone.message})` : ""}`,
      ed269: { restriction: zone.restriction, uSpaceClass: zone.uSpaceClass },
    });
  }
  return findings;
}

function zoneMeets(zone: Ed269Zone, volume: Volume, start: number, end: number): boolean {
  if (!rangesMeet(zone.start, zone.end, start, end)) return false;
  return zone.volumes.some(
    (v) =>
      rangesMeet(v.lowerM, v.upperM, volume.lowerM, volume.upperM) &&
      booleanIntersects(v.area as GeoJSON.Polygon, volume.area as GeoJSON.Polygon),
  );
}

/** A volume's heights; one without heights is a flight at the surface: only what closes the surface blocks it. */
function volumeBand(volume: Volume): HeightBand {
  const upperM = volume.upperM ?? volume.lowerM ?? 0;
  return flightBand({ maxAltitudeAgl: upperM, minAltitudeAgl: volume.lowerM ?? 0 });
}
