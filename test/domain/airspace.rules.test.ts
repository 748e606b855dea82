import { describe, expect, it } from "vitest";
import { colorRank, highestColor } from "../../worker/domain/airspace/colors";
import { featureVerdict, worstStatus } from "../../worker/domain/airspace/featureVerdicts";
import {
  adviseUnder,
  defaultSelection,
  featureId,
  featuresOf,
  featureView,
  type Rule,
  type Ruleset,
  ruleStatus,
  testFeature,
} from "../../worker/domain/airspace/rules";
import {
  wireAuthorizationMessage,
  wireAuthorizationStatus,
  wireValidationStatus,
} from "../../worker/domain/airspace/sdkEnums";
import type { AuthorizationStatus } from "../../worker/domain/airspace/types";

const rule = (id: number, partial: Partial<Rule>): Rule => ({
  id,
  short_text: `rule ${id}`,
  description: "",
  display_order: id,
  flight_features: [],
  condition: null,
  triggers: [],
  ...partial,
});

const ruleset = (
  id: string,
  selection: Ruleset["selection_type"],
  isDefault: boolean,
  jurisdiction = 840,
): Ruleset => ({
  id,
  name: id,
  short_name: id,
  description: "",
  selection_type: selection,
  default: isDefault,
  jurisdiction: { id: jurisdiction, name: "j", region: "federal" },
  airspace_types: [],
  rules: [],
});

describe("advisory colors", () => {
  it("rank green < yellow < orange < red, and the highest wins (green when none)", () => {
    expect(["green", "yellow", "orange", "red"].map((c) => colorRank(c as never))).toEqual([0, 1, 2, 3]);
    expect(highestColor([])).toBe("green");
    expect(highestColor(["yellow", "red", "orange"])).toBe("red");
    expect(highestColor(["yellow", "orange", "yellow"])).toBe("orange");
  });
});

describe("the rule an airspace feature falls under", () => {
  const specialUse = {
    rules: [
      rule(1, {
        triggers: [
          { type: "special_use_airspace", when: { type: "prohibited" }, color: "red" },
          { type: "special_use_airspace", when: { type: ["restricted", "danger"] }, color: "orange" },
          { type: "special_use_airspace", color: "yellow" },
        ],
      }),
      rule(2, { triggers: [{ type: "airport", color: "yellow" }] }),
    ],
  };

  it("takes the most restrictive matching trigger, matching properties exactly or among a list", () => {
    const advise = (properties: Record<string, unknown>) =>
      adviseUnder(specialUse, { type: "special_use_airspace", properties });
    expect(advise({ type: "prohibited" })).toEqual({ ruleId: 1, color: "red" });
    expect(advise({ type: "danger" })).toEqual({ ruleId: 1, color: "orange" });
    expect(advise({ type: "moa" })).toEqual({ ruleId: 1, color: "yellow" });
    expect(adviseUnder(specialUse, { type: "airport", properties: {} })).toEqual({
      ruleId: 2,
      color: "yellow",
    });
  });

  it("is none when the ruleset has no rule for the type", () => {
    expect(adviseUnder(specialUse, { type: "school", properties: {} })).toBeUndefined();
  });
});

