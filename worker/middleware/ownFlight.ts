import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { forbidden, notFound } from "../lib/errors";
import { type FlightPlanRow, type FlightRow, findFlight, findPlan } from "../store/flights";
import { recentPlan, rememberPlan } from "./recentPlans";

/**
 * Who may reach which flight or plan, decided once for every route that names one (after
 * `requireToken` or `optionalToken`). Records of other accounts are always 404. The record is set
 * on the context (`c.var.flight`, `c.var.plan`) before the request is validated, so a stranger
 * learns nothing from the body's errors.
 */

type WithFlight = { Bindings: AppEnv["Bindings"]; Variables: AppEnv["Variables"] & { flight: FlightRow } };
type WithPlan = { Bindings: AppEnv["Bindings"]; Variables: AppEnv["Variables"] & { plan: FlightPlanRow } };

/** A record id as the routes declare it (`recordId`); anything else is left to their validation (400). */
const MAX_ID = 64;

/** `flight_id` from the path, or from the query where the route has no path parameter (archive). */
function idOf(c: Context, name: string): string | undefined {
  const id = c.req.param(name) ?? c.req.query(name);
  return id !== undefined && id.length >= 1 && id.length <= MAX_ID ? id : undefined;
}

/**
 * How a flight may be reached:
 * - `change`: the pilot's own; 403 when it is another pilot's (end, delete, start-comm, end-comm).
 * - `read`: the pilot's own or a public one; 404 otherwise (the flight itself).
 * - `pilot`: like `read`, then 403 unless it is the pilot's own (its telemetry, its plan).
 */
export type FlightAccess = "change" | "read" | "pilot";

function flightAccess(access: FlightAccess, forbiddenMessage = "This flight belongs to another pilot") {
  return createMiddleware<WithFlight>(async (c, next) => {
    const id = idOf(c, "flight_id");
    if (id === undefined) return next();
    const flight = await findFlight(c.var.db, c.var.account.id, id);
    const own = flight !== null && flight.pilotId === c.var.pilotId;
    if (!flight || (access !== "change" && !own && !flight.public)) throw notFound("Flight");
    if (access !== "read" && !own) throw forbidden(forbiddenMessage);
    c.set("flight", flight);
    await next();
  });
}

/** The pilot's own flight, to change it. */
export const ownFlight = flightAccess("change");
/** A flight the caller may read: the own, or a public one of the account. */
export const readableFlight = flightAccess("read");
/** A readable flight whose `what` only its pilot may read: 403 for another pilot's public flight. */
export const pilotsFlight = (what: string) =>
  flightAccess("pilot", `Only the flight's pilot may read ${what}`);

/** The pilot's own plan: 404 when the account has no such plan, 403 when it is another pilot's. */
export const ownPlan = createMiddleware<WithPlan>(async (c, next) => {
  const id = idOf(c, "plan_id");
  if (id === undefined) return next();
  c.set("plan", await pilotsPlan(c.var, id));
  await next();
});

async function pilotsPlan(vars: AppEnv["Variables"], id: string): Promise<FlightPlanRow> {
  const plan = await findPlan(vars.db, vars.account.id, id);
  if (!plan) throw notFound("Flight plan");
  if (plan.pilotId !== vars.pilotId) throw forbidden("This flight plan belongs to another pilot");
  rememberPlan(plan);
  return plan;
}

/**
 * The pilot's plan as this isolate last saw it (`guess`, middleware/recentPlans.ts), and its fresh
 * read under way (`confirmed`: 404 or 403 as ownPlan): a route starts its own reads from the guess
 * while the plan is read, and answers from `confirmed` (briefing, submit).
 */
export interface PlanAhead {
  guess: FlightPlanRow | undefined;
  confirmed: Promise<FlightPlanRow>;
}

type WithPlanAhead = {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & { planAhead: PlanAhead };
};

export const ownPlanAhead = createMiddleware<WithPlanAhead>(async (c, next) => {
  const id = idOf(c, "plan_id");
  if (id === undefined) return next();
  const confirmed = pilotsPlan(c.var, id);
  // Handled here too: a route that fails first (its body) leaves no unhandled rejection behind.
  confirmed.catch(() => {});
  const guess = recentPlan(c.var.account.id, id);
  c.set("planAhead", { guess: guess?.pilotId === c.var.pilotId ? guess : undefined, confirmed });
  await next();
});
