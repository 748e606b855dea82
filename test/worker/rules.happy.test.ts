import { beforeAll, describe, expect, it } from "vitest";
import {
  FALLON_CELL_AREA,
  FALLON_TWO_CELLS_AREA,
  LONDON_AREA,
  loadAirspaceFixtures,
  PARIS_AREA,
} from "./airspaceFixtures";
import { airspaceRequests } from "./airspaceRequests";
import { createPlan } from "./flightFixtures";
import { call, createAccount, type TestAccount, tokenFor } from "./helpers";

let account: TestAccount;
let pilot: { token: string; pilotId: string };
beforeAll(async () => {
  await loadAirspaceFixtures();
  account = await createAccount();
  pilot = await tokenFor(account, "evaluated-pilot");
});

const { rules } = airspaceRequests(() => account.apiKey);

describe("POST /rules/v1/", () => {
  it("lists the rulesets of the jurisdictions an area meets, with every field of spec 2.4", async () => {
    const res = await rules({ geometry: FALLON_CELL_AREA });
    expect(res.status).toBe(200);
    const rulesets = res.json.data as any[];
    expect(rulesets.map((r) => [r.id, r.selection_type, r.default])).toEqual([
      ["usa_part_107", "pick1", true],
      ["usa_sec_44809", "pick1", false],
      ["usa_sec_91", "pick1", false],
      ["usa_national_parks", "required", true],
      ["usa_advisories", "optional", true],
    ]);
    const part107 = rulesets[0];
    expect(part107).toMatchObject({
      name: "U.S. Small UAS Rule (Part 107)",
      short_name: "Part 107",
      jurisdiction: { id: 840, name: "United States", region: "federal" },
    });
    expect(part107.description).toBeTruthy();
    expect(part107.airspace_types).toEqual(
      expect.arrayContaining(["controlled_airspace", "laanc", "tfr", "airport"]),
    );
    expect(part107.flight_features).toContainEqual({
      id: expect.any(Number),
      code: "flight_max_altitude_agl",
      flight_feature: "flight_max_altitude_agl",
      description: "Highest altitude above ground level the aircraft will reach",
      input_type: "float",
      measurement_type: "distance",
      measurement_unit: "meters",
      is_calculated: true,
    });
    // The SDKs spell it meters_per_sec (C++ ruleset.cpp, Kotlin Rules.kt).
    expect(part107.flight_features).toContainEqual(
      expect.objectContaining({
        code: "flight_max_speed",
        measurement_unit: "meters_per_sec",
        is_calculated: false,
      }),
    );
    // The LAANC rule names whether an authorization is held, and the altitude LAANC decides by.
    expect(part107.rules.find((r: any) => r.id === 10710).flight_features.map((f: any) => f.code)).toEqual([
      "flight_authorized",
      "flight_max_altitude_agl",
    ]);
    expect(part107.flight_features).toContainEqual(
      expect.objectContaining({
        flight_feature: "uav_weight",
        measurement_type: "weight",
        measurement_unit: "kilograms",
      }),
    );
    expect(part107.rules[0]).toMatchObject({
      id: 10701,
      short_text: "Stay at or below 400 ft (121.9 m) above ground level",
      display_order: 1,
      flight_features: [expect.objectContaining({ flight_feature: "flight_max_altitude_agl" })],
    });
    expect(part107.rules.map((r: any) => r.display_order)).toEqual(
      part107.rules.map((_: any, i: number) => i + 1),
    );
    expect(rulesets[4].flight_features).toEqual([]);
  });

  it("gives the UK's rulesets in the UK, and none where no jurisdiction is loaded", async () => {
    const uk = await rules({ geometry: LONDON_AREA }, "/rules/v1");
    expect(uk.json.data.map((r: any) => [r.id, r.selection_type])).toEqual([
      ["gbr_open_category", "pick1"],
      ["gbr_specific_category", "pick1"],
      ["gbr_flight_restriction_zones", "required"],
    ]);
    expect(uk.json.data[0].jurisdiction).toEqual({ id: 826, name: "United Kingdom", region: "federal" });
    expect((await rules({ geometry: PARIS_AREA })).json.data).toEqual([]);
  });
});

