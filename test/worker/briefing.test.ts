import { beforeAll, describe, expect, it } from "vitest";
import { FALLON_CELL_AREA, FALLON_TWO_CELLS_AREA, loadAirspaceFixtures } from "./airspaceFixtures";
import { createPlan, flightAt } from "./flightFixtures";
import { call, createAccount, type TestAccount, tokenFor } from "./helpers";

const FT = 0.3048;
let account: TestAccount;
let pilot: { token: string; pilotId: string };
beforeAll(async () => {
  await loadAirspaceFixtures();
  account = await createAccount();
  pilot = await tokenFor(account, "briefed-pilot");
});

const fallonPlan = (overrides: Record<string, unknown>) =>
  createPlan(account, pilot.token, {
    takeoff_latitude: 39.479,
    takeoff_longitude: -118.787,
    rulesets: ["usa_part_107"],
    flight_features: { pilot_remote_certificate: true, uav_weight: 1.2, flight_vlos: true },
    ...overrides,
  });
/** Posts a plan taking off at Fallon now, 50 m up, as given: for answers that refuse it. */
const postFallonPlan = (body: Record<string, unknown>) =>
  call("/flight/v2/plan", {
    method: "POST",
    apiKey: account.apiKey,
    token: pilot.token,
    body: {
      takeoff_latitude: 39.479,
      takeoff_longitude: -118.787,
      start_time: "now",
      end_time: "now",
      max_altitude_agl: 50,
      ...body,
    },
  });
const briefingOf = (planId: string, token = pilot.token) =>
  call(`/flight/v2/plan/${encodeURIComponent(planId)}/briefing`, { apiKey: account.apiKey, token });
const submit = (planId: string) =>
  call(`/flight/v2/plan/${encodeURIComponent(planId)}/submit`, {
    method: "POST",
    apiKey: account.apiKey,
    token: pilot.token,
  });
const statusOf = (rules: any[], id: number) => rules.find((r) => r.id === id)?.status;
/** Further coordination takes requests at least 72 hours ahead: plans that need it fly in four days. */
const IN_FOUR_DAYS = {
  start_time: new Date(Date.now() + 4 * 86_400_000).toISOString(),
  end_time: new Date(Date.now() + 4 * 86_400_000 + 3_600_000).toISOString(),
};

describe("GET /flight/v2/plan/{id}/briefing", () => {
  it("briefs a plan over the Fallon cells: color, advisories, rule statuses, validations, expected authorization", async () => {
    const plan = await fallonPlan({
      geometry: FALLON_TWO_CELLS_AREA,
      max_altitude_agl: 300 * FT,
      ...IN_FOUR_DAYS,
    });
    const res = await briefingOf(plan.id);
    expect(res.status).toBe(200);
    const briefing = res.json.data;
    expect(briefing.color).toBe("orange");
    expect(briefing.advisories.find((a: any) => a.name === "FALLON CLASS D")).toMatchObject({
      rule_id: 10710,
      properties: { ceiling: 200 },
      extents: { floor_m: 0 },
    });
    const rules = briefing.rulesets[0].rules;
    expect(briefing.rulesets[0].id).toBe("usa_part_107");
    expect(statusOf(rules, 10701)).toBe("not_conflicting");
    expect(statusOf(rules, 10702)).toBe("not_conflicting");
    expect(statusOf(rules, 10703)).toBe("not_conflicting");
    expect(statusOf(rules, 10708)).toBe("missing_info");
    expect(statusOf(rules, 10711)).toBe("not_conflicting");
    expect(statusOf(rules, 10714)).toBe("informational");
    // Above the lowest cell (200 ft): LAANC would send it to further coordination, and until then
    // the authorization is still required.
    expect(statusOf(rules, 10710)).toBe("conflicting");
    expect(
      rules
        .find((r: any) => r.id === 10710)
        .flight_features.map((f: any) => [f.flight_feature, f.code, f.status]),
    ).toEqual([
      ["flight_authorized", "laanc_authorization_required", "conflicting"],
      ["flight_max_altitude_agl", "further_coordination", "missing_info"],
    ]);
    expect(rules[0]).toEqual({
      id: 10701,
      short_text: "Stay at or below 400 ft (121.9 m) above ground level",
      description: expect.any(String),
      status: "not_conflicting",
      display_order: 1,
      flight_features: [
        expect.objectContaining({
          flight_feature: "flight_max_altitude_agl",
          code: "within_limit",
          status: "not_conflicting",
          is_calculated: true,
        }),
      ],
    });
    // Both places the SDKs read the color: the top level (Kotlin) and `airspace` (C++, Swift).
    expect(briefing).toMatchObject({
      flight_plan_id: plan.id,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      airspace: { color: "orange", advisories: briefing.advisories },
    });
    expect(briefing.rulesets[0]).toMatchObject({
      name: "U.S. Small UAS Rule (Part 107)",
      selection_type: "pick1",
    });
    // Not submitted, and LAANC would send it to further coordination: pending, never "accepted".
    expect(briefing.authorizations).toHaveLength(1);
    expect(briefing.authorizations[0]).toMatchObject({
      status: "pending",
      authority: { id: "faa-laanc", name: "FAA LAANC" },
      description: expect.stringMatching(/KNFL/),
    });
    expect(briefing.authorizations[0].message).toMatch(/200 ft/);
    expect(briefing.validations.map((v: any) => [v.feature.code, v.status])).toEqual([
      ["phone_number", "invalid"],
      ["faa_registration_number", "invalid"],
    ]);
    expect(briefing.validations[0].message).toMatch(/^Missing/);
    expect(briefing.failures).toEqual([]);
  });

  it("says what submitting would bring: accepted or rejected upon submission", async () => {
    const low = await fallonPlan({ geometry: FALLON_CELL_AREA, max_altitude_agl: 60 });
    expect((await briefingOf(low.id)).json.data.authorizations.map((a: any) => a.status)).toEqual([
      "accepted_upon_submission",
    ]);
    const tooHigh = await fallonPlan({ geometry: FALLON_CELL_AREA, max_altitude_agl: 150 });
    expect((await briefingOf(tooHigh.id)).json.data.authorizations.map((a: any) => a.status)).toEqual([
      "rejected_upon_submission",
    ]);
  });

  it("reads a conflict from the plan's own features", async () => {
    const plan = await fallonPlan({
      geometry: FALLON_CELL_AREA,
      max_altitude_agl: 150,
      flight_features: { pilot_remote_certificate: false, uav_weight: 30 },
    });
    const rules = (await briefingOf(plan.id)).json.data.rulesets[0].rules;
    expect([
      statusOf(rules, 10701),
      statusOf(rules, 10702),
      statusOf(rules, 10703),
      statusOf(rules, 10704),
    ]).toEqual(["conflicting", "conflicting", "conflicting", "missing_info"]);
  });

  it("briefs a plan without rulesets under the default selection where it flies", async () => {
    const plan = await fallonPlan({ geometry: FALLON_CELL_AREA, max_altitude_agl: 50, rulesets: [] });
    const briefing = (await briefingOf(plan.id)).json.data;
    expect(briefing.rulesets.map((r: any) => r.id)).toEqual([
      "usa_part_107",
      "usa_national_parks",
      "usa_advisories",
    ]);
  });

  it("is the pilot's own: 401 without a token, 403 for another pilot, 404 for an unknown plan", async () => {
    const plan = await fallonPlan({ geometry: FALLON_CELL_AREA, max_altitude_agl: 50 });
    expect(
      (await call(`/flight/v2/plan/${encodeURIComponent(plan.id)}/briefing`, { apiKey: account.apiKey }))
        .status,
    ).toBe(401);
    const other = await tokenFor(account, "someone-else");
    expect((await briefingOf(plan.id, other.token)).status).toBe(403);
    expect((await briefingOf("flight_plan|nope")).status).toBe(404);
  });
});

