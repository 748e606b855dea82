import type { Authorization } from "./laanc";
import { type Comparison, LAANC_ALTITUDE_FEATURE, type Rule, type RuleStatus, testFeature } from "./rules";

/**
 * CONTRACT §11: what a rule makes of each flight feature it asks about. The plan's answer decides
 * the feature's `status`, and `code` says why, in the words the original platform's clients read
 * (the C++ LAANC suites look for `flight_authorized` / `laanc_authorization_required` /
 * `conflicting`). A rule's status is the worst of its features' verdicts.
 */

export interface FeatureVerdict {
  status: RuleStatus;
  code: string;
}

/** The feature a pilot answers to say an authorization for the airspace is already in hand. */
export const AUTHORIZED_FEATURE = "flight_authorized";

/** What an authority decided for the flight, as an authorization rule reads it. */
export interface AuthorityDecision {
  /** null: it could not decide (no altitude to decide by). */
  statuses: Authorization["status"][] | null;
  /** Whether the plan was submitted, i.e. the request was really made. */
  submitted: boolean;
}

const SEVERITY: Record<RuleStatus, number> = {
  informational: 0,
  not_conflicting: 1,
  missing_info: 2,
  conflicting: 3,
};

/** The worst of some verdicts (a rule with none asks nothing of the flight: not conflicting). */
export function worstStatus(statuses: RuleStatus[]): RuleStatus {
  return statuses.reduce<RuleStatus>(
    (worst, s) => (SEVERITY[s] > SEVERITY[worst] ? s : worst),
    statuses.length > 0 ? "informational" : "not_conflicting",
  );
}

const NOT_APPLICABLE: FeatureVerdict = { status: "not_conflicting", code: "not_applicable" };
const MISSING: FeatureVerdict = { status: "missing_info", code: "missing_info" };

/**
 * The verdict on one feature of a rule. `applies`: the rule's airspace is over the flight (always
 * true for a rule without triggers). `decision`: for an authorization rule, what its authority said.
 */
export function featureVerdict(
  rule: Rule,
  name: string,
  features: Record<string, unknown>,
  applies: boolean,
  decision: AuthorityDecision,
): FeatureVerdict {
  if (!applies) return NOT_APPLICABLE;
  const condition = rule.condition;
  if (!condition) return { status: "informational", code: "advisory" };
  if ("authorization" in condition) return authorizationVerdict(name, features, decision);
  const { when, ...test } = condition;
  if (name === test.feature) {
    if (when && testFeature(when, features) === false) return NOT_APPLICABLE;
    const satisfied = testFeature(test, features);
    if (satisfied === undefined) return MISSING;
    return satisfied
      ? { status: "not_conflicting", code: PASSED[test.op] }
      : { status: "conflicting", code: FAILED[test.op] };
  }
  if (when && name === when.feature) {
    const holds = testFeature(when, features);
    if (holds === undefined) return MISSING;
    return { status: "not_conflicting", code: holds ? "condition_applies" : "condition_does_not_apply" };
  }
  return { status: "informational", code: "advisory" };
}

const PASSED: Record<Comparison, string> = {
  lt: "within_limit",
  lte: "within_limit",
  gt: "within_limit",
  gte: "within_limit",
  eq: "as_required",
};
const FAILED: Record<Comparison, string> = {
  lt: "above_limit",
  lte: "above_limit",
  gt: "below_limit",
  gte: "below_limit",
  eq: "not_as_required",
};

/**
 * A rule that needs an authority's authorization (ATC through LAANC): `flight_authorized` says
 * whether the pilot holds one, and the altitude is what LAANC decides by.
 * - an authorization the pilot already holds (`flight_authorized: true`) satisfies the rule;
 * - otherwise, once submitted and accepted: `laanc_authorized`; pending: further coordination;
 * - before that, where LAANC covers the area, the authorization is still to be obtained
 *   (`laanc_authorization_required`, conflicting until the plan is submitted and accepted), and
 *   where it does not, it must be asked for outside LAANC (`manual_authorization_required`).
 */
function authorizationVerdict(
  name: string,
  features: Record<string, unknown>,
  decision: AuthorityDecision,
): FeatureVerdict {
  const held = testFeature({ feature: AUTHORIZED_FEATURE, op: "eq", value: true }, features) === true;
  if (held) return { status: "not_conflicting", code: "authorization_held" };
  const statuses = decision.statuses;
  const covered =
    statuses === null || statuses.some((s) => s === "accepted" || s === "pending" || s === "rejected");
  const accepted = statuses !== null && statuses.length > 0 && statuses.every((s) => s === "accepted");
  const pending = statuses?.includes("pending") === true && !statuses.includes("rejected");
  const rejected = statuses?.includes("rejected") === true;

  if (name === AUTHORIZED_FEATURE) {
    if (!covered) return { status: "conflicting", code: "manual_authorization_required" };
    if (decision.submitted && accepted) return { status: "not_conflicting", code: "laanc_authorized" };
    if (decision.submitted && pending) return { status: "missing_info", code: "laanc_authorization_pending" };
    if (decision.submitted && rejected)
      return { status: "conflicting", code: "laanc_authorization_rejected" };
    return { status: "conflicting", code: "laanc_authorization_required" };
  }
  if (name === LAANC_ALTITUDE_FEATURE) {
    if (features[name] === undefined || statuses === null) return MISSING;
    if (rejected) return { status: "conflicting", code: "above_facility_map_ceiling" };
    if (pending) return { status: "missing_info", code: "further_coordination" };
    if (accepted) return { status: "not_conflicting", code: "within_facility_map_ceiling" };
    return { status: "informational", code: "no_facility_map" };
  }
  return { status: "informational", code: "advisory" };
}
