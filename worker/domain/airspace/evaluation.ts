import { kilometres, MAX_TAKEOFF_DISTANCE_M } from "../flightSanity";
import type { Problem } from "../problem";
import type { AreaAdvisory } from "./advisories";
import { type AuthorityDecision, featureVerdict, worstStatus } from "./featureVerdicts";
import type { Authorization } from "./laanc";
import {
  type Condition,
  type FlightFeature,
  featuresOf,
  featureView,
  LAANC_ALTITUDE_FEATURE,
  LAANC_AUTHORITY,
  type RuleStatus,
  type Ruleset,
  ruleStatus,
  rulesetHeader,
  testFeature,
  triggerMatches,
} from "./rules";
import {
  type Failure,
  type ValidationState,
  type WireAuthorizationStatus,
  type WireValidationStatus,
  wireAuthorizationMessage,
  wireAuthorizationStatus,
  wireValidationStatus,
} from "./sdkEnums";
import type { AuthorizationStatus } from "./types";

/**
 * Rule evaluation (the SDKs' `POST /rules/v1/evaluation`, `GET /rules/v1/{plan}/evaluation`, and the
 * rules, validations and authorizations of a plan briefing): one function for all of them.
 */

export interface PilotContact {
  phone: string | null;
  phoneVerified: boolean;
  faaRegistrationNumber: unknown;
}

export interface EvaluationInput {
  rulesets: Ruleset[];
  /** Every flight feature the rules may name, by name. */
  definitions: Map<string, FlightFeature>;
  /** The advisories over the flight area under these rulesets (they say which triggers fired). */
  advisories: AreaAdvisory[];
  /** The flight features the client gave. */
  given: Record<string, unknown>;
  /** Features the service worked out itself (a plan's altitude, night); they win over `given`. */
  calculated: Record<string, unknown>;
  /** What LAANC decides (spec 2.6 states); null when it cannot decide without the flight's altitude. */
  authorizations: Authorization[] | null;
  /** Whether the plan was submitted, i.e. the authorizations were really requested. */
  submitted: boolean;
  /** The pilot whose details the authority checks; null when no pilot is known (an area, not a plan). */
  pilot: PilotContact | null;
  /** How far the plan's take-off point lies outside its area (m); absent for an area. */
  takeoffDistanceM?: number;
}

/** CONTRACT §11: the feature with the rule's verdict on the plan's answer (`code`: why), and the answer. */
export interface EvaluatedFeature extends Omit<ReturnType<typeof featureView>, "code"> {
  status: RuleStatus;
  code: string;
  value: unknown;
}

export interface EvaluatedRule {
  id: number;
  short_text: string;
  description: string;
  status: RuleStatus;
  display_order: number;
  flight_features: EvaluatedFeature[];
}

export interface Validation {
  status: WireValidationStatus;
  data: string;
  message: string;
  /** The Swift SDK requires it: what is validated. */
  description: string;
  feature: { code: string; description: string };
  authority: { id: string; name: string };
}

export interface WireAuthorization {
  status: WireAuthorizationStatus;
  authority: { id: string; name: string };
  message: string;
  description: string;
}

export interface Evaluation {
  rulesets: (ReturnType<typeof rulesetHeader> & { rules: EvaluatedRule[] })[];
  validations: Validation[];
  authorizations: WireAuthorization[];
  failures: Failure[];
}

