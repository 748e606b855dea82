import { COLORS } from "../../worker/domain/airspace/colors";
import {
  airspaceTypesOf,
  type FlightFeature,
  type Rule,
  type Ruleset,
} from "../../worker/domain/airspace/rules";
import { AIRSPACE_TYPES } from "../../worker/domain/airspace/types";
import type { Statement } from "../lib/sql";
import { insertStatements } from "./dataset";

export interface RulesetSource extends Omit<Ruleset, "jurisdiction" | "airspace_types"> {
  jurisdiction_id: number;
}

export interface RulesetsFile {
  flight_features: FlightFeature[];
  rulesets: RulesetSource[];
}

/** The rulesets file's content, checked: throws naming every problem. */
export function checkedRulesets(data: RulesetsFile): RulesetsFile {
  const problems = rulesetProblems(data);
  if (problems.length > 0) throw new Error(`rulesets: ${problems.join("; ")}`);
  return data;
}

/** What would make the rulesets file unusable: ids, references, types and colors that do not hold. */
export function rulesetProblems(data: RulesetsFile): string[] {
  const problems: string[] = [];
  const features = new Set(data.flight_features.map((f) => f.flight_feature));
  const rulesetIds = new Set<string>();
  const ruleIds = new Set<number>();
  for (const ruleset of data.rulesets) {
    if (!/^[a-z]{3}_[a-z0-9_]+$/.test(ruleset.id))
      problems.push(`ruleset id ${ruleset.id} is not <country>_<name>`);
    if (rulesetIds.has(ruleset.id)) problems.push(`ruleset ${ruleset.id} appears twice`);
    rulesetIds.add(ruleset.id);
    if (!["required", "optional", "pick1"].includes(ruleset.selection_type))
      problems.push(`${ruleset.id}: selection_type ${ruleset.selection_type}`);
    for (const rule of ruleset.rules) {
      if (ruleIds.has(rule.id)) problems.push(`rule ${rule.id} appears twice`);
      ruleIds.add(rule.id);
      const named = [...rule.flight_features];
      if (rule.condition && "feature" in rule.condition) {
        named.push(rule.condition.feature);
        if (rule.condition.when) named.push(rule.condition.when.feature);
      }
      for (const name of named)
        if (!features.has(name)) problems.push(`rule ${rule.id}: unknown flight feature ${name}`);
      for (const trigger of rule.triggers) {
        if (!AIRSPACE_TYPES.includes(trigger.type))
          problems.push(`rule ${rule.id}: unknown airspace type ${trigger.type}`);
        if (!COLORS.includes(trigger.color)) problems.push(`rule ${rule.id}: unknown color ${trigger.color}`);
      }
    }
  }
  return problems;
}

/** Replaces the rulesets, rules and flight features with those of the file. */
export function rulesetStatements(data: RulesetsFile): Statement[] {
  const rules: (Rule & { rulesetId: string })[] = data.rulesets.flatMap((r) =>
    r.rules.map((rule, order) => ({
      ...rule,
      display_order: rule.display_order ?? order + 1,
      rulesetId: r.id,
    })),
  );
  return [
    { sql: "DELETE FROM rules" },
    { sql: "DELETE FROM rulesets" },
    { sql: "DELETE FROM flight_features" },
    ...insertStatements(
      "INSERT INTO flight_features (name, description, input_type, measurement_type, measurement_unit)",
      data.flight_features.map((f) => [
        f.flight_feature,
        f.description,
        f.input_type,
        f.measurement_type,
        f.measurement_unit,
      ]),
    ),
    ...insertStatements(
      `INSERT INTO rulesets (id, jurisdiction_id, name, short_name, description, selection_type, is_default,
        airspace_types, display_order)`,
      data.rulesets.map((r, order) => [
        r.id,
        r.jurisdiction_id,
        r.name,
        r.short_name,
        r.description,
        r.selection_type,
        r.default ? 1 : 0,
        JSON.stringify(airspaceTypesOf(r.rules)),
        order,
      ]),
    ),
    ...insertStatements(
      "INSERT INTO rules (id, ruleset_id, short_text, description, display_order, flight_features, condition, triggers)",
      rules.map((rule) => [
        rule.id,
        rule.rulesetId,
        rule.short_text,
        rule.description,
        rule.display_order,
        JSON.stringify(rule.flight_features),
        rule.condition ? JSON.stringify(rule.condition) : null,
        JSON.stringify(rule.triggers),
      ]),
    ),
  ];
}