describe("LAANC on submit (CONTRACT §7)", () => {
  it("authorizes automatically at or below the lowest ceiling, and stores it with the flight", async () => {
    const plan = await fallonPlan({ geometry: FALLON_CELL_AREA, max_altitude_agl: 400 * FT });
    const submitted = await submit(plan.id);
    expect(submitted.status).toBe(200);
    const flight = await call(`/flight/v2/${encodeURIComponent(submitted.json.data.flight_id)}`, {
      apiKey: account.apiKey,
      token: pilot.token,
    });
    expect(flight.json.data).toMatchObject({ city: "Fallon", state: "Nevada", country: "USA" });
    const briefing = (await briefingOf(plan.id)).json.data;
    expect(briefing.authorizations).toEqual([
      {
        description: "LAANC authorization at KNFL FALLON NAS (VAN VOORHIS FLD) up to 400 ft AGL",
        status: "accepted",
        message: "Authorized automatically: the lowest facility-map ceiling over the area is 400 ft",
        authority: { id: "faa-laanc", name: "FAA LAANC", facility: "FAA LAANC" },
      },
    ]);
    expect(statusOf(briefing.rulesets[0].rules, 10710)).toBe("not_conflicting");
  });

  it("lets the lowest cell decide: above it, pending under Part 107 and rejected for recreational flyers", async () => {
    const professional = await fallonPlan({
      geometry: FALLON_TWO_CELLS_AREA,
      max_altitude_agl: 300 * FT,
      ...IN_FOUR_DAYS,
    });
    await submit(professional.id);
    expect((await briefingOf(professional.id)).json.data.authorizations[0].status).toBe("pending");
    const recreational = await fallonPlan({
      geometry: FALLON_TWO_CELLS_AREA,
      max_altitude_agl: 300 * FT,
      rulesets: ["usa_sec_44809"],
    });
    await submit(recreational.id);
    const briefing = (await briefingOf(recreational.id)).json.data;
    expect(briefing.authorizations[0].status).toBe("rejected");
    expect(statusOf(briefing.rulesets[0].rules, 44807)).toBe("conflicting");
  });

  it("asks nothing outside controlled airspace", async () => {
    const plan = await createPlan(account, pilot.token, { rulesets: ["usa_part_107"] });
    await submit(plan.id);
    expect((await briefingOf(plan.id)).json.data.authorizations).toEqual([]);
  });

  it("refuses plans too wide for airspace queries", async () => {
    const res = await postFallonPlan({
      geometry: {
        type: "Polygon",
        coordinates: [
          [
            [-120, 39],
            [-118, 39],
            [-118, 39.5],
            [-120, 39.5],
            [-120, 39],
          ],
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.json.data.errors.map((e: any) => e.name)).toEqual(["geometry"]);
  });

  it("refuses plans naming unknown rulesets", async () => {
    const res = await postFallonPlan({
      geometry: FALLON_CELL_AREA,
      rulesets: ["usa_part_107", "usa_part_999"],
    });
    expect(res.status).toBe(400);
    expect(res.json.data.errors).toEqual([
      { name: "rulesets", message: "unknown ruleset usa_part_999; POST /rules/v1/ lists those for an area" },
    ]);
  });
});

describe("GET /flight/v2/plan/batch/authorizations", () => {
  const batch = (ids: string[], token = pilot.token, apiKey = account.apiKey) =>
    call(`/flight/v2/plan/batch/authorizations?flight_plan_ids=${ids.join(",")}`, { apiKey, token });

  it("answers each of the pilot's plans in the order asked: stored once submitted, expected before", async () => {
    const submitted = await fallonPlan({ geometry: FALLON_CELL_AREA, max_altitude_agl: 60 });
    await submit(submitted.id);
    const planned = await fallonPlan({
      geometry: FALLON_TWO_CELLS_AREA,
      max_altitude_agl: 300 * FT,
      ...IN_FOUR_DAYS,
    });
    const outside = await createPlan(account, pilot.token, { rulesets: ["usa_part_107"] });
    const res = await batch([planned.id, submitted.id, outside.id]);
    expect(res.status).toBe(200);
    expect(
      res.json.data.map((e: any) => [e.flight_plan_id, e.authorizations.map((a: any) => a.status)]),
    ).toEqual([
      [planned.id, ["pending"]],
      [submitted.id, ["accepted"]],
      [outside.id, []],
    ]);
    expect(res.json.data[1].authorizations[0]).toMatchObject({
      authority: { id: "faa-laanc", name: "FAA LAANC" },
      description: expect.any(String),
      message: expect.any(String),
    });
    const rejected = await fallonPlan({ geometry: FALLON_CELL_AREA, max_altitude_agl: 150 });
    expect((await batch([rejected.id])).json.data[0].authorizations[0].status).toBe(
      "rejected_upon_submission",
    );
  });

  it("is the pilot's own: unknown and deleted plans left out, 403 for another pilot's, 400 without ids", async () => {
    const plan = await fallonPlan({ geometry: FALLON_CELL_AREA, max_altitude_agl: 60 });
    const deleted = await fallonPlan({ geometry: FALLON_CELL_AREA, max_altitude_agl: 60 });
    expect(
      (
        await call(`/flight/v2/plan/${deleted.id}`, {
          method: "DELETE",
          apiKey: account.apiKey,
          token: pilot.token,
        })
      ).status,
    ).toBe(200);
    const missing = await batch([plan.id, "flight_plan|nope", deleted.id]);
    expect(missing.status).toBe(200);
    expect(missing.json.data.map((e: any) => e.flight_plan_id)).toEqual([plan.id]);
    expect((await batch(["flight_plan|nope"])).json.data).toEqual([]);
    // Another account's plan does not exist for this one: left out too, its existence not told.
    const stranger = await createAccount();
    const strangers = await tokenFor(stranger, "stranger-pilot");
    const theirs = await createPlan(stranger, strangers.token, { rulesets: ["usa_part_107"] });
    expect((await batch([plan.id, theirs.id])).json.data.map((e: any) => e.flight_plan_id)).toEqual([
      plan.id,
    ]);
    const other = await tokenFor(account, "another-batch-pilot");
    expect((await batch([plan.id], other.token)).status).toBe(403);
    expect(
      (
        await call(`/flight/v2/plan/batch/authorizations?flight_plan_ids=${plan.id}`, {
          apiKey: account.apiKey,
        })
      ).status,
    ).toBe(401);
    const bare = await call("/flight/v2/plan/batch/authorizations", {
      apiKey: account.apiKey,
      token: pilot.token,
    });
    expect(bare.status).toBe(400);
    expect(bare.json.data.errors.map((e: any) => e.name)).toEqual(["flight_plan_ids"]);
    expect((await batch([","])).status).toBe(400);
  });
});

describe("flights by point", () => {
  it("carry city, state and country from the jurisdictions, and LAANC under the default rules", async () => {
    const flight = await flightAt(account, pilot.token, {
      latitude: 39.47816,
      longitude: -118.78456,
      max_altitude: 60,
    });
    expect(flight).toMatchObject({ city: "Fallon", state: "Nevada", country: "USA" });
    expect(flight.authorizations.map((a: any) => a.status)).toEqual(["accepted"]);
    const london = await flightAt(account, pilot.token, { latitude: 51.5072, longitude: -0.1276 });
    expect(london).toMatchObject({ state: "England", country: "GBR" });
  });
});
