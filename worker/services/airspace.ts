import {
  type AirspaceFeature,
  adviseArea,
  CONTROLLED_AIRSPACE,
  type FacilityCell,
  laancOverArea,
} from "../domain/airspace/advisories";
import { flightBand, type HeightBand } from "../domain/airspace/heights";
import { areaSizeProblem, unknownRulesetsProblem } from "../domain/airspace/inputs";
import {
  jurisdictionsAt,
  jurisdictionsMeeting,
  nearestTown,
  type Place,
  placeOf,
  TOWN_RADIUS_M,
} from "../domain/airspace/jurisdictions";
import { type Authorization, decideLaanc } from "../domain/airspace/laanc";
import { withDecodedProperties } from "../domain/airspace/records";
import { defaultSelection, LAANC_TYPE, type Ruleset } from "../domain/airspace/rules";
import { expandBox } from "../domain/airspace/spatialGrid";
import { type BBox, bboxOf, type Point, type Polygon, type Position } from "../domain/geojson";
import type { Db } from "../env";
import { notFound, problemError } from "../lib/errors";
import { timeWindowFrom } from "../schemas/queryFields";
import {
  advisoryInputs,
  type FeatureFilter,
  featuresAndCells,
  jurisdictionsAround,
  placeInputs,
  pointInputs,
} from "../store/airspace";
import { findPlan } from "../store/flights";
import { rulesetsByIds, rulesetsOfJurisdictions } from "../store/rulesets";

/**
 * Airspace decisions several routes share: which rulesets apply where, where a point is, what LAANC
 * decides for a plan, and what an advisory or status query reads. Each reads through store/ and
 * decides with the pure functions of domain/airspace.
 */

/** The rulesets that apply to an area or point: those of every jurisdiction it meets. */
export async function rulesetsFor(db: Db, geometry: Polygon | Point): Promise<Ruleset[]> {
  const meeting = jurisdictionsMeeting(geometry, await jurisdictionsAround(db, bboxOf(geometry)));
  return rulesetsOfJurisdictions(
    db,
    meeting.map((j) => j.id),
  );
}

/** The ruleset ids chosen for an area: those given, or else the default selection where it is. */
export async function chosenRulesetIds(db: Db, area: Polygon, given: string[]): Promise<string[]> {
  if (given.length > 0) return given;
  return defaultSelection(await rulesetsFor(db, area)).map((r) => r.id);
}

export interface AirspaceInputs {
  rulesets: Ruleset[];
  features: AirspaceFeature[];
  cells: FacilityCell[];
}

/**
 * What advisories over an area need: the rulesets (the given ids, or else the default selection of
 * every jurisdiction the area meets), the features within `buffer` of it and the facility-map cells.
 */
export async function areaAdvisoryInputs(
  db: Db,
  area: Polygon,
  buffer: number,
  rulesetIds: string[],
  window: { start: number; end: number; band?: HeightBand },
): Promise<AirspaceInputs> {
  const ids = await chosenRulesetIds(db, area, rulesetIds);
  return advisoryInputs(db, expandBox(bboxOf(area), buffer), ids, window);
}

/**
 * Advisories over an area under the rulesets asked for (each must exist), and their strictest
 * color; every advisory carries the `properties` members the SDK decoders read for its type.
 */
export async function advisoriesOver(
  db: Db,
  area: Polygon,
  rulesetIds: string[],
  window: { start: number; end: number },
  withExtents: boolean,
) {
  const inputs = await advisoryInputs(db, bboxOf(area), rulesetIds, window);
  refuseUnknownRulesets(rulesetIds, inputs.rulesets);
  return decoded(adviseArea({ area, ...inputs, withExtents }));
}

/**
 * Advisories over a plan of the calling account (another account's plan does not exist for it: 404)
 * under its rulesets (the default selection where it has none), in the plan's window unless a
 * `start` or `end` is given. The C++ SDK sends no pilot token here: the account's API key suffices.
 */