describe("GET /rules/v1/{ruleset_id} and GET /rules/v1/rule?rulesets=", () => {
  const listed = async () => (await rules({ geometry: FALLON_CELL_AREA })).json.data as any[];

  it("serves one ruleset, the same object POST /rules/v1/ lists", async () => {
    const res = await call("/rules/v1/usa_part_107", { apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual((await listed()).find((r) => r.id === "usa_part_107"));
    expect(res.json.data.rules).toHaveLength(14);
    // The C++ SDK's empty query: a bare `?`.
    expect((await call("/rules/v1/usa_part_107?", { apiKey: account.apiKey })).json.data).toEqual(
      res.json.data,
    );
  });

  it("serves several by a comma-separated list, in display order, with the same data", async () => {
    const all = await listed();
    const res = await call("/rules/v1/rule?rulesets=usa_advisories,usa_part_107", { apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual([all[0], all[4]]);
    const encoded = await call("/rules/v1/rule?rulesets=usa_part_107%2Cusa_advisories", {
      apiKey: account.apiKey,
    });
    expect(encoded.json.data.map((r: any) => r.id)).toEqual(["usa_part_107", "usa_advisories"]);
  });
});

describe("POST /rules/v1/evaluation", () => {
  const evaluate = (body: unknown) =>
    call("/rules/v1/evaluation", { method: "POST", apiKey: account.apiKey, body });
  const rule = (evaluation: any, id: number) =>
    evaluation.rulesets.flatMap((r: any) => r.rules).find((r: any) => r.id === id);
  const feature = (evaluation: any, ruleId: number, name: string) =>
    rule(evaluation, ruleId).flight_features.find((f: any) => f.flight_feature === name);

  it("evaluates as the C++ SDK sends it: rulesets as a comma string, doubles with .0", async () => {
    const body = `{"geometry":${JSON.stringify(FALLON_CELL_AREA)},"rulesets":"usa_part_107,usa_advisories","flight_features":{"flight_max_altitude_agl":100.0,"uav_weight":1.0,"pilot_remote_certificate":true}}`;
    const res = await evaluate(body);
    expect(res.status).toBe(200);
    const evaluation = res.json.data;
    expect(evaluation.rulesets.map((r: any) => r.id)).toEqual(["usa_part_107", "usa_advisories"]);
    expect(evaluation.rulesets[0]).toMatchObject({
      name: "U.S. Small UAS Rule (Part 107)",
      selection_type: "pick1",
      jurisdiction: { id: 840, region: "federal" },
    });
    expect(rule(evaluation, 10701).status).toBe("not_conflicting");
    expect(rule(evaluation, 10703).status).toBe("not_conflicting");
    expect(rule(evaluation, 10704).status).toBe("missing_info");
    expect(feature(evaluation, 10704, "flight_vlos")).toMatchObject({
      status: "missing_info",
      input_type: "bool",
      is_calculated: false,
      id: expect.any(Number),
    });
    // 100 m (328 ft) under the cell's 400 ft: LAANC would authorize it on submission.
    expect(evaluation.authorizations).toEqual([
      {
        status: "accepted_upon_submission",
        authority: { id: "faa-laanc", name: "FAA LAANC", facility: "FAA LAANC" },
        message: expect.stringMatching(/Authorized automatically.*400 ft/),
        description: expect.stringMatching(/KNFL/),
      },
    ]);
    // Authorized only once submitted: until then the authorization is required (CONTRACT §11).
    expect(feature(evaluation, 10710, "flight_authorized")).toMatchObject({
      status: "conflicting",
      code: "laanc_authorization_required",
    });
    expect(feature(evaluation, 10710, "flight_max_altitude_agl").code).toBe("within_facility_map_ceiling");
    expect(rule(evaluation, 10710).status).toBe("conflicting");
    expect(evaluation).toMatchObject({ color: "orange", airspace: { color: "orange" } });
    expect(evaluation.airspace.advisories.map((a: any) => a.name)).toContain("FALLON CLASS D");
    // No pilot to check for an area: the validations are unknown, and say so in `failures`.
    expect(evaluation.validations.map((v: any) => [v.feature.code, v.status])).toEqual([
      ["phone_number", "unknown"],
      ["faa_registration_number", "unknown"],
    ]);
    expect(evaluation.failures).toEqual(["validation"]);
  });

  it("changes rule statuses and authorizations with the flight's features", async () => {
    const over = (
      await evaluate({
        geometry: FALLON_CELL_AREA,
        rulesets: ["usa_part_107"],
        flight_features: {
          flight_max_altitude_agl: 150,
          uav_weight: 30,
          pilot_remote_certificate: false,
          flight_at_night: true,
          uav_anticollision_lighting: false,
          flight_over_people: false,
        },
      })
    ).json.data;
    expect(rule(over, 10701).status).toBe("conflicting");
    expect(feature(over, 10701, "flight_max_altitude_agl").status).toBe("conflicting");
    expect(rule(over, 10702).status).toBe("conflicting");
    expect(rule(over, 10703).status).toBe("conflicting");
    expect(rule(over, 10706).status).toBe("conflicting");
    expect(rule(over, 10705).status).toBe("not_conflicting");
    // 492 ft is above anything LAANC authorizes.
    expect(over.authorizations.map((a: any) => a.status)).toEqual(["rejected_upon_submission"]);
    expect(rule(over, 10710).status).toBe("conflicting");
    expect(feature(over, 10710, "flight_max_altitude_agl").status).toBe("conflicting");

    // Above the lowest cell (200 ft) but under 400: further coordination under Part 107.
    const coordinated = (
      await evaluate({
        geometry: FALLON_TWO_CELLS_AREA,
        rulesets: "usa_part_107",
        // Further coordination takes requests 72 hours ahead at the earliest (1 pm in Fallon).
        start: new Date(Math.ceil(Date.now() / 86_400_000 + 4) * 86_400_000 + 20 * 3_600_000).toISOString(),
        flight_features: { flight_max_altitude_agl: 91.44, flight_at_night: "false" },
      })
    ).json.data;
    expect(coordinated.authorizations.map((a: any) => a.status)).toEqual(["pending"]);
    expect(feature(coordinated, 10710, "flight_max_altitude_agl")).toMatchObject({
      status: "missing_info",
      code: "further_coordination",
    });
    // Not submitted: the authorization is still to be obtained.
    expect(feature(coordinated, 10710, "flight_authorized")).toMatchObject({
      status: "conflicting",
      code: "laanc_authorization_required",
      value: null,
    });
    expect(rule(coordinated, 10710).status).toBe("conflicting");
    // An authorization the pilot already holds satisfies the rule.
    const held = (
      await evaluate({
        geometry: FALLON_TWO_CELLS_AREA,
        rulesets: "usa_part_107",
        flight_features: { flight_max_altitude_agl: 91.44, flight_authorized: true },
      })
    ).json.data;
    expect(feature(held, 10710, "flight_authorized")).toMatchObject({
      status: "not_conflicting",
      code: "authorization_held",
      value: true,
    });
    expect(rule(held, 10710).status).toBe("not_conflicting");
    expect(rule(coordinated, 10706).status).toBe("not_conflicting");
    // …and refused for recreational flyers.
    const recreational = (
      await evaluate({
        geometry: FALLON_TWO_CELLS_AREA,
        rulesets: "usa_sec_44809",
        flight_features: { flight_max_altitude_agl: 91.44 },
      })
    ).json.data;
    expect(recreational.authorizations.map((a: any) => a.status)).toEqual(["rejected_upon_submission"]);
    expect(rule(recreational, 44807).status).toBe("conflicting");
  });

  it("asks for what is missing: every condition feature, and the altitude LAANC needs", async () => {
    const res = await evaluate({ geometry: FALLON_CELL_AREA, rulesets: "usa_part_107" });
    const evaluation = res.json.data;
    const part107 = evaluation.rulesets[0].rules;
    for (const id of [10701, 10702, 10703, 10704, 10707, 10708, 10709])
      expect(part107.find((r: any) => r.id === id).status).toBe("missing_info");
    // `when` features are asked first: over people? at night?
    expect(rule(evaluation, 10705).status).toBe("missing_info");
    expect(feature(evaluation, 10706, "flight_at_night").status).toBe("missing_info");
    expect(feature(evaluation, 10710, "flight_max_altitude_agl").status).toBe("missing_info");
    expect(feature(evaluation, 10710, "flight_authorized").code).toBe("laanc_authorization_required");
    expect(rule(evaluation, 10710).status).toBe("conflicting");
    // Undecided, never absent: a client must not read "no authorization needed".
    expect(evaluation.authorizations).toEqual([
      expect.objectContaining({
        status: "pending",
        message: expect.stringMatching(/flight_max_altitude_agl/),
      }),
    ]);
    // Rules that meet no airspace of theirs need nothing.
    expect(rule(evaluation, 10711).status).toBe("not_conflicting");
    expect(rule(evaluation, 10714).status).toBe("informational");
  });

  it("works out night from the flight's times (microseconds as the C++ SDK writes them)", async () => {
    const at = (start: string) =>
      evaluate({
        geometry: FALLON_CELL_AREA,
        rulesets: "usa_part_107",
        start,
        flight_features: { flight_max_altitude_agl: 50 },
      });
    // Fallon, 1 am local time.
    const night = (await at("2026-06-22T08:00:00.123456Z")).json.data;
    expect(feature(night, 10706, "flight_at_night")).toMatchObject({
      status: "not_conflicting",
      is_calculated: true,
    });
    expect(rule(night, 10706).status).toBe("missing_info");
    expect(feature(night, 10706, "uav_anticollision_lighting").status).toBe("missing_info");
    // Fallon, 1 pm local time.
    const day = (await at("2026-06-21T20:00:00.000000Z")).json.data;
    expect(rule(day, 10706).status).toBe("not_conflicting");
  });
});

describe("GET /rules/v1/{flight_plan_id}/evaluation", () => {
  it("evaluates the account's plan with the API key alone, from its own fields and features", async () => {
    const plan = await createPlan(account, pilot.token, {
      takeoff_latitude: 39.479,
      takeoff_longitude: -118.787,
      geometry: FALLON_CELL_AREA,
      max_altitude_agl: 150,
      rulesets: ["usa_part_107"],
      flight_features: { uav_weight: 2, pilot_remote_certificate: true },
    });
    // The raw `|` the C++ SDK writes into the path.
    const res = await call(`/rules/v1/${plan.id}/evaluation`, { apiKey: account.apiKey });
    expect(res.status).toBe(200);
    const rules = res.json.data.rulesets[0].rules;
    const status = (id: number) => rules.find((r: any) => r.id === id).status;
    expect([status(10701), status(10702), status(10703), status(10704)]).toEqual([
      "conflicting",
      "not_conflicting",
      "not_conflicting",
      "missing_info",
    ]);
    expect(rules[0].flight_features[0]).toMatchObject({
      flight_feature: "flight_max_altitude_agl",
      code: "above_limit",
      value: 150,
      is_calculated: true,
    });
    expect(res.json.data.authorizations.map((a: any) => a.status)).toEqual(["rejected_upon_submission"]);
    expect(res.json.data.validations.map((v: any) => [v.feature.code, v.status])).toEqual([
      ["phone_number", "invalid"],
      ["faa_registration_number", "invalid"],
    ]);
    expect(res.json.data.failures).toEqual([]);
    const encoded = await call(`/rules/v1/${encodeURIComponent(plan.id)}/evaluation`, {
      apiKey: account.apiKey,
    });
    expect(encoded.json.data).toEqual({ ...res.json.data, created_at: expect.any(String) });
  });

  it("with a pilot's token, evaluates only that pilot's plan: 403 for another pilot's, even with the owner's API key", async () => {
    const plan = await createPlan(account, pilot.token, { geometry: FALLON_CELL_AREA });
    const url = `/rules/v1/${encodeURIComponent(plan.id)}/evaluation`;
    expect((await call(url, { apiKey: account.apiKey, token: pilot.token })).status).toBe(200);
    const other = await tokenFor(account, "someone-else-evaluating");
    const refused = await call(url, { apiKey: account.apiKey, token: other.token });
    expect(refused.status).toBe(403);
    expect(refused.json.status).toBe("fail");
  });
});