describe("rule statuses", () => {
  const context = { features: {}, triggeredColors: [], authorizations: {} };
  const altitude = rule(1, { condition: { feature: "flight_max_altitude_agl", op: "lte", value: 121.92 } });

  it("checks a condition against the flight's features: conflicting, not conflicting or missing", () => {
    expect(ruleStatus(altitude, { ...context, features: { flight_max_altitude_agl: 100 } })).toBe(
      "not_conflicting",
    );
    expect(ruleStatus(altitude, { ...context, features: { flight_max_altitude_agl: 150 } })).toBe(
      "conflicting",
    );
    expect(ruleStatus(altitude, context)).toBe("missing_info");
    expect(ruleStatus(altitude, { ...context, features: { flight_max_altitude_agl: "120" } })).toBe(
      "not_conflicting",
    );
  });

  it("applies a conditional rule only when its `when` holds", () => {
    const registration = rule(2, {
      condition: {
        feature: "uav_registered",
        op: "eq",
        value: true,
        when: { feature: "uav_weight", op: "gt", value: 0.25 },
      },
    });
    expect(ruleStatus(registration, { ...context, features: { uav_weight: 0.2 } })).toBe("not_conflicting");
    expect(ruleStatus(registration, { ...context, features: { uav_weight: 0.9 } })).toBe("missing_info");
    expect(
      ruleStatus(registration, { ...context, features: { uav_weight: 0.9, uav_registered: false } }),
    ).toBe("conflicting");
    expect(
      ruleStatus(registration, { ...context, features: { uav_weight: 0.9, uav_registered: "true" } }),
    ).toBe("not_conflicting");
    expect(ruleStatus(registration, context)).toBe("missing_info");
  });

  it("informs when a rule has nothing to check, or only a yellow advisory raised it", () => {
    expect(ruleStatus(rule(3, {}), context)).toBe("informational");
    const airports = rule(4, { triggers: [{ type: "airport", color: "yellow" }] });
    expect(ruleStatus(airports, { ...context, triggeredColors: ["yellow"] })).toBe("informational");
    expect(ruleStatus(airports, context)).toBe("not_conflicting");
    const tfr = rule(5, { triggers: [{ type: "tfr", color: "red" }] });
    expect(ruleStatus(tfr, { ...context, triggeredColors: ["red"] })).toBe("conflicting");
  });

  it("settles an authorization rule by its features: held, LAANC's answer, or still required (CONTRACT §11)", () => {
    const laanc = rule(6, {
      flight_features: ["flight_authorized"],
      condition: { authorization: "faa-laanc" },
      triggers: [{ type: "controlled_airspace", color: "orange" }],
    });
    const verdict = (
      name: string,
      features: Record<string, unknown>,
      statuses: AuthorizationStatus[] | null,
      submitted = false,
    ) => featureVerdict(laanc, name, features, true, { statuses, submitted });
    const answers = { flight_authorized: false, flight_max_altitude_agl: 20 };
    expect(verdict("flight_authorized", answers, ["accepted"])).toEqual({
      status: "conflicting",
      code: "laanc_authorization_required",
    });
    expect(verdict("flight_authorized", answers, ["accepted"], true)).toEqual({
      status: "not_conflicting",
      code: "laanc_authorized",
    });
    expect(verdict("flight_authorized", answers, ["accepted", "pending"], true)).toEqual({
      status: "missing_info",
      code: "laanc_authorization_pending",
    });
    expect(verdict("flight_authorized", answers, ["rejected"], true)).toEqual({
      status: "conflicting",
      code: "laanc_authorization_rejected",
    });
    expect(verdict("flight_authorized", answers, ["not_requested"])).toEqual({
      status: "conflicting",
      code: "manual_authorization_required",
    });
    expect(verdict("flight_authorized", { flight_authorized: "true" }, ["rejected"])).toEqual({
      status: "not_conflicting",
      code: "authorization_held",
    });
    expect(verdict("flight_max_altitude_agl", answers, ["rejected"])).toEqual({
      status: "conflicting",
      code: "above_facility_map_ceiling",
    });
    expect(verdict("flight_max_altitude_agl", answers, ["accepted"]).code).toBe(
      "within_facility_map_ceiling",
    );
    expect(
      featureVerdict(laanc, "flight_authorized", answers, false, { statuses: [], submitted: false }),
    ).toEqual({
      status: "not_conflicting",
      code: "not_applicable",
    });
    expect(worstStatus(["not_conflicting", "conflicting", "missing_info"])).toBe("conflicting");
    expect(worstStatus([])).toBe("not_conflicting");
  });

  it("gives each tested feature a code saying why", () => {
    const night = rule(10, {
      flight_features: ["flight_at_night", "uav_anticollision_lighting"],
      condition: {
        feature: "uav_anticollision_lighting",
        op: "eq",
        value: true,
        when: { feature: "flight_at_night", op: "eq", value: true },
      },
    });
    const decision = { statuses: [], submitted: false };
    const at = (name: string, features: Record<string, unknown>) =>
      featureVerdict(night, name, features, true, decision);
    expect(
      at("uav_anticollision_lighting", { flight_at_night: true, uav_anticollision_lighting: false }),
    ).toEqual({
      status: "conflicting",
      code: "not_as_required",
    });
    expect(at("uav_anticollision_lighting", { flight_at_night: false })).toEqual({
      status: "not_conflicting",
      code: "not_applicable",
    });
    expect(at("flight_at_night", {})).toEqual({ status: "missing_info", code: "missing_info" });
    expect(at("flight_at_night", { flight_at_night: true }).code).toBe("condition_applies");
    const ceiling = rule(11, {
      flight_features: ["flight_max_altitude_agl"],
      condition: { feature: "flight_max_altitude_agl", op: "lte", value: 121.92 },
    });
    expect(
      featureVerdict(ceiling, "flight_max_altitude_agl", { flight_max_altitude_agl: 150 }, true, decision),
    ).toEqual({
      status: "conflicting",
      code: "above_limit",
    });
  });

  it("compares every way a condition can", () => {
    const features = { speed: 10 };
    const test = (op: "lt" | "lte" | "gt" | "gte" | "eq", value: number) =>
      testFeature({ feature: "speed", op, value }, features);
    expect([test("lt", 10), test("lte", 10), test("gt", 9), test("gte", 11), test("eq", 10)]).toEqual([
      false,
      true,
      true,
      false,
      true,
    ]);
  });
});

