import { beforeAll, describe, expect, it } from "vitest";
import { bowTie } from "../geometries";
import { FALLON_CELL_AREA, loadAirspaceFixtures } from "./airspaceFixtures";
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
  it("refuses a missing or broken geometry, naming it", async () => {
    for (const body of [
      {},
      {
        geometry: {
          type: "LineString",
          coordinates: [
            [0, 0],
            [1, 1],
          ],
        },
      },
      {
        geometry: {
          type: "Polygon",
          coordinates: [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 1],
            ],
          ],
        },
      },
      {
        geometry: bowTie,
      },
      {
        geometry: {
          type: "Polygon",
          coordinates: [
            [
              [0, 0],
              [200, 0],
              [1, 1],
              [0, 0],
            ],
          ],
        },
      },
    ]) {
      const res = await rules(body);
      expect(res.status).toBe(400);
      expect(res.json.data.errors.map((e: any) => e.name)).toEqual(["geometry"]);
    }
    const notJson = await call("/rules/v1/", { method: "POST", apiKey: account.apiKey, body: "{geometry" });
    expect(notJson.status).toBe(400);
  });

  it("needs an API key", async () => {
    expect((await call("/rules/v1/", { method: "POST", body: { geometry: FALLON_CELL_AREA } })).status).toBe(
      401,
    );
  });
});

describe("GET /rules/v1/{ruleset_id} and GET /rules/v1/rule?rulesets=", () => {
  it("never takes `rule` for a ruleset id, and names what is wrong", async () => {
    const bare = await call("/rules/v1/rule", { apiKey: account.apiKey });
    expect(bare.status).toBe(400);
    expect(bare.json.data.errors.map((e: any) => e.name)).toEqual(["rulesets"]);
    const unknown = await call("/rules/v1/rule?rulesets=usa_part_107,usa_part_999", {
      apiKey: account.apiKey,
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.data.errors[0].message).toMatch(/usa_part_999/);
    expect((await call("/rules/v1/usa_part_999", { apiKey: account.apiKey })).status).toBe(404);
    expect((await call("/rules/v1/usa_part_107")).status).toBe(401);
  });
});

describe("POST /rules/v1/evaluation", () => {
  const evaluate = (body: unknown) =>
    call("/rules/v1/evaluation", { method: "POST", apiKey: account.apiKey, body });

  it("refuses bad input, naming each field", async () => {
    const fields = async (body: unknown) => {
      const res = await evaluate(body);
      expect(res.status).toBe(400);
      return res.json.data.errors.map((e: any) => e.name);
    };
    expect(await fields({ geometry: FALLON_CELL_AREA })).toEqual(["rulesets"]);
    expect(await fields({ geometry: FALLON_CELL_AREA, rulesets: "" })).toEqual(["rulesets"]);
    expect(await fields({ geometry: FALLON_CELL_AREA, rulesets: "usa_part_999" })).toEqual(["rulesets"]);
    expect(await fields({ rulesets: "usa_part_107" })).toEqual(["geometry"]);
    expect(await fields({ geometry: bowTie, rulesets: "usa_part_107" })).toEqual(["geometry"]);
    expect(
      await fields({
        geometry: FALLON_CELL_AREA,
        rulesets: "usa_part_107",
        flight_features: { flight_max_altitude_agl: "high", flight_vlos: "maybe" },
      }),
    ).toEqual(["flight_features.flight_max_altitude_agl", "flight_features.flight_vlos"]);
    expect(await fields({ geometry: FALLON_CELL_AREA, rulesets: "usa_part_107", start: "tomorrow" })).toEqual(
      ["start"],
    );
    expect(
      (
        await call("/rules/v1/evaluation", {
          method: "POST",
          body: { geometry: FALLON_CELL_AREA, rulesets: "usa_part_107" },
        })
      ).status,
    ).toBe(401);
  });
});

describe("GET /rules/v1/{flight_plan_id}/evaluation", () => {
  it("is 404 for another account's plan and for an unknown one, 401 without a key", async () => {
    const plan = await createPlan(account, pilot.token, { rulesets: ["usa_part_107"] });
    const stranger = await createAccount("stranger");
    expect((await call(`/rules/v1/${plan.id}/evaluation`, { apiKey: stranger.apiKey })).status).toBe(404);
    expect((await call("/rules/v1/flight_plan|nope/evaluation", { apiKey: account.apiKey })).status).toBe(
      404,
    );
    expect((await call(`/rules/v1/${plan.id}/evaluation`)).status).toBe(401);
  });
});
