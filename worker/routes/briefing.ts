import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { briefing } from "../domain/airspace/briefing";
import { success } from "../lib/jsend";
import { recordId, responses, securityWithToken } from "../lib/openapi";
import { requireToken } from "../middleware/token";
import { evaluatePlan } from "../services/evaluation";
import { ownPlan } from "./flightPlans";
import { AreaAdvisory, evaluationFields } from "./rules";

const Briefing = z
  .object({
    flight_plan_id: z.string(),
    created_at: z.string().openapi({ description: "When the briefing was made (ISO 8601)" }),
    advisories: z.array(AreaAdvisory),
    ...evaluationFields,
  })
  .openapi("Briefing");

const getBriefing = createRoute({
  method: "get",
  path: "/flight/v2/plan/{plan_id}/briefing",
  tags: ["Flight plans"],
  summary:
    "What the plan meets: advisories and their color, each rule's status from the plan's flight features, validations and authorizations",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { params: z.object({ plan_id: recordId("plan_id") }) },
  responses: responses(Briefing, "The briefing"),
});

export const briefingRoutes = createRouter().openapi(getBriefing, async (c) => {
  const plan = await ownPlan(c, c.req.valid("param").plan_id);
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
