import { describe, expect, it } from "vitest";
import type { AreaAdvisory } from "../../worker/domain/airspace/advisories";
import { briefing } from "../../worker/domain/airspace/briefing";
import type { Authorization } from "../../worker/domain/airspace/laanc";
import type { Ruleset } from "../../worker/domain/airspace/rules";

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

const input = {
  rulesets: [part107],
  color: "orange" as const,
  advisories: [controlled],
  features: { flight_max_altitude_agl: 60 },
  authorizations: [accepted],
  submitted: true,
  pilot: { phone: "+17755550100", phoneVerified: true, faaRegistrationNumber: "FA3HK4LM7P" },
};

describe("the plan briefing", () => {
  it("gives each rule its status from the plan's features, advisories and authorizations", () => {
    const result = briefing(input);
    expect(result.color).toBe("orange");
    expect(result.rulesets).toEqual([
      {
        id: "usa_part_107",
        rules: [
          { id: 10701, short_text: "Stay at or below 400 ft", description: "", status: "not_conflicting" },
          {
            id: 10703,
            short_text: "Hold a remote pilot certificate",
            description: "",
            status: "missing_info",
          },
          { id: 10710, short_text: "Get ATC authorization", description: "", status: "not_conflicting" },
          { id: 10711, short_text: "No TFRs", description: "", status: "not_conflicting" },
        ],
      },
    ]);
    const rejected = briefing({ ...input, authorizations: [{ ...accepted, status: "rejected" }] });
    expect(rejected.rulesets[0]!.rules[2]!.status).toBe("conflicting");
  });

  it("checks what LAANC needs of the pilot", () => {
    expect(briefing(input).validations.map((v) => [v.feature.code, v.status])).toEqual([
      ["phone_number", "valid"],
      ["faa_registration_number", "valid"],
    ]);
    const unready = briefing({
      ...input,
      pilot: { phone: "+17755550100", phoneVerified: false, faaRegistrationNumber: "12" },
    });
    expect(unready.validations.map((v) => v.status)).toEqual(["unverified", "invalid"]);
    const blank = briefing({
      ...input,
      pilot: { phone: null, phoneVerified: false, faaRegistrationNumber: undefined },
    });
    expect(blank.validations.map((v) => v.status)).toEqual(["missing", "missing"]);
    expect(briefing({ ...input, authorizations: [] }).validations).toEqual([]);
  });

  it("before submission, shows authorizations as not requested yet with the expected answer", () => {
    const before = briefing({ ...input, submitted: false });
    expect(before.authorizations[0]).toMatchObject({
      status: "not_requested",
      authority: { id: "faa-laanc" },
    });
    expect(before.authorizations[0]!.message).toMatch(
      /^Submitting the plan requests this; expected: accepted/,
    );
    // The rules judge the plan by what submitting would bring.
    expect(before.rulesets[0]!.rules[2]!.status).toBe("not_conflicting");
  });
});
