import { isoTime } from "../../lib/time";
import type { AreaAdvisory } from "./advisories";
import type { Color } from "./colors";
import { type EvaluationInput, evaluate } from "./evaluation";

/**
 * The plan briefing (CONTRACT §4, sdk-routes.md): the evaluation of the plan, with its airspace. The
 * color and advisories go out twice: at the top level (Kotlin, CONTRACT) and in `airspace` (the only
 * place the C++ SDK reads them).
 */

export interface BriefingInput extends EvaluationInput {
  planId: string;
  color: Color;
  advisories: AreaAdvisory[];
  now: number;
}

export function briefing(input: BriefingInput) {
  const evaluation = evaluate(input);
  return {
    flight_plan_id: input.planId,
    created_at: isoTime(input.now),
    color: input.color,
    advisories: input.advisories,
    airspace: { color: input.color, advisories: input.advisories },
    ...evaluation,
  };
}
