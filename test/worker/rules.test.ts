import { beforeAll, describe, expect, it } from "vitest";
import { bowTie } from "../geometries";
import { FALLON_CELL_AREA, LONDON_AREA, loadAirspaceFixtures, PARIS_AREA } from "./airspaceFixtures";
import { call, createAccount, type TestAccount } from "./helpers";

let account: TestAccount;
beforeAll(async () => {
  await loadAirspaceFixtures();
  account = await createAccount();
});

const rules = (body: unknown, path = "/rules/v1/") =>
  call(path, { method: "POST", apiKey: account.apiKey, body });

describe("POST /rules/v1/", () => {
  it("lists the rulesets of the jurisdictions an area meets, with every field of spec 2.4", async () => {
    const res = await rules({ geometry: FALLON_CELL_AREA });
    expect(res.status).toBe(200);
    const rulesets = res.json.data as any[];
    expect(rulesets.map((r) => [r.id, r.selection_type, r.default])).toEqual([
      ["usa_part_107", "pick1", true],
      ["usa_sec_44809", "pick1", false],
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
      flight_feature: "flight_max_altitude_agl",
      description: "Highest altitude above ground level the aircraft will reach",
      input_type: "float",
      measurement_type: "distance",
      measurement_unit: "meters",
    });
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
    expect(rulesets[3].flight_features).toEqual([]);
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
