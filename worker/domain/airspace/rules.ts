import { type Color, colorRank } from "./colors";
import {
  type InputType,
  type MeasurementType,
  type MeasurementUnit,
  type RuleStatus,
  wireMeasurementType,
  wireMeasurementUnit,
  wireRegion,
} from "./sdkEnums";

export type { RuleStatus } from "./sdkEnums";

/** Rulesets, rules and flight features (spec 2.4) and how rules are checked against a flight. */

export type SelectionType = "required" | "optional" | "pick1";

export interface FlightFeature {
  flight_feature: string;
  description: string;
  input_type: InputType;
  measurement_type: string | null;
  measurement_unit: string | null;
}

/** A property test on an airspace feature: every key must equal the value (or one of the values). */
export type PropertyMatch = Record<string, string | number | boolean | (string | number | boolean)[]>;

/** An airspace type that raises an advisory under a rule, and the color it gets. */
export interface Trigger {
  type: string;
  when?: PropertyMatch;
  color: Color;
}

export type Comparison = "lt" | "lte" | "gt" | "gte" | "eq";

export interface FeatureTest {
  feature: string;
  op: Comparison;
  value: number | boolean;
}

/**
 * What satisfies a rule: a flight feature's value (checked only when `when` holds), or every
 * authorization the flight needs from one authority having been accepted.
 */
export type Condition = (FeatureTest & { when?: FeatureTest }) | AuthorizationCondition;

/** `further_coordination`: above the automatic ceiling the request goes to the FAA instead of failing. */
export interface AuthorizationCondition {
  authorization: string;
  further_coordination?: boolean;
}

export interface Rule {
  id: number;
  short_text: string;
  description: string;
  display_order: number | null;
  flight_features: string[];
  condition: Condition | null;
  triggers: Trigger[];
}

export interface Ruleset {
  id: string;
  name: string;
  short_name: string;
  description: string;
  selection_type: SelectionType;
  default: boolean;
  jurisdiction: { id: number; name: string; region: string };
  airspace_types: string[];
  rules: Rule[];
}

/** The type an airspace ruleset lists to say its controlled-airspace rules go through LAANC. */
export const LAANC_TYPE = "laanc";
export const LAANC_AUTHORITY = { id: "faa-laanc", name: "FAA LAANC" } as const;

/** The airspace types a ruleset covers: what its rules trigger on, plus `laanc` when it uses LAANC. */
export function airspaceTypesOf(rules: Rule[]): string[] {
  const types = new Set<string>();
  for (const rule of rules) {
    for (const trigger of rule.triggers) types.add(trigger.type);
    if (
      rule.condition &&
      "authorization" in rule.condition &&
      rule.condition.authorization === LAANC_AUTHORITY.id
    )
      types.add(LAANC_TYPE);
  }
  return [...types].sort();
}

export interface AdvisedFeature {
  type: string;
  properties: Record<string, unknown>;
}

/** The rule an airspace feature falls under in a ruleset, and its color there; undefined if none. */
export function adviseUnder(
  ruleset: Pick<Ruleset, "rules">,
  feature: AdvisedFeature,
): { ruleId: number; color: Color } | undefined {
  let best: { ruleId: number; color: Color } | undefined;
  for (const rule of ruleset.rules) {
    for (const trigger of rule.triggers) {
      if (!triggerMatches(trigger, feature)) continue;
      if (!best || colorRank(trigger.color) > colorRank(best.color))
        best = { ruleId: rule.id, color: trigger.color };
    }
  }
  return best;
}

export function triggerMatches(trigger: Trigger, feature: AdvisedFeature): boolean {
  if (trigger.type !== feature.type) return false;
  for (const [key, expected] of Object.entries(trigger.when ?? {})) {
    const actual = feature.properties[key];
    const allowed = Array.isArray(expected) ? expected : [expected];
    if (!allowed.some((value) => value === actual)) return false;
  }
  return true;
}

export interface RuleContext {
  /** The flight's features by name (plan fields such as its altitude included). */
  features: Record<string, unknown>;
  /** The colors of the flight's advisories that this rule raised. */
  triggeredColors: Color[];
}

/**
 * CONTRACT §4 briefing statuses of the rules that test flight features or only raise advisories (an
 * authorization rule's status is the worst of its features' verdicts, featureVerdicts.ts). A rule
 * that triggers on airspace applies only when the flight meets such airspace; then its condition
 * decides, or without one a red or orange advisory conflicts and a yellow one informs. A rule with
 * only a condition is checked against the flight's features.
 */
export function ruleStatus(rule: Rule, context: RuleContext): RuleStatus {
  if (rule.triggers.length > 0) {
    if (context.triggeredColors.length === 0) return "not_conflicting";
    if (!rule.condition) {
      const restrictive = context.triggeredColors.some((c) => colorRank(c) >= colorRank("orange"));
      return restrictive ? "conflicting" : "informational";
    }
  }
  if (!rule.condition || "authorization" in rule.condition) return "informational";
  const { when, ...test } = rule.condition;
  if (when) {
    const applies = testFeature(when, context.features);
    if (applies === undefined) return "missing_info";
    if (!applies) return "not_conflicting";
  }
  const satisfied = testFeature(test, context.features);
  if (satisfied === undefined) return "missing_info";
  return satisfied ? "not_conflicting" : "conflicting";
}

