import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { badRequest } from "../lib/errors";
import { success } from "../lib/jsend";
import { responses, securityWithToken } from "../lib/openapi";
import { requireToken } from "../middleware/token";
import { Briefing } from "../schemas/flights";
import { planBriefings } from "../services/evaluation";

/** The Swift and Android SDKs' batch read of authorizations (docs/sdk-compatibility.md). */

/** Each plan costs a briefing (an airspace query and an evaluation): a page of plans, not a whole history. */
const MAX_PLANS = 25;

const batchAuthorizations = createRoute({
  method: "get",
  path: "/flight/v2/plan/batch/authorizations",
  tags: ["Flight plans"],
  summary:
    "Briefings of several of the pilot's own plans, for their authorizations: those stored with the flight once submitted, else what submitting would bring",
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
  responses: responses(
    z.array(Briefing),
    "One briefing per plan that exists, in the order asked (deleted or unknown ids are left out)",
  ),
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
  const { db, account, pilotId, dialect } = c.var;
  const answers = await planBriefings(db, account.id, pilotId, ids, Date.now(), dialect);
  return success(c, answers);
});