export async function advisoriesForPlan(
  db: Db,
  accountId: string,
  planId: string,
  query: { start?: string; end?: string },
) {
  const plan = await findPlan(db, accountId, planId);
  if (!plan) throw notFound("Flight plan");
  const timeWindow =
    query.start === undefined && query.end === undefined
      ? { start: plan.startTime, end: plan.endTime }
      : timeWindowFrom(query.start, query.end);
  const { rulesets, features, cells } = await areaAdvisoryInputs(db, plan.area, 0, plan.rulesets, {
    ...timeWindow,
    band: flightBand(plan),
  });
  return decoded(adviseArea({ area: plan.area, features, cells, rulesets, withExtents: false }));
}

function decoded<T extends { advisories: { type: string; properties: Record<string, unknown> }[] }>(
  answer: T,
): T {
  return { ...answer, advisories: answer.advisories.map(withDecodedProperties) };
}

/** Refuses (400 naming `rulesets`) the ids asked for that no ruleset read answers. */
export function refuseUnknownRulesets(asked: string[], found: Ruleset[]): void {
  const known = new Set(found.map((r) => r.id));
  const unknown = asked.filter((id) => !known.has(id));
  if (unknown.length > 0) throw unknownRulesetsError(unknown);
}

/**
 * What the status query at a point needs: the features and cells within `buffer` of it, and the
 * default selection of the rulesets that apply there (which color the advisories).
 */
export async function statusInputs(
  db: Db,
  point: Position,
  buffer: number,
  filter: FeatureFilter,
): Promise<AirspaceInputs> {
  const at = pointBox(point);
  const read = await pointInputs(db, at, expandBox(at, buffer), filter);
  const here = jurisdictionsAt(point, read.jurisdictions).map((j) => j.id);
  const applicable = await rulesetsOfJurisdictions(db, here);
  return { rulesets: defaultSelection(applicable), features: read.features, cells: read.cells };
}

/**
 * `{city, state, country}` of a point, for flights: state and country from the boundaries, the city
 * from a city boundary or else the town of the nearest airport or heliport within 5 km.
 */
export async function locatePoint(
  db: Db,
  latitude: number,
  longitude: number,
  now = Date.now(),
): Promise<Place> {
  const point: Position = [longitude, latitude];
  const at = pointBox(point);
  const read = await placeInputs(db, at, expandBox(at, TOWN_RADIUS_M), {
    types: ["airport", "heliport"],
    start: now,
    end: now,
  });
  const place = placeOf(point, read.jurisdictions);
  return place.city ? place : { ...place, city: nearestTown(point, read.features) };
}

export interface PlanForAuthorization {
  area: Polygon;
  maxAltitudeAgl: number;
  /** The plan's ruleset ids; when empty, the default selection where the plan is. */
  rulesets: string[];
  startTime: number;
  endTime: number;
}

/** The LAANC authorizations (spec 2.6) a plan needs, decided by CONTRACT §7. */
export async function authorizationsForPlan(
  db: Db,
  plan: PlanForAuthorization,
  now = Date.now(),
): Promise<Authorization[]> {
  const chosen =
    plan.rulesets.length > 0
      ? await rulesetsByIds(db, plan.rulesets)
      : defaultSelection(await rulesetsFor(db, plan.area));
  // Without a LAANC ruleset there is nothing to decide, and no controlled airspace to read.
  if (!chosen.some((r) => r.airspace_types.includes(LAANC_TYPE))) return [];
  const { features, cells } = await featuresAndCells(db, bboxOf(plan.area), {
    types: [CONTROLLED_AIRSPACE],
    start: plan.startTime,
    end: plan.endTime,
    band: flightBand(plan),
  });
  return decideLaanc({
    maxAltitudeAgl: plan.maxAltitudeAgl,
    startTime: plan.startTime,
    now,
    rulesets: chosen,
    ...laancOverArea(plan.area, features, cells),
  });
}

/** The 400 for an area too wide to answer in one airspace query; null when it fits. */
export function areaSizeError(area: Polygon) {
  const problem = areaSizeProblem(area);
  return problem ? problemError([problem]) : null;
}

/** The 400 for ruleset ids that name no ruleset. */
export function unknownRulesetsError(unknown: string[], field = "rulesets") {
  return problemError([unknownRulesetsProblem(unknown, field)]);
}

const pointBox = ([longitude, latitude]: Position): BBox => ({
  minLat: latitude,
  maxLat: latitude,
  minLng: longitude,
  maxLng: longitude,
});
