import { describe, expect, it } from "vitest";
import type { AreaAdvisory } from "../../worker/domain/airspace/advisories";
import { type BriefingInput, briefing } from "../../worker/domain/airspace/briefing";
import { flightFeatureProblems } from "../../worker/domain/airspace/evaluation";
import type { Authorization } from "../../worker/domain/airspace/laanc";
import type { FlightFeature, Ruleset } from "../../worker/domain/airspace/rules";

const part107: Ruleset = {
  id: "usa_part_107",
  name: "Part 107",
  short_name: "Part 107",
  description: "",
  selection_type: "pick1",
  default: true,
  jurisdiction: { id: 840, name: "United States", region: "federal" },
  airspace_types: ["controlled_airspace", "laanc", "tfr"],
  rules: [
    {
      id: 10701,
      short_text: "Stay at or below 400 ft",
      description: "",
      display_order: 1,
      flight_features: ["flight_max_altitude_agl"],
      condition: { feature: "flight_max_altitude_agl", op: "lte", value: 121.92 },
      triggers: [],
    },
    {
      id: 10703,
      short_text: "Hold a remote pilot certificate",
      description: "",
      display_order: 2,
      flight_features: ["pilot_remote_certificate"],
      condition: { feature: "pilot_remote_certificate", op: "eq", value: true },
      triggers: [],
    },
    {
      id: 10710,
      short_text: "Get ATC authorization",
      description: "",
      display_order: 3,
      flight_features: [],
      condition: { authorization: "faa-laanc", further_coordination: true },
      triggers: [{ type: "controlled_airspace", color: "orange" }],
    },
    {
      id: 10711,
      short_text: "No TFRs",
      description: "",
      display_order: 4,
      flight_features: [],
      condition: null,
      triggers: [{ type: "tfr", color: "red" }],
    },
  ],
};

const controlled: AreaAdvisory = {
  id: "synthetic:KNFL-class-d",
  name: "FALLON CLASS D",
  last_updated: null,
  latitude: 39.4,
  longitude: -118.7,
  distance: 0,
  type: "controlled_airspace",
  city: "Fallon",
  state: "Nevada",
  country: "USA",
  properties: { laanc: true, authorization: true },
  color: "orange",
  rule_id: 10710,
  ruleset_id: "usa_part_107",
  requirements: { notice: { phone: null, digital: true } },
};

const accepted: Authorization = {
  description: "LAANC authorization at KNFL",
  status: "accepted",
  message: "Authorized automatically",
  authority: { id: "faa-laanc", name: "FAA LAANC" },
};

const feature = (
  name: string,
  input_type: "float" | "bool",
  measurement_type: string | null = null,
  measurement_unit: string | null = null,
): [string, FlightFeature] => [
  name,
  { flight_feature: name, description: `${name}?`, input_type, measurement_type, measurement_unit },
];
const definitions = new Map([
  feature("flight_max_altitude_agl", "float", "distance", "meters"),
  feature("pilot_remote_certificate", "bool"),
]);

const input: BriefingInput = {
  planId: "flight_plan|p1",
  now: Date.parse("2026-11-24T03:00:00Z"),
  rulesets: [part107],
  definitions,
  color: "orange",
  advisories: [controlled],
  given: {},
  calculated: { flight_max_altitude_agl: 60 },
  authorizations: [accepted],
  submitted: true,
  pilot: { phone: "+17755550100", phoneVerified: true, faaRegistrationNumber: "FA3HK4LM7P" },
};

const statuses = (result: ReturnType<typeof briefing>) =>
  result.rulesets[0]!.rules.map((r) => [r.id, r.status]);

