import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { briefing } from "../domain/airspace/briefing";
import { success } from "../lib/jsend";
import { recordId, responses, securityWithToken } from "../lib/openapi";
import { ownPlan } from "../middleware/ownFlight";
import { requireToken } from "../middleware/token";
import { Briefing } from "../schemas/flights";
import { evaluatePlan } from "../services/evaluation";

const getBriefing = createRoute({
  method: "get",
  path: "/flight/v2/plan/{plan_id}/briefing",
  tags: ["Flight plans"],
  summary:
    "What the plan meets: advisories and their color, each rule's status from the plan's flight features, validations and authorizations",
  security: securityWithToken,
  middleware: [requireToken, ownPlan] as const,
  request: { params: z.object({ plan_id: recordId("plan_id") }) },
  responses: responses(Briefing, "The briefing"),
});

export const briefingRoutes = createRouter().openapi(getBriefing, async (c) => {
  const { plan } = c.var;
  const now = Date.now();
  const evaluated = await evaluatePlan(c.var.db, plan, now);
  return success(
    c,
    briefing({
      ...evaluated.input,
      planId: plan.id,
      color: evaluated.color,
      advisories: evaluated.advisories,
      now,
    }),
  );
});
