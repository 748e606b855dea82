import { beforeAll, describe, expect, it } from "vitest";
import { FALLON_TWO_CELLS_AREA, loadAirspaceFixtures } from "./airspaceFixtures";
import { createPlan } from "./flightFixtures";
import { call } from "./helpers";
import { newPilot, type TestPilot } from "./pilotFixtures";

let pilot: TestPilot;
let stranger: TestPilot;
beforeAll(async () => {
  await loadAirspaceFixtures();
  pilot = await newPilot("advisory-pilot");
  stranger = await newPilot("advisory-stranger");
});

const post = (body: Record<string, unknown>, apiKey = pilot.apiKey) =>
  call("/advisory/v1/airspace", { method: "POST", apiKey, body });

describe("POST /advisory/v1/airspace (the SDKs' form)", () => {
  it("refuses what the GET refuses, naming the field", async () => {
    for (const [body, field] of [
      [{ geometry: FALLON_TWO_CELLS_AREA }, "rulesets"],
      [{ rulesets: "usa_part_107" }, "geometry"],
      [{ geometry: FALLON_TWO_CELLS_AREA, rulesets: "usa_part_108" }, "rulesets"],
      [{ geometry: FALLON_TWO_CELLS_AREA, rulesets: "usa_part_107", start: "2030-06-01 10:00" }, "start"],
    ] as const) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.data.errors.map((e: any) => e.name)).toEqual([field]);
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

  it("does not exist for another account's key, nor for an unknown id", async () => {
    const plan = await fallonPlan();
    const other = await forPlan(plan.id, stranger.apiKey);
    expect(other.status).toBe(404);
    expect(other.text).not.toContain("FALLON");
    expect((await forPlan("flight_plan|doesnotexist")).status).toBe(404);
  });
});
