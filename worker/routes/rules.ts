import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { areaFrom } from "../domain/airspace/inputs";
import { rulesetView } from "../domain/airspace/rules";
import { success } from "../lib/jsend";
import { geometryInput, responses, security } from "../lib/openapi";
import { flightFeatureDefinitions, rulesetsFor } from "../store/airspace";

const RulesRequest = z.object({ geometry: geometryInput }).openapi("RulesRequest");
const FlightFeature = z
  .object({
    flight_feature: z.string(),
    description: z.string(),
    input_type: z.enum(["float", "bool"]),
    measurement_type: z.string().nullable(),
    measurement_unit: z.string().nullable(),
  })
  .openapi("FlightFeature");
const Ruleset = z
  .object({
    id: z.string().openapi({ example: "usa_part_107" }),
    name: z.string(),
    short_name: z.string(),
    description: z.string(),
    selection_type: z.enum(["required", "optional", "pick1"]),
    default: z.boolean(),
    jurisdiction: z.object({ id: z.number().int(), name: z.string(), region: z.string() }),
    airspace_types: z.array(z.string()),
    flight_features: z.array(FlightFeature),
    rules: z.array(
      z.object({
        id: z.number().int(),
        short_text: z.string(),
        description: z.string(),
        display_order: z.number().int().nullable(),
        flight_features: z.array(FlightFeature),
      }),
    ),
  })
  .openapi("Ruleset");

const rulesForArea = createRoute({
  method: "post",
  path: "/rules/v1",
  tags: ["Rules and advisories"],
  summary:
    "Rulesets that apply to a flight area: select every `required` one, exactly one `pick1` per jurisdiction, any `optional`",
  security,
  request: { body: { content: { "application/json": { schema: RulesRequest } }, required: true } },
  responses: responses(z.array(Ruleset), "The rulesets of every jurisdiction the area meets"),
});

export const rulesRoutes = createRouter().openapi(rulesForArea, async (c) => {
  const area = areaFrom(c.req.valid("json").geometry);
  const rulesets = await rulesetsFor(c.var.db, area);
  const definitions = await flightFeatureDefinitions(c.var.db, [
    ...new Set(rulesets.flatMap((r) => r.rules.flatMap((rule) => rule.flight_features))),
  ]);
  return success(
    c,
    rulesets.map((r) => rulesetView(r, definitions)),
  );
});
