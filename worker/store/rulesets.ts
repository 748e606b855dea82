import { and, asc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { flightFeatures, flightPlans, flights, jurisdictions, rules, rulesets } from "../../schema";
import type { Condition, FlightFeature, Ruleset, Trigger } from "../domain/airspace/rules";
import type { Db } from "../env";
import { TtlCache } from "../lib/ttlCache";
import type { FlightPlanRow } from "./flights";
import { preparedRead, readBatch } from "./prepared";

/** Rulesets with their rules and jurisdiction, the flight features rules name, and plans' authorizations. */

/**
 * Rulesets, their jurisdiction and rules (a row per rule) matching `where`, in display order. Aliased
 * columns: rows of a D1 batch come back as objects, where same-named columns would collide.
 */
export function rulesetsQuery(db: Db, where: SQL) {
  return db
    .select({
      id: rulesets.id,
      name: rulesets.name,
      shortName: rulesets.shortName,
      description: rulesets.description,
      selectionType: rulesets.selectionType,
      isDefault: rulesets.isDefault,
      airspaceTypes: rulesets.airspaceTypes,
      jurisdictionId: sql<number>`${jurisdictions.id}`.as("jurisdiction_id"),
      jurisdictionName: sql<string>`${jurisdictions.name}`.as("jurisdiction_name"),
      jurisdictionRegion: sql<string>`${jurisdictions.region}`.as("jurisdiction_region"),
      ruleId: sql<number | null>`${rules.id}`.as("rule_id"),
      ruleShortText: sql<string>`${rules.shortText}`.as("rule_short_text"),
      ruleDescription: sql<string>`${rules.description}`.as("rule_description"),
      ruleDisplayOrder: sql<number | null>`${rules.displayOrder}`.as("rule_display_order"),
      ruleFlightFeatures: sql<string>`${rules.flightFeatures}`.as("rule_flight_features"),
      ruleCondition: sql<string | null>`${rules.condition}`.as("rule_condition"),
      ruleTriggers: sql<string>`${rules.triggers}`.as("rule_triggers"),
    })
    .from(rulesets)
    .innerJoin(jurisdictions, eq(jurisdictions.id, rulesets.jurisdictionId))
    .leftJoin(rules, eq(rules.rulesetId, rulesets.id))
    .where(where)
    .orderBy(asc(rulesets.displayOrder), asc(rules.displayOrder), asc(rules.id));
}

/** The rows of `rulesetsQuery` folded into rulesets, each with its rules in order. */
export function toRulesets(rows: Awaited<ReturnType<typeof rulesetsQuery>>): Ruleset[] {
  const byId = new Map<string, Ruleset>();
  for (const row of rows) {
    let entry = byId.get(row.id);
    if (!entry) {
      entry = {
        id: row.id,
        name: row.name,
        short_name: row.shortName,
        description: row.description,
        selection_type: row.selectionType,
        default: row.isDefault,
        jurisdiction: { id: row.jurisdictionId, name: row.jurisdictionName, region: row.jurisdictionRegion },
        airspace_types: row.airspaceTypes,
        rules: [],
      };
      byId.set(row.id, entry);
    }
    if (row.ruleId !== null) {
      entry.rules.push({
        id: row.ruleId,
        short_text: row.ruleShortText,
        description: row.ruleDescription,
        display_order: row.ruleDisplayOrder,
        flight_features: JSON.parse(row.ruleFlightFeatures) as string[],
        condition: row.ruleCondition === null ? null : (JSON.parse(row.ruleCondition) as Condition),
        triggers: JSON.parse(row.ruleTriggers) as Trigger[],
      });
    }
  }
  return [...byId.values()];
}

/** The rulesets named in a JSON list of ids (`ids`), prepared once: advisory batches read it too. */
export const rulesetsNamed = preparedRead((db) =>
  rulesetsQuery(
    db,
    sql`${rulesets.id} IN (SELECT value FROM json_each(${sql.placeholder("ids")}))`,
  ).prepare(),
);

/**
 * Rulesets and flight feature definitions change only when an operator reloads them: each isolate
 * keeps them this long, as it keeps API keys, so a status query or a ruleset by id reads no rules
 * and an evaluation costs one D1 round trip. Shared between requests: callers never change them. An empty answer is
 * never kept.
 */
const RELOADED_WITHIN_MS = 60_000;
const MAX_CACHED_JURISDICTION_SETS = 1_000;
const cachedRulesets = new TtlCache<Ruleset[]>(MAX_CACHED_JURISDICTION_SETS);

/**
 * Rulesets by id, in display order; unknown ids are simply absent. Kept per isolate as the rulesets
 * of jurisdictions are (RELOADED_WITHIN_MS): `GET /rules/v1/{ruleset_id}` then reads nothing.
 */
export async function rulesetsByIds(db: Db, ids: string[], now = Date.now()): Promise<Ruleset[]> {
  if (ids.length === 0) return [];
  const cached = keptRulesetsByIds(ids, now);
  if (cached) return cached;
  const [rows] = await readBatch(db, [rulesetsNamed(db, { ids: JSON.stringify(ids) })]);
  return keepRulesetsByIds(ids, toRulesets(rows), now);
}

const idsKey = (ids: string[]) => `ids ${[...new Set(ids)].sort().join(",")}`;

/** The rulesets of these ids as this isolate keeps them (rulesetsByIds), if it does. */
export function keptRulesetsByIds(ids: string[], now = Date.now()): Ruleset[] | undefined {
  return cachedRulesets.get(idsKey(ids), now);
}

/** Keeps rulesets read by id elsewhere (in a batch of other reads) for rulesetsByIds; returns them. */
export function keepRulesetsByIds(ids: string[], found: Ruleset[], now = Date.now()): Ruleset[] {
  if (found.length > 0) cachedRulesets.set(idsKey(ids), found, RELOADED_WITHIN_MS, now);
  return found;
}

/** The rulesets of the given jurisdictions, in display order. */
export async function rulesetsOfJurisdictions(
  db: Db,
  jurisdictionIds: number[],
  now = Date.now(),
): Promise<Ruleset[]> {
  if (jurisdictionIds.length === 0) return [];
  const key = `jurisdictions ${[...new Set(jurisdictionIds)].sort((a, b) => a - b).join(",")}`;
  const cached = cachedRulesets.get(key, now);
  if (cached) return cached;
  const found = toRulesets(await rulesetsQuery(db, inArray(rulesets.jurisdictionId, jurisdictionIds)));
  if (found.length > 0) cachedRulesets.set(key, found, RELOADED_WITHIN_MS, now);
  return found;
}

/** The ids among `ids` that name no ruleset (plans and advisory queries refuse them). */
export async function unknownRulesetIds(db: Db, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const known = await db.select({ id: rulesets.id }).from(rulesets).where(inArray(rulesets.id, ids));
  const knownIds = new Set(known.map((r) => r.id));
  return [...new Set(ids)].filter((id) => !knownIds.has(id));
}

/** Every flight feature definition, kept RELOADED_WITHIN_MS. */
const cachedDefinitions = new TtlCache<Map<string, FlightFeature>>(1);

/** Every flight feature definition (a few dozen rows). */
export async function allFlightFeatures(db: Db, now = Date.now()): Promise<Map<string, FlightFeature>> {
  const cached = cachedDefinitions.get("all", now);
  if (cached) return cached;
  const definitions = toFlightFeatures(await db.select().from(flightFeatures));
  if (definitions.size > 0) cachedDefinitions.set("all", definitions, RELOADED_WITHIN_MS, now);
  return definitions;
}

/** The definitions of the named flight features (those a set of rules asks for), from allFlightFeatures. */
export async function flightFeatureDefinitions(db: Db, names: string[]): Promise<Map<string, FlightFeature>> {
  if (names.length === 0) return new Map();
  const all = await allFlightFeatures(db);
  return new Map(names.flatMap((name) => (all.has(name) ? [[name, all.get(name)!] as const] : [])));
}

function toFlightFeatures(rows: (typeof flightFeatures.$inferSelect)[]): Map<string, FlightFeature> {
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
