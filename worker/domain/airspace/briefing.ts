import { isoTime } from "../../lib/time";
import { DEFAULT_DIALECT, type SdkDialect } from "../sdkDialect";
import type { AreaAdvisory } from "./advisories";
import type { Color } from "./colors";
import { type EvaluatedFeature, type EvaluationInput, evaluate } from "./evaluation";
import { worstStatus } from "./featureVerdicts";

/**
 * The plan briefing (CONTRACT §4, sdk-routes.md): the evaluation of the plan, with its airspace. The
 * color and advisories go out twice: at the top level (Kotlin, Android, CONTRACT) and in `airspace`
 * (the only place the C++ and Swift SDKs read them).
 */

export interface BriefingInput extends EvaluationInput {
  planId: string;
  color: Color;
  advisories: AreaAdvisory[];
  now: number;
}

export function briefing(input: BriefingInput, dialect: SdkDialect = DEFAULT_DIALECT) {
  const evaluation = evaluate(input, dialect);
  return {
    flight_plan_id: input.planId,
    created_at: isoTime(input.now),
    color: input.color,
    advisories: input.advisories,
    airspace: { color: input.color, advisories: input.advisories },
    // The Swift SDK reads the features the flight needs from the top level (AirMapFlightBriefing.flightFeatures).
    flight_features: briefingFeatures(evaluation.rulesets),
    ...evaluation,
  };
}

/** Each flight feature the rules name, once, with its worst status among them. */
export function briefingFeatures(rulesets: { rules: { flight_features: EvaluatedFeature[] }[] }[]) {
  const byName = new Map<string, EvaluatedFeature>();
  for (const ruleset of rulesets)
    for (const rule of ruleset.rules)
      for (const feature of rule.flight_features) {
        const seen = byName.get(feature.flight_feature);
        if (!seen || worstStatus([seen.status, feature.status]) !== seen.status)
          byName.set(feature.flight_feature, feature);
      }
  return [...byName.values()];
}