/** Whether the flight's value passes the test; undefined when the flight does not say. */
export function testFeature(test: FeatureTest, features: Record<string, unknown>): boolean | undefined {
  const raw = features[test.feature];
  const value = typeof test.value === "boolean" ? asBoolean(raw) : asNumber(raw);
  if (value === undefined) return undefined;
  switch (test.op) {
    case "eq":
      return value === test.value;
    case "lt":
      return value < test.value;
    case "lte":
      return value <= test.value;
    case "gt":
      return value > test.value;
    case "gte":
      return value >= test.value;
  }
}

/** A feature's value as a number (numeric strings too, as form-minded clients send); undefined when absent. */
export function numericFeature(features: Record<string, unknown>, name: string): number | undefined {
  return asNumber(features[name]);
}

function asBoolean(raw: unknown): boolean | undefined {
  if (typeof raw === "boolean") return raw;
  if (raw === "true" || raw === 1) return true;
  if (raw === "false" || raw === 0) return false;
  return undefined;
}

function asNumber(raw: unknown): number | undefined {
  const value = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * The rulesets a client selects without asking (spec 4.4): every required one, the default pick1 of
 * each jurisdiction (else its first), and the optional ones marked default.
 */
export function defaultSelection(rulesets: Ruleset[]): Ruleset[] {
  const pickedJurisdictions = new Set<number>();
  const pick1 = rulesets.filter((r) => r.selection_type === "pick1");
  const chosenPick1 = new Set<string>();
  for (const ruleset of [...pick1.filter((r) => r.default), ...pick1]) {
    if (pickedJurisdictions.has(ruleset.jurisdiction.id)) continue;
    pickedJurisdictions.add(ruleset.jurisdiction.id);
    chosenPick1.add(ruleset.id);
  }
  return rulesets.filter(
    (r) =>
      r.selection_type === "required" ||
      chosenPick1.has(r.id) ||
      (r.selection_type === "optional" && r.default),
  );
}

/**
 * Flight features the service works out itself from a flight plan (its altitudes and extent, and
 * whether its times fall at night where it flies): `is_calculated` in the rules listings.
 */
export const PLAN_CALCULATED_FEATURES: ReadonlySet<string> = new Set([
  "flight_max_altitude_agl",
  "flight_min_altitude_agl",
  "max_linear_extent",
  "flight_at_night",
]);

/** A flight feature as the SDKs decode it (C++ `RuleSet::Feature`, Kotlin `FlightFeature`). */
export interface FlightFeatureView {
  /** Stable across imports: derived from the feature's name (the SDKs read a 32-bit integer). */
  id: number;
  /** What a client sends back as the key of `flight_features`. */
  code: string;
  flight_feature: string;
  description: string;
  input_type: InputType;
  measurement_type: MeasurementType | null;
  measurement_unit: MeasurementUnit | null;
  is_calculated: boolean;
}

export function featureView(definition: FlightFeature, isCalculated: boolean): FlightFeatureView {
  return {
    id: featureId(definition.flight_feature),
    code: definition.flight_feature,
    flight_feature: definition.flight_feature,
    description: definition.description,
    input_type: definition.input_type,
    measurement_type: wireMeasurementType(definition.measurement_type),
    measurement_unit: wireMeasurementUnit(definition.measurement_unit),
    is_calculated: isCalculated,
  };
}

/** The flight feature LAANC decides by: the flight's highest altitude above ground. */
export const LAANC_ALTITUDE_FEATURE = "flight_max_altitude_agl";

/**
 * The features a rule needs to be evaluated: those it lists, and for a LAANC rule the altitude the
 * request is decided by, so a client knows to ask for it.
 */
export function featuresOf(rule: Rule): string[] {
  const laanc =
    rule.condition !== null &&
    "authorization" in rule.condition &&
    rule.condition.authorization === LAANC_AUTHORITY.id;
  return laanc && !rule.flight_features.includes(LAANC_ALTITUDE_FEATURE)
    ? [...rule.flight_features, LAANC_ALTITUDE_FEATURE]
    : rule.flight_features;
}

/** FNV-1a of the name, folded into 1..2^31−1: the same feature has the same id in every rule. */
export function featureId(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return ((hash >>> 0) % 0x7ffffffe) + 1;
}

/** The ruleset's own fields, as every SDK decodes them. */
export function rulesetHeader(ruleset: Ruleset) {
  return {
    id: ruleset.id,
    name: ruleset.name,
    short_name: ruleset.short_name,
    description: ruleset.description,
    selection_type: ruleset.selection_type,
    default: ruleset.default,
    jurisdiction: {
      id: ruleset.jurisdiction.id,
      name: ruleset.jurisdiction.name,
      region: wireRegion(ruleset.jurisdiction.region),
    },
    airspace_types: ruleset.airspace_types,
  };
}

/**
 * spec 2.4 as clients read it: the rules' flight features spelled out (what a client may ask the
 * pilot), the evaluation details left out. Rules carry no `status` here: nothing was evaluated.
 */
export function rulesetView(ruleset: Ruleset, definitions: Map<string, FlightFeature>) {
  const describe = (names: string[]) =>
    names.flatMap((name) => {
      const definition = definitions.get(name);
      return definition ? [featureView(definition, PLAN_CALCULATED_FEATURES.has(name))] : [];
    });
  const featureNames = [...new Set(ruleset.rules.flatMap(featuresOf))];
  return {
    ...rulesetHeader(ruleset),
    flight_features: describe(featureNames),
    rules: ruleset.rules.map((rule, index) => ({
      id: rule.id,
      short_text: rule.short_text,
      description: rule.description,
      display_order: rule.display_order ?? index + 1,
      flight_features: describe(featuresOf(rule)),
    })),
  };
}