describe("the plan briefing", () => {
  it("carries the plan, the time, and the color both where Kotlin and where C++ read it", () => {
    const result = briefing(input);
    expect(result).toMatchObject({
      flight_plan_id: "flight_plan|p1",
      created_at: "2026-11-24T03:00:00.000Z",
      color: "orange",
      advisories: [controlled],
      airspace: { color: "orange", advisories: [controlled] },
      failures: [],
    });
    expect(result.rulesets[0]).toMatchObject({
      id: "usa_part_107",
      name: "Part 107",
      selection_type: "pick1",
      jurisdiction: { id: 840, region: "federal" },
    });
  });

  it("gives each rule and each of its features a status from the features, advisories and authorizations", () => {
    const result = briefing(input);
    expect(statuses(result)).toEqual([
      [10701, "not_conflicting"],
      [10703, "missing_info"],
      [10710, "not_conflicting"],
      [10711, "not_conflicting"],
    ]);
    expect(result.rulesets[0]!.rules[0]!.flight_features).toEqual([
      expect.objectContaining({
        flight_feature: "flight_max_altitude_agl",
        code: "within_limit",
        status: "not_conflicting",
        value: 60,
        is_calculated: true,
      }),
    ]);
    expect(result.rulesets[0]!.rules[1]!.flight_features).toEqual([
      expect.objectContaining({
        flight_feature: "pilot_remote_certificate",
        code: "missing_info",
        status: "missing_info",
        value: null,
        is_calculated: false,
      }),
    ]);
    // The LAANC rule lists the altitude it is decided by.
    expect(result.rulesets[0]!.rules[2]!.flight_features.map((f) => [f.flight_feature, f.code])).toEqual([
      ["flight_max_altitude_agl", "within_facility_map_ceiling"],
    ]);
    const conflicting = briefing({
      ...input,
      given: { pilot_remote_certificate: false },
      calculated: { flight_max_altitude_agl: 150 },
      authorizations: [{ ...accepted, status: "rejected" }],
    });
    expect(conflicting.rulesets[0]!.rules[2]!.flight_features[0]!.status).toBe("conflicting");
    expect(statuses(conflicting)).toEqual([
      [10701, "conflicting"],
      [10703, "conflicting"],
      [10710, "conflicting"],
      [10711, "not_conflicting"],
    ]);
    // What the service works out beats what the client claims.
    expect(statuses(briefing({ ...input, given: { flight_max_altitude_agl: 500 } }))[0]).toEqual([
      10701,
      "not_conflicting",
    ]);
  });

  it("checks what LAANC needs of the pilot, as valid, invalid or unknown", () => {
    const codes = (result: ReturnType<typeof briefing>) =>
      result.validations.map((v) => [v.feature.code, v.status]);
    expect(codes(briefing(input))).toEqual([
      ["phone_number", "valid"],
      ["faa_registration_number", "valid"],
    ]);
    expect(briefing(input).validations[0]).toMatchObject({
      data: "…0100",
      authority: { id: "faa-laanc", name: "FAA LAANC" },
      description: expect.any(String),
    });
    const unready = briefing({
      ...input,
      pilot: { phone: "+17755550100", phoneVerified: false, faaRegistrationNumber: "12" },
    });
    expect(unready.validations.map((v) => [v.status, v.message.split(":")[0]])).toEqual([
      ["invalid", "Not verified"],
      ["invalid", "Malformed"],
    ]);
    const blank = briefing({
      ...input,
      pilot: { phone: null, phoneVerified: false, faaRegistrationNumber: undefined },
    });
    expect(blank.validations.map((v) => [v.status, v.data])).toEqual([
      ["invalid", ""],
      ["invalid", ""],
    ]);
    const nobody = briefing({ ...input, pilot: null });
    expect(nobody.validations.map((v) => v.status)).toEqual(["unknown", "unknown"]);
    expect(nobody.failures).toEqual(["validation"]);
    expect(briefing({ ...input, authorizations: [] }).validations).toEqual([]);
  });

  it("before submission, says what submitting would bring, in the C++ SDK's terms", () => {
    const before = briefing({ ...input, submitted: false });
    expect(before.authorizations).toEqual([
      {
        status: "accepted_upon_submission",
        authority: { id: "faa-laanc", name: "FAA LAANC", facility: "FAA LAANC" },
        message: "Authorized automatically",
        description: "LAANC authorization at KNFL",
      },
    ]);
    // The rules judge the plan by what submitting would bring.
    expect(before.rulesets[0]!.rules[2]!.status).toBe("not_conflicting");
    const refused = briefing({
      ...input,
      submitted: false,
      authorizations: [{ ...accepted, status: "not_requested", message: "apply through FAADroneZone" }],
    });
    expect(refused.authorizations[0]).toMatchObject({
      status: "rejected_upon_submission",
      message: "Not requested through LAANC: apply through FAADroneZone",
    });
  });

  it("asks for the altitude, and shows the authorization pending, when LAANC could not decide", () => {
    const undecided = briefing({ ...input, calculated: {}, authorizations: null, submitted: false });
    expect(undecided.rulesets[0]!.rules[2]).toMatchObject({
      status: "missing_info",
      flight_features: [
        expect.objectContaining({
          flight_feature: "flight_max_altitude_agl",
          code: "missing_info",
          status: "missing_info",
        }),
      ],
    });
    expect(undecided.authorizations.map((a) => a.status)).toEqual(["pending"]);
    // Outside controlled airspace nothing is pending.
    expect(
      briefing({ ...input, advisories: [], calculated: {}, authorizations: null }).authorizations,
    ).toEqual([]);
  });
});

describe("flight features a client sends", () => {
  it("must match their input type; unknown names are ignored", () => {
    expect(
      flightFeatureProblems(
        { flight_max_altitude_agl: "20.0", pilot_remote_certificate: "true", something_else: [1] },
        definitions,
      ),
    ).toEqual([]);
    expect(
      flightFeatureProblems({ flight_max_altitude_agl: "high", pilot_remote_certificate: 3 }, definitions),
    ).toEqual([
      { field: "flight_features.flight_max_altitude_agl", message: "must be a number" },
      { field: "flight_features.pilot_remote_certificate", message: "must be true or false" },
    ]);
  });
});
