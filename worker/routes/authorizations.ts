import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { wireAuthorizations } from "../domain/airspace/evaluation";
import type { Authorization as ServiceAuthorization } from "../domain/airspace/laanc";
import { badRequest, forbidden, notFound } from "../lib/errors";
import { success } from "../lib/jsend";
import { responses, securityWithToken } from "../lib/openapi";
import { requireToken } from "../middleware/token";
import { PlanAuthorizations } from "../schemas/airspace";
import { authorizationsForPlan } from "../services/airspace";
import { plansWithAuthorizations } from "../store/rulesets";

/** The Swift and Kotlin SDKs' batch read of authorizations (sdk-routes.md, Flight plans). */

/** Each unsubmitted plan costs an airspace query: a page of plans, not a whole history. */
const MAX_PLANS = 25;

const batchAuthorizations = createRoute({
  method: "get",
  path: "/flight/v2/plan/batch/authorizations",
  tags: ["Flight plans"],
  summary:
    "Authorizations of several of the pilot's own plans: those stored with the flight once submitted, else what submitting would bring",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: {
    query: z.object({
      flight_plan_ids: z.string().openapi({
        description: `Comma-separated plan ids (at most ${MAX_PLANS})`,
        example: "flight_plan|abc",
      }),
    }),
  },
  responses: responses(z.array(PlanAuthorizations), "One entry per plan, in the order asked"),
});

function planIdsFrom(input: string): string[] {
  const ids = [
    ...new Set(
      input
        .split(",")
        .map((id) => id.trim())
        .filter((id) => id !== ""),
    ),
  ];
  if (ids.length === 0) throw badRequest("flight_plan_ids", "give at least one flight plan id");
  if (ids.length > MAX_PLANS) throw badRequest("flight_plan_ids", `give at most ${MAX_PLANS} ids`);
  return ids;
}

export const authorizationRoutes = createRouter().openapi(batchAuthorizations, async (c) => {
  const ids = planIdsFrom(c.req.valid("query").flight_plan_ids);
  const rows = await plansWithAuthorizations(c.var.db, c.var.account.id, ids);
  const byId = new Map(rows.map((r) => [r.plan.id, r]));
  // As for one plan: unknown (or another account's) is 404, another pilot's is 403.
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0) throw notFound(`Flight plan ${missing.join(", ")}`);
  if (rows.some((r) => r.plan.pilotId !== c.var.pilotId))
    throw forbidden("A flight plan among flight_plan_ids belongs to another pilot");
  const now = Date.now();
  const answers = await Promise.all(
    ids.map(async (id) => {
      const { plan, flightAuthorizations } = byId.get(id)!;
      const submitted = flightAuthorizations !== null;
      const authorizations = submitted
        ? (flightAuthorizations as ServiceAuthorization[])
        : await authorizationsForPlan(c.var.db, plan, now);
      return { flight_plan_id: plan.id, authorizations: wireAuthorizations(authorizations, submitted) };
    }),
  );
  return success(c, answers);
});
