import { and, asc, eq, inArray } from "drizzle-orm";
import { flightFeatures, flightPlans, flights, jurisdictions, rules, rulesets } from "../../schema";
import type { Condition, FlightFeature, Ruleset, Trigger } from "../domain/airspace/rules";
import type { Db } from "../env";
import type { FlightPlanRow } from "./flights";

/** Reads of the SDK routes: rulesets by id, every flight feature, plans and their flights by ids. */

/** Rulesets with their rules and jurisdiction, in display order; unknown ids are simply absent. */
export async function rulesetsByIds(db: Db, ids: string[]): Promise<Ruleset[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({
      ruleset: rulesets,
      jurisdiction: { id: jurisdictions.id, name: jurisdictions.name, region: jurisdictions.region },
      rule: rules,
    })
    .from(rulesets)
    .innerJoin(jurisdictions, eq(jurisdictions.id, rulesets.jurisdictionId))
    .leftJoin(rules, eq(rules.rulesetId, rulesets.id))
    .where(inArray(rulesets.id, ids))
    .orderBy(asc(rulesets.displayOrder), asc(rules.displayOrder), asc(rules.id));
  const byId = new Map<string, Ruleset>();
  for (const { ruleset, jurisdiction, rule } of rows) {
    let entry = byId.get(ruleset.id);
    if (!entry) {
      entry = {
        id: ruleset.id,
        name: ruleset.name,
        short_name: ruleset.shortName,
        description: ruleset.description,
        selection_type: ruleset.selectionType,
        default: ruleset.isDefault,
        jurisdiction,
        airspace_types: ruleset.airspaceTypes,
        rules: [],
      };
      byId.set(ruleset.id, entry);
    }
    if (rule)
      entry.rules.push({
        id: rule.id,
        short_text: rule.shortText,
        description: rule.description,
        display_order: rule.displayOrder,
        flight_features: rule.flightFeatures,
        condition: (rule.condition ?? null) as Condition | null,
        triggers: rule.triggers as Trigger[],
      });
  }
  return [...byId.values()];
}

/**
 * Definitions change only when an operator reloads the rulesets: each isolate keeps them a minute,
 * as it keeps API keys, so an evaluation costs one D1 round trip. An empty table is never kept.
 */
const DEFINITIONS_CACHE_MS = 60_000;
let cachedDefinitions: { definitions: Map<string, FlightFeature>; expiresAt: number } | undefined;

/** Every flight feature definition (a few dozen rows). */
export async function allFlightFeatures(db: Db, now = Date.now()): Promise<Map<string, FlightFeature>> {
  if (cachedDefinitions && cachedDefinitions.expiresAt > now) return cachedDefinitions.definitions;
  const definitions = await readFlightFeatures(db);
  cachedDefinitions =
    definitions.size > 0 ? { definitions, expiresAt: now + DEFINITIONS_CACHE_MS } : undefined;
  return definitions;
}

async function readFlightFeatures(db: Db): Promise<Map<string, FlightFeature>> {
  const rows = await db.select().from(flightFeatures);
  return new Map(
    rows.map((r) => [
      r.name,
      {
        flight_feature: r.name,
        description: r.description,
        input_type: r.inputType,
        measurement_type: r.measurementType,
        measurement_unit: r.measurementUnit,
      },
    ]),
  );
}

/** The account's plans among `ids`, each with the authorizations of its flight once submitted. */
export async function plansWithAuthorizations(
  db: Db,
  accountId: string,
  ids: string[],
): Promise<{ plan: FlightPlanRow; flightAuthorizations: unknown[] | null }[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ plan: flightPlans, flightAuthorizations: flights.authorizations })
    .from(flightPlans)
    .leftJoin(flights, eq(flights.id, flightPlans.flightId))
    .where(and(eq(flightPlans.accountId, accountId), inArray(flightPlans.id, ids)));
  return rows.map((r) => ({ plan: r.plan, flightAuthorizations: r.flightAuthorizations ?? null }));
}
