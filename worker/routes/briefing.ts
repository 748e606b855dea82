import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { success } from "../lib/jsend";
import { recordId, responses, securityWithToken } from "../lib/openapi";
import { ownPlan } from "../middleware/ownFlight";
import { requireToken } from "../middleware/token";
import { Briefing } from "../schemas/flights";
import { planBriefing } from "../services/evaluation";

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

export const briefingRoutes = createRouter().openapi(getBriefing, async (c) =>
  success(c, await planBriefing(c.var.db, c.var.plan, Date.now(), c.var.dialect)),
);
