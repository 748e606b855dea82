import { TtlCache } from "../lib/ttlCache";
import type { FlightPlanRow } from "../store/flights";

/**
 * Plans this isolate has just written or read, so that a briefing or a submit can start its airspace
 * reads from the plan while the plan itself is read again, instead of after: one round trip to D1
 * less. Only ever a guess: every route confirms the plan with a fresh read and, when the plan changed
 * meanwhile (another isolate's PATCH), decides again from the fresh row. So no staleness reaches an
 * answer; the bound and the time only limit memory.
 */
const KEPT_MS = 10 * 60_000;
const MAX_KEPT = 1_000;
const recent = new TtlCache<FlightPlanRow>(MAX_KEPT);

const keyOf = (accountId: string, planId: string) => `${accountId} ${planId}`;

export function rememberPlan(plan: FlightPlanRow): void {
  recent.set(keyOf(plan.accountId, plan.id), plan, KEPT_MS);
}

/** The account's plan as this isolate last saw it, if it did lately. */
export function recentPlan(accountId: string, planId: string): FlightPlanRow | undefined {
  return recent.get(keyOf(accountId, planId));
}

/** Whether two rows of one plan hold the same values (a decision made from one holds for the other). */
export function samePlan(a: FlightPlanRow, b: FlightPlanRow): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
