import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import type { Db } from "../env";
import { success } from "../lib/jsend";
import { geometryInput, jsonBody, recordId, responses, security, timeInput } from "../lib/openapi";
import { AdvisoryAnswer } from "../schemas/airspace";
import { areaFrom, rulesetIdsFrom, timeWindowFrom } from "../schemas/queryFields";
import { advisoriesForPlan, advisoriesOver } from "../services/airspace";

const window = {
  start: timeInput.optional().openapi({
    description: "Start of the flight (default now): time-bound airspace outside the window is left out",
  }),
  end: timeInput.optional().openapi({ description: "End of the flight (default: the start)" }),
};

const v1 = createRoute({
  method: "get",
  path: "/advisory/v1/airspace",
  tags: ["Rules and advisories"],
  summary:
    "Advisories for a flight area under the chosen rulesets; the response color is the most restrictive",
  security,
  request: {
    query: z.object({
      geometry: z.string().openapi({ description: "URL-encoded GeoJSON Polygon" }),
      rulesets: z
        .string()
        .openapi({ description: "Comma-separated ruleset ids", example: "usa_part_107,usa_national_parks" }),
      ...window,
    }),
  },
  responses: responses(AdvisoryAnswer, "Color and advisories"),
});

const AdvisoryRequest = z
  .object({
    geometry: z.union([geometryInput, z.string()]),
    rulesets: z.union([z.string(), z.array(z.string())]).openapi({
      description: "Ruleset ids: a comma-separated string (or an array)",
      example: "usa_part_107",
    }),
    ...window,
  })
  .openapi("AdvisoryRequest");
const advisoryBody = jsonBody(AdvisoryRequest);

const v2 = createRoute({
  method: "post",
  path: "/advisory/v2/airspace",
  tags: ["Rules and advisories"],
  summary: "Advisories for a flight area under the chosen rulesets, with vertical extents",
  security,
  request: { body: advisoryBody },
  responses: responses(AdvisoryAnswer, "Color and advisories with `extents`"),
});

/** The SDKs' form of the v1 query: the same answer from a JSON body. */
const v1ByBody = createRoute({
  method: "post",
  path: "/advisory/v1/airspace",
  tags: ["Rules and advisories"],
  summary: "Advisories for a flight area under the chosen rulesets (the GET's answer, from a JSON body)",
  security,
  request: { body: advisoryBody },
  responses: responses(AdvisoryAnswer, "Color and advisories"),
});

const forPlan = createRoute({
  method: "get",
  path: "/advisory/v1/airspace/{flight_plan_id}",
  tags: ["Rules and advisories"],
  summary:
    "Advisories for a flight plan's area under its rulesets (the default selection where it has none); the API key of the plan's account is enough",
  security,
  request: {
    params: z.object({ flight_plan_id: recordId("flight_plan_id") }),
    query: z.object({
      start: timeInput.optional().openapi({ description: "Default: the plan's start" }),
      end: timeInput.optional().openapi({ description: "Default: the plan's end" }),
    }),
  },
  responses: responses(AdvisoryAnswer, "Color and advisories"),
});

function advise(
  db: Db,
  input: { geometry: unknown; rulesets: unknown; start?: string; end?: string },
  withExtents: boolean,
) {
  const area = areaFrom(input.geometry);
  const ids = rulesetIdsFrom(input.rulesets);
  const timeWindow = timeWindowFrom(input.start, input.end);
  return advisoriesOver(db, area, ids, timeWindow, withExtents);
}

export const advisoryRoutes = createRouter()
  .openapi(v1, async (c) => success(c, await advise(c.var.db, c.req.valid("query"), false)))
  .openapi(v1ByBody, async (c) => success(c, await advise(c.var.db, c.req.valid("json"), false)))
  .openapi(v2, async (c) => success(c, await advise(c.var.db, c.req.valid("json"), true)))
  .openapi(forPlan, async (c) =>
    success(
      c,
      await advisoriesForPlan(
        c.var.db,
        c.var.account.id,
        c.req.valid("param").flight_plan_id,
        c.req.valid("query"),
      ),
    ),
  );
