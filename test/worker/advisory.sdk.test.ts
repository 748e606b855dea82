import { beforeAll, describe, expect, it } from "vitest";
import {
  FALLON_TWO_CELLS_AREA,
  loadAirspaceFixtures,
  SELLAFIELD_AREA,
  YOSEMITE_AREA,
} from "./airspaceFixtures";
import { CPP_TYPES_READING_PROPERTIES, cppColor, expectDecodable } from "./airspaceSdk";
import { createPlan, hour, iso } from "./flightFixtures";
import { call } from "./helpers";
import { newPilot, type TestPilot } from "./pilotFixtures";

let pilot: TestPilot;
beforeAll(async () => {
  await loadAirspaceFixtures();
  pilot = await newPilot("advisory-pilot");
});

const post = (body: Record<string, unknown>, apiKey = pilot.apiKey) =>
  call("/advisory/v1/airspace", { method: "POST", apiKey, body });
/** The C++ SDK's times: six fractional digits, and the same instant for start and end. */
const CPP_NOW = new Date().toISOString().replace("Z", "000Z");

describe("POST /advisory/v1/airspace (the SDKs' form)", () => {
  it("answers as the GET, from the C++ body: rulesets a comma string, start equal to end in microseconds", async () => {
    const body = {
      geometry: FALLON_TWO_CELLS_AREA,
      rulesets: "usa_part_107,usa_advisories",
      start: CPP_NOW,
      end: CPP_NOW,
    };
    const res = await post(body);
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.color).toBe("orange");
    expect(cppColor(res.json.data.color)).toBe("orange");
    const viaGet = await call(
      `/advisory/v1/airspace?${new URLSearchParams({ ...body, geometry: JSON.stringify(body.geometry) })}`,
      { apiKey: pilot.apiKey },
    );
    expect(res.json).toEqual(viaGet.json);
    expect((await post({ ...body, rulesets: ["usa_part_107", "usa_advisories"] })).json).toEqual(res.json);
  });

  it("gives every advisory a color the C++ parser knows and the properties its decoder reads", async () => {
    const answers = await Promise.all([
      post({ geometry: FALLON_TWO_CELLS_AREA, rulesets: "usa_part_107,usa_advisories" }),
      post({ geometry: YOSEMITE_AREA, rulesets: "usa_national_parks" }),
      post({ geometry: SELLAFIELD_AREA, rulesets: "gbr_open_category" }),
    ]);
    expect(answers.map((a) => a.json.data.color)).toEqual(["orange", "red", "red"]);
    const advisories = answers.flatMap((a) => a.json.data.advisories);
    const types = new Set(advisories.map((a: any) => a.type));
    for (const type of ["controlled_airspace", "heliport", "school", "park", "special_use_airspace"])
      expect(types).toContain(type);
    for (const advisory of advisories) {
      expectDecodable(advisory);
      if (CPP_TYPES_READING_PROPERTIES.includes(advisory.type))
        expect(advisory.properties).toBeTypeOf("object");
    }
  });
});

describe("GET /advisory/v1/airspace/{flight_plan_id}", () => {
  const fallonPlan = (overrides: Record<string, unknown> = {}) =>
    createPlan(pilot.account, pilot.token, {
      geometry: FALLON_TWO_CELLS_AREA,
      takeoff_latitude: 39.479,
      takeoff_longitude: -118.785,
      ...overrides,
    });
  const forPlan = (planId: string, apiKey = pilot.apiKey, query = "") =>
    call(`/advisory/v1/airspace/${planId}${query}`, { apiKey });

  it("answers for the plan's area and rulesets with the account's API key alone (no token)", async () => {
    const plan = await fallonPlan({ rulesets: ["usa_part_107", "usa_advisories"] });
    // Raw `|` in the path, as the C++ SDK writes it.
    const res = await forPlan(plan.id);
    expect(res.status, res.text).toBe(200);
    const direct = await post({
      geometry: FALLON_TWO_CELLS_AREA,
      rulesets: "usa_part_107,usa_advisories",
      start: plan.start_time,
      end: plan.end_time,
    });
    expect(res.json.data).toEqual(direct.json.data);
    expect(res.json.data.advisories.some((a: any) => a.ruleset_id === "usa_advisories")).toBe(true);
    res.json.data.advisories.forEach(expectDecodable);
  });

  it("uses the default selection where the plan names no rulesets, and the window asked for", async () => {
    const plan = await fallonPlan();
    const res = await forPlan(plan.id);
    expect(res.json.data.color).toBe("orange");
    // usa_part_107, usa_national_parks and usa_advisories are the defaults there.
    expect(new Set(res.json.data.advisories.map((a: any) => a.ruleset_id))).toEqual(
      new Set(["usa_part_107", "usa_advisories"]),
    );
    const later = await forPlan(
      plan.id,
      pilot.apiKey,
      `?start=${encodeURIComponent(iso(Date.now() + 3 * hour))}&end=${encodeURIComponent(iso(Date.now() + 4 * hour))}`,
    );
    expect(later.status).toBe(200);
    const backwards = await forPlan(
      plan.id,
      pilot.apiKey,
      `?start=${iso(Date.now() + hour)}&end=${iso(Date.now())}`,
    );
    expect(backwards.status).toBe(400);
    expect(backwards.json.data.errors.map((e: any) => e.name)).toEqual(["end"]);
  });
});