export function evaluate(input: EvaluationInput): Evaluation {
  const features = { ...input.given, ...input.calculated };
  const decided: Record<string, AuthorizationStatus[]> = {};
  for (const a of input.authorizations ?? [])
    decided[a.authority.id] = [...(decided[a.authority.id] ?? []), a.status];
  const undecided = new Set<string>(input.authorizations === null ? [LAANC_AUTHORITY.id] : []);
  const inPlay = new Set(Object.keys(decided));

  const rulesets = input.rulesets.map((ruleset) => ({
    ...rulesetHeader(ruleset),
    rules: ruleset.rules.map((rule, index): EvaluatedRule => {
      const triggeredColors = rule.triggers.flatMap((trigger) =>
        input.advisories.filter((a) => triggerMatches(trigger, a)).map(() => trigger.color),
      );
      const applies = rule.triggers.length === 0 || triggeredColors.length > 0;
      const authority = authorityOf(rule.condition);
      if (applies && authority && undecided.has(authority)) inPlay.add(authority);
      const decision: AuthorityDecision = {
        statuses: authority && undecided.has(authority) ? null : (decided[authority ?? ""] ?? []),
        submitted: input.submitted,
      };
      const names = featuresOf(rule);
      const verdicts = names.map((name) => featureVerdict(rule, name, features, applies, decision));
      const status = authority
        ? applies
          ? worstStatus(verdicts.map((v) => v.status))
          : "not_conflicting"
        : ruleStatus(rule, { features, triggeredColors });
      return {
        id: rule.id,
        short_text: rule.short_text,
        description: rule.description,
        status,
        display_order: rule.display_order ?? index + 1,
        flight_features: names.flatMap((name, i): EvaluatedFeature[] => {
          const definition = input.definitions.get(name);
          if (!definition) return [];
          return [
            {
              ...featureView(definition, name in input.calculated),
              ...verdicts[i]!,
              value: features[name] ?? null,
            },
          ];
        }),
      };
    }),
  }));

  const validations = [
    ...(inPlay.has(LAANC_AUTHORITY.id) ? laancValidations(input.pilot) : []),
    ...takeoffValidations(input.takeoffDistanceM ?? 0),
  ];
  // Undecided but needed: say so as `pending`, never as no authorization (which some clients,
  // QGroundControl among them, take for "nothing to authorize").
  const undecidedNeeded = [...undecided].filter((id) => inPlay.has(id));
  return {
    rulesets,
    validations,
    authorizations: [
      ...wireAuthorizations(input.authorizations ?? [], input.submitted),
      ...undecidedNeeded.map(
        (): WireAuthorization => ({
          status: "pending",
          authority: { id: LAANC_AUTHORITY.id, name: LAANC_AUTHORITY.name },
          message: `Give ${LAANC_ALTITUDE_FEATURE} in flight_features to learn what LAANC would decide`,
          description: "LAANC authorization for the controlled airspace over the area",
        }),
      ),
    ],
    // Validation is the one part that can be left undone: an area has no pilot to check.
    failures: input.pilot === null && inPlay.has(LAANC_AUTHORITY.id) ? ["validation"] : [],
  };
}

/** Authorizations in the SDKs' terms (see `wireAuthorizationStatus` for the mapping). */
export function wireAuthorizations(authorizations: Authorization[], submitted: boolean): WireAuthorization[] {
  return authorizations.map((a) => ({
    status: wireAuthorizationStatus(a.status, submitted),
    authority: { id: a.authority.id, name: a.authority.name },
    message: wireAuthorizationMessage(a.status, a.message),
    description: a.description,
  }));
}

function authorityOf(condition: Condition | null): string | undefined {
  return condition && "authorization" in condition ? condition.authorization : undefined;
}

/** FAA registration numbers: FA followed by eight letters and digits. */
const FAA_REGISTRATION = /^FA[0-9A-Z]{8}$/i;

