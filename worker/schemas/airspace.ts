import { z } from "@hono/zod-openapi";
import {
  AUTHORIZATION_STATUSES,
  FAILURES,
  INPUT_TYPES,
  MEASUREMENT_TYPES,
  MEASUREMENT_UNITS,
  REGIONS,
  RULE_STATUSES,
  SELECTION_TYPES,
  VALIDATION_STATUSES,
} from "../domain/airspace/sdkEnums";
import { GeometryView, isoTimeView } from "./common";

/**
 * Airspace answers as the API writes them: advisories, status, rulesets, evaluations, LAANC
 * authorizations, weather and airspace records (spec 2.4–2.6; the SDK decoders where only they say).
 */

/** Advisory color, green (no restriction) to red (flight not allowed). */
export const Color = z.enum(["green", "yellow", "orange", "red"]);

const SFO_ID = "faa-class:SFO-B";

/** A value a dataset gives: text, a number, a flag or null. */
const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/** A dataset's property: a scalar, or a list or record of them (an airport's runways). */
const DataValue = z
  .union([Scalar, z.array(z.union([Scalar, z.record(z.string(), Scalar)])), z.record(z.string(), Scalar)])
  .openapi("DataValue");

/**
 * The `properties` of an advisory or record: what its dataset says (per type the members the SDK
 * decoders read: airport iata, icao, runways…; controlled_airspace airspace_classification; tfr url,
 * type, notam_reason…; null where the data does not say, plus `source`) and, for controlled airspace,
 * the LAANC facts of the facility-map cells under the area.
 */
// The domain builds `properties` as a record; the document types its members (the cast keeps the schema).
export const AirspaceProperties = z
  .object({
    source: z.string().optional().openapi({ description: "The dataset the record comes from" }),
    iata: Scalar.optional().openapi({ description: "Airport: IATA code" }),
    icao: Scalar.optional().openapi({ description: "Airport (and facility map): ICAO code" }),
    paved: Scalar.optional(),
    phone: Scalar.optional(),
    tower: Scalar.optional(),
    runways: DataValue.optional(),
    elevation: Scalar.optional(),
    longest_runway: Scalar.optional(),
    longestRunway: Scalar.optional().openapi({
      description: "Airport: `longest_runway` again (Android SDK's name)",
    }),
    use: Scalar.optional().openapi({
      description: "Airport; heliport: `usage` again (Android and Swift SDKs' name)",
    }),
    airspace_classification: Scalar.optional().openapi({ description: "Controlled airspace: B, C, D, E" }),
    airspace_class: z.string().optional().openapi({ description: "The classification, lower case" }),
    classAirspace: Scalar.optional().openapi({
      description: "Controlled airspace: `airspace_classification` again (Android SDK's name)",
    }),
    airportIdentifier: Scalar.optional().openapi({
      description: "Controlled airspace: `airport_id` again (Android SDK's name)",
    }),
    floor: Scalar.optional().openapi({
      description: "Controlled airspace: `floor_ft` again, feet (Swift SDK's name); null where not known",
    }),
    laanc: z.boolean().optional().openapi({ description: "Controlled airspace: every cell under LAANC" }),
    authorization: z
      .boolean()
      .optional()
      .openapi({ description: "LAANC can authorize here (the lowest cell's ceiling is above 0)" }),
    ceiling: z.number().optional().openapi({ description: "The lowest facility-map ceiling, feet AGL" }),
    airport_id: z.string().optional(),
    airport_name: z.string().optional(),
    last_edit_date: z.string().nullable().optional(),
    auto_auth_floor_m_agl: z.number().optional(),
    auto_auth_ceiling_m_agl: z.number().optional(),
    manual_auth_ceiling_m_agl: z.number().optional(),
    effective_start: z.string().nullable().optional(),
    effective_end: z.string().nullable().optional(),
  })
  .catchall(DataValue)
  .openapi("AirspaceProperties", {
    description:
      "Per type what the SDK decoders read (null where the data does not say) plus `source`; for controlled airspace the LAANC facts of the cells under the area",
    example: {
      source: "faa-class",
      airspace_classification: "B",
      airspace_class: "b",
      laanc: true,
      authorization: true,
      ceiling: 100,
      airport_id: "SFO",
      airport_name: "San Francisco International",
      icao: "KSFO",
      last_edit_date: "2026-10-01T00:00:00.000Z",
      auto_auth_floor_m_agl: 0,
      auto_auth_ceiling_m_agl: 30.48,
      manual_auth_ceiling_m_agl: 121.92,
    },
  }) as unknown as z.ZodType<Record<string, unknown>>;

/** An advisory as every airspace query lists it (spec 2.5). */
const advisoryFields = {
  id: z.string().openapi({ example: SFO_ID }),
  name: z.string().openapi({ example: "San Francisco Class B" }),
  last_updated: z.string().nullable(),
  latitude: z.number(),
  longitude: z.number(),
  distance: z.number().openapi({ description: "Meters from the area (0 where they meet)" }),
  type: z.string().openapi({ example: "controlled_airspace" }),
  city: z.string().nullable(),
  state: z.string().nullable(),
  country: z.string().openapi({ description: '"" when unknown' }),
  properties: AirspaceProperties,
  color: Color,
};