describe("default selection by selection type", () => {
  it("selects every required ruleset, one pick1 per jurisdiction (the default), and default optionals", () => {
    const rulesets = [
      ruleset("usa_part_107", "pick1", true),
      ruleset("usa_sec_44809", "pick1", false),
      ruleset("usa_national_parks", "required", true),
      ruleset("usa_advisories", "optional", true),
      ruleset("usa_extra", "optional", false),
      ruleset("gbr_open_category", "pick1", false, 826),
      ruleset("gbr_specific_category", "pick1", false, 826),
    ];
    expect(defaultSelection(rulesets).map((r) => r.id)).toEqual([
      "usa_part_107",
      "usa_national_parks",
      "usa_advisories",
      "gbr_open_category",
    ]);
  });
});

describe("flight features as the SDKs read them", () => {
  const speed = {
    flight_feature: "flight_max_speed",
    description: "Fastest ground speed",
    input_type: "float" as const,
    measurement_type: "speed",
    measurement_unit: "meters_per_second",
  };

  it("gives each feature a stable 32-bit id, its code, the SDKs' unit spelling and whether it is calculated", () => {
    const view = featureView(speed, false);
    expect(view).toEqual({
      id: featureId("flight_max_speed"),
      code: "flight_max_speed",
      flight_feature: "flight_max_speed",
      description: "Fastest ground speed",
      input_type: "float",
      measurement_type: "speed",
      measurement_unit: "meters_per_sec",
      is_calculated: false,
    });
    expect(Number.isInteger(view.id) && view.id >= 1 && view.id <= 0x7fffffff).toBe(true);
    expect(featureId("flight_max_speed")).toBe(featureId("flight_max_speed"));
    expect(featureId("flight_max_speed")).not.toBe(featureId("flight_max_altitude_agl"));
    expect(
      featureView({ ...speed, measurement_type: "volume", measurement_unit: "litres" }, true),
    ).toMatchObject({
      measurement_type: null,
      measurement_unit: null,
      is_calculated: true,
    });
  });

  it("lists the altitude under a LAANC rule, which LAANC decides by", () => {
    const laanc = rule(7, { condition: { authorization: "faa-laanc" } });
    expect(featuresOf(laanc)).toEqual(["flight_max_altitude_agl"]);
    expect(featuresOf(rule(8, { flight_features: ["uav_weight"] }))).toEqual(["uav_weight"]);
  });

  it("asks for the altitude when LAANC could not decide without it", () => {
    const laanc = rule(9, {
      condition: { authorization: "faa-laanc" },
      triggers: [{ type: "controlled_airspace", color: "orange" }],
    });
    const undecided = { statuses: null, submitted: false };
    expect(featureVerdict(laanc, "flight_max_altitude_agl", {}, true, undecided).status).toBe("missing_info");
    expect(featureVerdict(laanc, "flight_authorized", {}, true, undecided).code).toBe(
      "laanc_authorization_required",
    );
  });
});

describe("statuses on the wire", () => {
  it("maps every service authorization state to one all SDK decoders know, by submission", () => {
    const states = ["accepted", "pending", "rejected", "not_requested", "cancelled"] as const;
    expect(states.map((s) => wireAuthorizationStatus(s, false))).toEqual([
      "accepted_upon_submission",
      "pending",
      "rejected_upon_submission",
      "rejected_upon_submission",
      "rejected_upon_submission",
    ]);
    expect(states.map((s) => wireAuthorizationStatus(s, true))).toEqual([
      "accepted",
      "pending",
      "rejected",
      "rejected",
      "rejected",
    ]);
    expect(wireAuthorizationMessage("not_requested", "apply through FAADroneZone")).toBe(
      "Not requested through LAANC: apply through FAADroneZone",
    );
  });

  it("maps validation states to valid, invalid or unknown", () => {
    expect(
      (["valid", "missing", "unverified", "malformed", "unchecked"] as const).map(wireValidationStatus),
    ).toEqual(["valid", "invalid", "invalid", "invalid", "unknown"]);
  });
});