/** What LAANC needs of the pilot: a phone the FAA can call, and the aircraft's registration. */
function laancValidations(pilot: PilotContact | null): Validation[] {
  const authority = { id: LAANC_AUTHORITY.id, name: LAANC_AUTHORITY.name };
  const check =
    (feature: Validation["feature"]) =>
    (state: ValidationState, data: string, message: string): Validation => ({
      status: wireValidationStatus(state),
      data,
      message,
      description: feature.description,
      feature,
      authority,
    });
  const phone = check({
    code: "phone_number",
    description: "A verified phone number where the FAA can reach the pilot",
  });
  const registration = check({
    code: "faa_registration_number",
    description: "The FAA registration number (pilot user_metadata.faa_registration_number)",
  });
  if (pilot === null) {
    const unchecked = "Checked against the pilot's profile once the flight is planned (briefing)";
    return [phone("unchecked", "", unchecked), registration("unchecked", "", unchecked)];
  }
  // Only the last digits: the plan-id evaluation is readable with the account's API key alone.
  const lastDigits = pilot.phone === null ? "" : `…${pilot.phone.slice(-4)}`;
  const number = typeof pilot.faaRegistrationNumber === "string" ? pilot.faaRegistrationNumber.trim() : "";
  return [
    pilot.phone === null
      ? phone("missing", "", "Missing: add a phone number to the pilot profile and verify it")
      : pilot.phoneVerified
        ? phone("valid", lastDigits, "Verified")
        : phone("unverified", lastDigits, "Not verified: verify it with send_token and verify_token"),
    number === ""
      ? registration("missing", "", "Missing: add user_metadata.faa_registration_number to the pilot profile")
      : FAA_REGISTRATION.test(number)
        ? registration("valid", number, "Present")
        : registration(
            "malformed",
            number,
            "Malformed: an FAA registration number is FA followed by 8 letters or digits",
          ),
  ];
}

/**
 * A take-off point far from the area (CONTRACT §4) is accepted, since legacy apps send the device's
 * own position, but reported so the pilot checks it before flying.
 */
function takeoffValidations(distanceM: number): Validation[] {
  if (distanceM <= MAX_TAKEOFF_DISTANCE_M) return [];
  const feature = {
    code: "takeoff_position",
    description: `The take-off point lies within ${MAX_TAKEOFF_DISTANCE_M / 1000} km of the flight area`,
  };
  const km = kilometres(distanceM);
  return [
    {
      status: "invalid",
      data: `${km} km`,
      message: `The take-off point lies ${km} km outside the flight area: check takeoff_latitude and takeoff_longitude (some apps send the device's own position)`,
      description: feature.description,
      feature,
      authority: { id: "windsock", name: "Windsock plan checks" },
    },
  ];
}

/**
 * Flight features a client sent, checked against their definitions: a float must be a number (or a
 * numeric string, as form-minded clients send), a bool a boolean (or "true"/"false"). Names no rule
 * knows are kept and ignored.
 */
export function flightFeatureProblems(
  given: Record<string, unknown>,
  definitions: Map<string, FlightFeature>,
  field = "flight_features",
): Problem[] {
  const problems: Problem[] = [];
  for (const [name, value] of Object.entries(given)) {
    const definition = definitions.get(name);
    if (!definition || value === null) continue;
    if (
      definition.input_type === "float" &&
      testFeature({ feature: name, op: "gte", value: -Infinity }, given) === undefined
    )
      problems.push({ field: `${field}.${name}`, message: "must be a number" });
    if (
      definition.input_type === "bool" &&
      testFeature({ feature: name, op: "eq", value: true }, given) === undefined
    )
      problems.push({ field: `${field}.${name}`, message: "must be true or false" });
  }
  return problems;
}

/**
 * The flight features a plan's rules ask for, each once (`GET /flight/v2/plan/{id}/features`, the
 * Android SDK's FlightService.getFlightFeatures): its worst status over the rules that ask for it.
 */
export function featuresOfEvaluation(evaluation: Pick<Evaluation, "rulesets">): EvaluatedFeature[] {
  const byName = new Map<string, EvaluatedFeature>();
  for (const ruleset of evaluation.rulesets)
    for (const rule of ruleset.rules)
      for (const feature of rule.flight_features) {
        const seen = byName.get(feature.flight_feature);
        if (!seen) byName.set(feature.flight_feature, feature);
        else if (worstStatus([seen.status, feature.status]) !== seen.status)
          byName.set(feature.flight_feature, { ...seen, status: feature.status, code: feature.code });
      }
  return [...byName.values()];
}