const Requirements = z.object({
  notice: z.object({ phone: z.string().nullable(), digital: z.boolean() }),
});

const Extents = z
  .object({ floor_m: z.number(), ceiling_m: z.number(), floor_code: z.string(), ceiling_code: z.string() })
  .openapi("Extents", { description: "Vertical extents (v2 advisories and evaluations)" });

/** An advisory over a flight area: the rule it comes from, the notice requirements and (v2) the extents. */
export const AreaAdvisory = z
  .object({
    ...advisoryFields,
    rule_id: z.number().int(),
    ruleset_id: z.string().openapi({ example: "usa_part_107" }),
    requirements: Requirements,
    extents: Extents.optional(),
  })
  .openapi("Advisory", {
    example: {
      id: SFO_ID,
      name: "San Francisco Class B",
      last_updated: "2026-10-01T00:00:00.000Z",
      latitude: 37.6189,
      longitude: -122.375,
      distance: 0,
      type: "controlled_airspace",
      city: "San Francisco",
      state: "California",
      country: "USA",
      properties: { source: "faa-class", airspace_classification: "B", laanc: true, authorization: true },
      color: "orange",
      rule_id: 10711,
      ruleset_id: "usa_part_107",
      requirements: { notice: { phone: null, digital: true } },
    },
  });

export const AdvisoryAnswer = z
  .object({
    color: Color,
    advisories: z.array(AreaAdvisory),
  })
  .openapi("Advisories");

/** Status advisories: the rule and requirements only where rulesets color them (polygon and path). */
export const StatusAdvisory = z
  .object({
    ...advisoryFields,
    rule_id: z
      .number()
      .int()
      .optional()
      .openapi({ description: "Polygon and path: the rule that colors it" }),
    ruleset_id: z.string().optional(),
    requirements: Requirements.optional(),
  })
  .openapi("StatusAdvisory");

const Wind = z.object({
  heading: z.number().nullable(),
  speed: z.number().nullable(),
  gusting: z.number().nullable(),
});

export const WeatherUpdate = z
  .object({
    time: z.string(),
    timezone: z.string().openapi({ example: "America/Phoenix" }),
    condition: z.string().openapi({ example: "broken clouds" }),
    icon: z.string().nullable().openapi({ description: "The provider's icon code" }),
    wind: Wind.openapi({ description: "heading in degrees (from), speed and gusting in m/s" }),
    humidity: z.number().nullable().openapi({ description: "percent" }),
    visibility: z.number().nullable().openapi({ description: "kilometers" }),
    precipitation: z.number().nullable().openapi({ description: "probability, percent" }),
    temperature: z.number().nullable().openapi({ description: "°C" }),
    dew_point: z.number().nullable().openapi({ description: "°C" }),
    mslp: z.number().nullable().openapi({ description: "mean sea level pressure, hPa" }),
  })
  .openapi("WeatherUpdate", {
    example: {
      time: "2026-11-21T10:00:00.000Z",
      timezone: "America/Los_Angeles",
      condition: "broken clouds",
      icon: "04d",
      wind: { heading: 290, speed: 5.1, gusting: 7.7 },
      humidity: 72,
      visibility: 10,
      precipitation: 10,
      temperature: 14.2,
      dew_point: 9.1,
      mslp: 1016,
    },
  });

export const Weather = z
  .object({
    weather: z.array(WeatherUpdate),
    attribution: z.string(),
    attribution_uri: z.string(),
    dew_point: z
      .number()
      .nullable()
      .openapi({ description: "The first entry's, where the C++ SDK reads it" }),
  })
  .openapi("Weather");

export const Status = z
  .object({
    max_safe_distance: z
      .number()
      .openapi({ description: "Meters to the nearest advisory (the buffer when none)" }),
    advisory_color: Color,
    advisories: z.array(StatusAdvisory),
    weather: WeatherUpdate.optional().openapi({
      description: "With `weather=true`, when the provider answers",
    }),
    weather_unavailable: z
      .string()
      .optional()
      .openapi({ description: "With `weather=true`: why there is no `weather` (no provider configured, …)" }),
  })
  .openapi("Status");

export const FlightFeature = z
  .object({
    id: z.number().int().openapi({ description: "Stable 32-bit id of the feature" }),
    code: z.string().openapi({ description: "The key to send in `flight_features`" }),
    flight_feature: z.string(),
    description: z.string(),
    input_type: z.enum(INPUT_TYPES),
    measurement_type: z.enum(MEASUREMENT_TYPES).nullable(),
    measurement_unit: z.enum(MEASUREMENT_UNITS).nullable(),
    is_calculated: z
      .boolean()
      .openapi({ description: "The service works it out from the flight plan; no need to ask" }),
  })
  .openapi("FlightFeature", {
    example: {
      id: 1021386921,
      code: "flight_max_altitude_agl",
      flight_feature: "flight_max_altitude_agl",
      description: "Maximum altitude above ground",
      input_type: "float",
      measurement_type: "distance",
      measurement_unit: "meters",
      is_calculated: true,
    },
  });

