import { featuresOf, rulesetView } from "../domain/airspace/rules";
import type { Polygon, Position } from "../domain/geojson";
import { circlePolygon } from "../domain/geometry/circle";
import type { Db } from "../env";
import { notFound } from "../lib/errors";
import { allFlightFeatures, flightFeatureDefinitions, rulesetsByIds } from "../store/rulesets";
import { refuseUnknownRulesets, rulesetsFor } from "./airspace";

/** Rulesets as the SDKs decode them (sdk-routes.md, Rules): each rule with its flight features described. */

/** The rulesets at a coordinate are those of the few meters around it. */
const POINT_RADIUS_M = 1;

/** The rulesets of the jurisdictions an area (or a point) meets, with the features their rules name. */
export async function rulesetViewsOver(db: Db, place: { area: Polygon } | { point: Position }) {
  const area = "area" in place ? place.area : circlePolygon(place.point, POINT_RADIUS_M);
  const rulesets = await rulesetsFor(db, area);
  const definitions = await flightFeatureDefinitions(db, [
    ...new Set(rulesets.flatMap((r) => r.rules.flatMap(featuresOf))),
  ]);
  return rulesets.map((r) => rulesetView(r, definitions));
}

/** The rulesets asked for by id; 400 naming `rulesets` when one is unknown. */
export async function rulesetViewsByIds(db: Db, ids: string[]) {
  const [rulesets, definitions] = await Promise.all([rulesetsByIds(db, ids), allFlightFeatures(db)]);
  refuseUnknownRulesets(ids, rulesets);
  return rulesets.map((r) => rulesetView(r, definitions));
}

/** One ruleset; 404 when there is none of that id. */
export async function rulesetViewById(db: Db, id: string) {
  const [rulesets, definitions] = await Promise.all([rulesetsByIds(db, [id]), allFlightFeatures(db)]);
  const ruleset = rulesets[0];
  if (!ruleset) throw notFound(`Ruleset ${id}`);
  return rulesetView(ruleset, definitions);
}
