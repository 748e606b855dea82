import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { success } from "../lib/jsend";
import { recordId, responses, securityWithToken } from "../lib/openapi";
import { ownPlan, ownPlanAhead } from "../middleware/ownFlight";
import { samePlan } from "../middleware/recentPlans";
import { requireToken } from "../middleware/token";
import { EvaluatedRule } from "../schemas/airspace";
import { Briefing } from "../schemas/flights";
import { planBriefing, planFeatures } from "../services/evaluation";

const getBriefing = createRoute({
  method: "get",
  path: "/flight/v2/plan/{plan_id}/briefing",
  tags: ["Flight plans"],
  summary:
    "What the plan meets: advisories and their color, each rule's status from the plan's flight features, validations and authorizations",
  security: securityWithToken,
  middleware: [requireToken, ownPlanAhead] as const,
  request: { params: z.object({ plan_id: recordId("plan_id") }) },
  responses: responses(Briefing, "The briefing"),
});

const PlanFeatures = EvaluatedRule.shape.flight_features;

const getFeatures = createRoute({
  method: "get",
  path: "/flight/v2/plan/{plan_id}/features",
  tags: ["Flight plans"],
  summary:
    "The flight features the plan's rules ask for, each once with its status for the plan (the Android SDK's FlightService.getFlightFeatures)",
  security: securityWithToken,
  middleware: [requireToken, ownPlan] as const,
  request: { params: z.object({ plan_id: recordId("plan_id") }) },
  responses: responses(PlanFeatures, "The features"),
});

export const briefingRoutes = createRouter()
  .openapi(getBriefing, async (c) => {
    const { guess, confirmed } = c.var.planAhead;
    const now = Date.now();
    // Briefed from the plan this isolate last saw while the plan is read; again if it changed since.
    const [plan, early] = await Promise.all([
      confirmed,
      guess ? planBriefing(c.var.db, guess, now, c.var.dialect).catch(() => undefined) : undefined,
    ]);
    return success(
      c,
      early && samePlan(guess!, plan) ? early : await planBriefing(c.var.db, plan, now, c.var.dialect),
    );
  })
  // A feature's value is what the plan gave (a number, text or flag), or null.
  .openapi(getFeatures, async (c) =>
    success(c, (await planFeatures(c.var.db, c.var.plan)) as z.infer<typeof PlanFeatures>),
  );