const rulesetHeader = {
  id: z.string().openapi({ example: "usa_part_107" }),
  name: z.string().openapi({ example: "Part 107" }),
  short_name: z.string(),
  description: z.string(),
  selection_type: z.enum(SELECTION_TYPES),
  default: z.boolean(),
  jurisdiction: z
    .object({ id: z.number().int(), name: z.string(), region: z.enum(REGIONS) })
    .openapi("Jurisdiction", { example: { id: 1, name: "United States", region: "federal" } }),
  airspace_types: z.array(z.string()).openapi({ example: ["controlled_airspace", "laanc"] }),
};

const ruleFields = {
  id: z.number().int().openapi({ example: 10711 }),
  short_text: z.string(),
  description: z.string(),
  display_order: z.number().int(),
};

export const Rule = z
  .object({ ...ruleFields, flight_features: z.array(FlightFeature) })
  .openapi("Rule", { description: "A rule and the flight features it needs" });

export const Ruleset = z
  .object({ ...rulesetHeader, flight_features: z.array(FlightFeature), rules: z.array(Rule) })
  .openapi("Ruleset", {
    description: "A ruleset with its rules; `flight_features` are those its rules need",
  });

const RuleStatus = z.enum(RULE_STATUSES);

export const EvaluatedFeature = FlightFeature.extend({
  code: z.string().openapi({
    description:
      "Why the feature has its status, e.g. `laanc_authorization_required`, `within_limit`, `missing_info`",
  }),
  status: RuleStatus,
  value: z
    .union([z.number(), z.string(), z.boolean()])
    .nullable()
    .openapi({ description: "The plan's answer (or the calculated value); null when not given" }),
}).openapi("EvaluatedFeature");

export const EvaluatedRule = z
  .object({ ...ruleFields, status: RuleStatus, flight_features: z.array(EvaluatedFeature) })
  .openapi("EvaluatedRule");

export const EvaluatedRuleset = z
  .object({ ...rulesetHeader, rules: z.array(EvaluatedRule) })
  .openapi("EvaluatedRuleset");

const Authority = z
  .object({
    id: z.string(),
    name: z.string(),
    facility: z.string().openapi({ description: "Who decides (the Swift SDK requires it)" }),
  })
  .openapi("Authority", { example: { id: "faa-laanc", name: "FAA LAANC", facility: "FAA LAANC" } });

export const Validation = z
  .object({
    status: z.enum(VALIDATION_STATUSES),
    data: z.string(),
    message: z.string(),
    description: z.string(),
    feature: z.object({ code: z.string(), description: z.string() }),
    authority: Authority,
  })
  .openapi("Validation");

export const Authorization = z
  .object({
    status: z.enum(AUTHORIZATION_STATUSES).openapi({
      description:
        "`accepted_upon_submission` (Android and Swift SDKs: `authorized_upon_submission`) / `rejected_upon_submission` before the plan is submitted; see docs/sdk-compatibility.md",
    }),
    authority: Authority,
    message: z.string(),
    description: z.string(),
    reference_number: z.string().optional(),
  })
  .openapi("EvaluationAuthorization", {
    example: {
      status: "accepted_upon_submission",
      authority: { id: "faa-laanc", name: "FAA LAANC", facility: "FAA LAANC" },
      message: "Within the facility map ceiling of 100 ft",
      description: "LAANC authorization",
    },
  });

/** The evaluation members every SDK reads (C++ `Evaluation`, Kotlin `FlightBriefing`); a briefing adds its own. */
export const evaluationFields = {
  color: Color,
  airspace: z.object({ color: Color, advisories: z.array(AreaAdvisory) }),
  rulesets: z.array(EvaluatedRuleset),
  validations: z.array(Validation),
  authorizations: z.array(Authorization),
  failures: z.array(z.enum(FAILURES)),
};

export const Evaluation = z
  .object({ created_at: isoTimeView("When the evaluation was made"), ...evaluationFields })
  .openapi("Evaluation");

export const AirspaceRecord = z
  .object({
    id: z.string().openapi({ example: "ourairports:KPHX" }),
    name: z.string(),
    type: z.string(),
    country: z.string(),
    state: z.string().nullable(),
    city: z.string().nullable(),
    geometry: GeometryView.openapi({ description: "Always there; with `full=false` its bounding box" }),
    related_geometry: z
      .object({ property_boundary: z.object({ id: z.string(), geometry: GeometryView }).optional() })
      .openapi({
        description:
          "`property_boundary`: the ground property, for types whose area is one (park, school, prison…); empty otherwise",
      }),
    last_updated: z.string().nullable(),
    rules: z
      .array(z.object({}).strict())
      .max(0)
      .openapi({ description: "Always empty: rules depend on the chosen rulesets" }),
    properties: AirspaceProperties,
    effective_start: z.string().nullable(),
    effective_end: z.string().nullable(),
  })
  .openapi("AirspaceRecord");
