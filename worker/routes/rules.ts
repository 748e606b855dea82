import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { success } from "../lib/jsend";
import { geometryInput, jsonBody, recordId, responses, security, timeInput } from "../lib/openapi";
import { optionalToken } from "../middleware/token";
import { Evaluation, Ruleset } from "../schemas/airspace";
import { areaFrom, rulesetIdsFrom, timeWindowFrom } from "../schemas/queryFields";
import { areaEvaluation, planEvaluation } from "../services/evaluation";
import { rulesetViewById, rulesetViewsByIds, rulesetViewsOver } from "../services/rulesets";

/** Rules (spec 2.4) and rule evaluation, in the shapes the SDKs decode (sdk-routes.md, Rules). */

const coordinate = (min: number, max: number) =>
  z.coerce.number().min(min).max(max).optional().openapi({
    description: "A number, or its text as the Android SDK sends it (RulesetService.java 104–110)",
  });

const RulesRequest = z
  .object({
    geometry: geometryInput.optional(),
    latitude: coordinate(-90, 90),
    longitude: coordinate(-180, 180),
  })
  .refine(
    (body) => body.geometry !== undefined || (body.latitude !== undefined && body.longitude !== undefined),
    {
      message: "send a geometry, or a latitude and a longitude",
      path: ["geometry"],
    },
  )
  .openapi("RulesRequest");

const EvaluationRequest = z
  .object({
    geometry: geometryInput,
    rulesets: z.union([z.string(), z.array(z.string())]).openapi({
      description: "Ruleset ids, comma-separated (as the SDKs send them) or as an array",
      example: "usa_part_107,usa_advisories",
    }),
    flight_features: z
      .record(z.string(), z.union([z.boolean(), z.number(), z.string(), z.null()]))
      .optional()
      .openapi({
        description: 'Feature name (`code`) → value; e.g. {"flight_max_altitude_agl": 20.0}',
      }),
    start: timeInput
      .optional()
      .openapi({ description: "Flight start (default now); with it, night is worked out" }),
    end: timeInput.optional().openapi({ description: "Flight end (default: the start)" }),
  })
  .openapi("EvaluationRequest");

const rulesForArea = createRoute({
  method: "post",
  path: "/rules/v1",
  tags: ["Rules and advisories"],
  summary:
    "Rulesets that apply to a flight area: select every `required` one, exactly one `pick1` per jurisdiction, any `optional`",
  security,
  request: { body: jsonBody(RulesRequest) },
  responses: responses(z.array(Ruleset), "The rulesets of every jurisdiction the area meets"),
});

const rulesetIdsQuery = z.object({
  rulesets: z.string().openapi({ description: "Comma-separated ruleset ids", example: "usa_part_107" }),
});

const rulesetsByIds = createRoute({
  method: "get",
  path: "/rules/v1",
  tags: ["Rules and advisories"],
  summary: "Rulesets by id (`?rulesets=a,b`, as the Android SDK asks: RulesetService.java 125–130)",
  security,
  request: { query: rulesetIdsQuery },
  responses: responses(z.array(Ruleset), "The rulesets, in display order"),
});

const rulesByIds = createRoute({
  method: "get",
  path: "/rules/v1/rule",
  tags: ["Rules and advisories"],
  summary: "Rulesets by id, with their rules (the same as `POST /rules/v1/` lists)",
  security,
  request: { query: rulesetIdsQuery },
  responses: responses(z.array(Ruleset), "The rulesets, in display order"),
});

const rulesetById = createRoute({
  method: "get",
  path: "/rules/v1/{ruleset_id}",
  tags: ["Rules and advisories"],
  summary: "One ruleset with its rules",
  security,
  request: {
    params: z.object({
      ruleset_id: z
        .string()
        .min(1)
        .max(64)
        .openapi({ param: { name: "ruleset_id", in: "path" }, example: "usa_part_107" }),
    }),
  },
  responses: responses(Ruleset, "The ruleset"),
});

const evaluateRoute = createRoute({
  method: "post",
  path: "/rules/v1/evaluation",
  tags: ["Rules and advisories"],
  summary:
    "Evaluates rulesets over an area with the flight's features: each rule's status, what LAANC would decide, and the features still to ask",
  security,
  request: { body: jsonBody(EvaluationRequest) },
  responses: responses(Evaluation, "The evaluation"),
});

const evaluatePlanRoute = createRoute({
  method: "get",
  path: "/rules/v1/{flight_plan_id}/evaluation",
  tags: ["Rules and advisories"],
  summary:
    "Evaluates a flight plan of the calling account (API key alone, as the C++ SDK sends it; with a pilot's token, only that pilot's plan): its geometry, rulesets and flight features",
  security,
  middleware: [optionalToken] as const,
  request: { params: z.object({ flight_plan_id: recordId("flight_plan_id") }) },
  responses: responses(Evaluation, "The plan's evaluation"),
});

export const rulesRoutes = createRouter()
  .openapi(rulesForArea, async (c) => {
    const { geometry, latitude, longitude } = c.req.valid("json");
    return success(
      c,
      await rulesetViewsOver(
        c.var.db,
        geometry !== undefined ? { area: areaFrom(geometry) } : { point: [longitude!, latitude!] },
      ),
    );
  })
  .openapi(rulesetsByIds, async (c) =>
    success(c, await rulesetViewsByIds(c.var.db, rulesetIdsFrom(c.req.valid("query").rulesets))),
  )
  // Before `{ruleset_id}`: the literal `rule` is not a ruleset id.
  .openapi(rulesByIds, async (c) =>
    success(c, await rulesetViewsByIds(c.var.db, rulesetIdsFrom(c.req.valid("query").rulesets))),
  )
  .openapi(rulesetById, async (c) =>
    success(c, await rulesetViewById(c.var.db, c.req.valid("param").ruleset_id)),
  )
  .openapi(evaluateRoute, async (c) => {
    const body = c.req.valid("json");
    const area = areaFrom(body.geometry);
    const window = timeWindowFrom(body.start, body.end);
    const given = Object.fromEntries(
      Object.entries(body.flight_features ?? {}).filter(([, v]) => v !== null),
    );
    const evaluation = await areaEvaluation(
      c.var.db,
      {
        area,
        rulesetIds: rulesetIdsFrom(body.rulesets),
        given,
        ...window,
        timed: body.start !== undefined,
      },
      c.var.dialect,
    );
    return success(c, evaluation);
  })
  .openapi(evaluatePlanRoute, async (c) => {
    const planId = c.req.valid("param").flight_plan_id;
    return success(c, await planEvaluation(c.var.db, c.var.account.id, c.var.pilotId, planId, c.var.dialect));
  });
