import { describe, expect, it } from "vitest";
import {
  FALLON_CELL_AREA,
  FALLON_TWO_CELLS_AREA,
  LONDON_AREA,
  SELLAFIELD_AREA,
  YOSEMITE_AREA,
} from "./airspaceFixtures";
import { airspaceSession } from "./airspaceRequests";

const { v2, v1 } = airspaceSession();

const byName = (advisories: any[], name: string) => advisories.find((a) => a.name === name);

describe("POST /advisory/v2/airspace", () => {
  it("colors controlled airspace orange under Part 107, with LAANC properties (lowest cell) and extents", async () => {
    const res = await v2({ geometry: FALLON_TWO_CELLS_AREA, rulesets: "usa_part_107" });
    expect(res.status).toBe(200);
    expect(res.json.data.color).toBe("orange");
    const classD = byName(res.json.data.advisories, "FALLON CLASS D");
    expect(classD).toMatchObject({
      id: "faa-class-airspace:8D1A6B6C-0001-4A7E-9C1F-FALLONCLASSD",
      type: "controlled_airspace",
      distance: 0,
      color: "orange",
      rule_id: 10710,
      ruleset_id: "usa_part_107",
      city: "Fallon",
      state: "Nevada",
      country: "USA",
      requirements: { notice: { phone: null, digital: true } },
      extents: { floor_m: 0, ceiling_m: 1950.72, floor_code: "AGL", ceiling_code: "MSL" },
      properties: {
        airspace_classification: "D",
        laanc: true,
        authorization: true,
        ceiling: 200,
        airport_id: "NFL",
        airport_name: "FALLON NAS (VAN VOORHIS FLD)",
        icao: "KNFL",
        last_edit_date: "2024-12-05T00:00:00.000Z",
        auto_auth_floor_m_agl: 0,
        auto_auth_ceiling_m_agl: 60.96,
        manual_auth_ceiling_m_agl: 121.92,
        source: "faa",
      },
    });
    expect(typeof classD.latitude).toBe("number");
    // Airports and heliports within their notice radius are there too, in yellow.
    expect(byName(res.json.data.advisories, "Banner Churchill Community Hospital Heliport")).toMatchObject({
      type: "heliport",
      color: "yellow",
      rule_id: 10714,
      city: "Fallon",
    });
    expect(res.json.data.advisories.map((a: any) => a.distance)).toEqual(
      [...res.json.data.advisories.map((a: any) => a.distance)].sort((a, b) => a - b),
    );
  });

  it("takes the ceiling of the one cell when the area is inside it", async () => {
    const res = await v2({ geometry: FALLON_CELL_AREA, rulesets: "usa_part_107" });
    expect(byName(res.json.data.advisories, "FALLON CLASS D").properties).toMatchObject({
      ceiling: 400,
      auto_auth_ceiling_m_agl: 121.92,
    });
  });

  it("lists sensitive places only under the rulesets that have rules for them, each under the one that colors it most", async () => {
    const part107 = await v2({ geometry: FALLON_TWO_CELLS_AREA, rulesets: "usa_part_107" });
    expect(byName(part107.json.data.advisories, "Example Elementary School")).toBeUndefined();
    const both = await v2({ geometry: FALLON_TWO_CELLS_AREA, rulesets: ["usa_part_107", "usa_advisories"] });
    expect(byName(both.json.data.advisories, "Example Elementary School")).toMatchObject({
      type: "school",
      color: "yellow",
      ruleset_id: "usa_advisories",
      rule_id: 30003,
      extents: { floor_m: 0, ceiling_m: 121.92, floor_code: "AGL", ceiling_code: "AGL" },
    });
    expect(byName(both.json.data.advisories, "FALLON CLASS D").ruleset_id).toBe("usa_part_107");
    expect(both.json.data.color).toBe("orange");
  });

  it("is red in a national park under the national-park ruleset, and green where nothing applies", async () => {
    const park = await v2({ geometry: YOSEMITE_AREA, rulesets: "usa_national_parks" });
    expect(park.json.data.color).toBe("red");
    expect(park.json.data.advisories[0]).toMatchObject({
      name: "Yosemite National Park",
      type: "park",
      rule_id: 20001,
      color: "red",
    });
    const nothing = await v2({ geometry: YOSEMITE_AREA, rulesets: "usa_sec_44809" });
    expect(nothing.json.data).toEqual({ color: "green", advisories: [] });
  });

  it("colors UK airspace by the UK rulesets", async () => {
    const sellafield = await v2({ geometry: SELLAFIELD_AREA, rulesets: "gbr_open_category" });
    expect(sellafield.json.data.color).toBe("red");
    expect(sellafield.json.data.advisories[0]).toMatchObject({
      name: "EG P111 SELLAFIELD",
      type: "special_use_airspace",
      country: "GBR",
      state: "England",
      extents: { floor_m: 0, ceiling_m: 670.56, floor_code: "AGL", ceiling_code: "MSL" },
    });
    const london = await v2({
      geometry: LONDON_AREA,
      rulesets: "gbr_open_category,gbr_flight_restriction_zones",
    });
    expect(byName(london.json.data.advisories, "LONDON CTR")).toMatchObject({
      color: "yellow",
      rule_id: 82642,
    });
    expect(byName(london.json.data.advisories, "London Heathrow Airport")).toMatchObject({
      color: "yellow",
      rule_id: 82610,
    });
  });

  it("lists time-bound airspace only when the window overlaps it", async () => {
    const near = {
      type: "Polygon",
      coordinates: [
        [
          [-118.62, 39.58],
          [-118.58, 39.58],
          [-118.58, 39.62],
          [-118.62, 39.62],
          [-118.62, 39.58],
        ],
      ],
    };
    const now = await v2({ geometry: near, rulesets: "usa_part_107" });
    expect(now.json.data.advisories.some((a: any) => a.type === "tfr")).toBe(false);
    const during = await v2({
      geometry: near,
      rulesets: "usa_part_107",
      start: "2030-06-01T15:00:00Z",
      end: "2030-06-01T16:00:00Z",
    });
    expect(during.json.data.color).toBe("red");
    expect(during.json.data.advisories.find((a: any) => a.type === "tfr")).toMatchObject({
      name: "FALLON, NV, Special Security Instructions",
      color: "red",
      rule_id: 10711,
      properties: {
        notam: "0/1234",
        effective_start: "2030-06-01T14:00:00.000Z",
        effective_end: "2030-06-01T22:00:00.000Z",
      },
    });
    const after = await v2({ geometry: near, rulesets: "usa_part_107", start: "2030-06-02T00:00:00Z" });
    expect(after.json.data.advisories.some((a: any) => a.type === "tfr")).toBe(false);
  });
});

describe("GET /advisory/v1/airspace", () => {
  it("answers the same advisories from a URL-encoded geometry and comma-separated rulesets, without extents", async () => {
    const res = await v1({
      geometry: JSON.stringify(FALLON_TWO_CELLS_AREA),
      rulesets: "usa_part_107,usa_advisories",
    });
    expect(res.status).toBe(200);
    const newer = await v2({ geometry: FALLON_TWO_CELLS_AREA, rulesets: "usa_part_107,usa_advisories" });
    expect(res.json.data.color).toBe(newer.json.data.color);
    expect(res.json.data.advisories.map((a: any) => a.id)).toEqual(
      newer.json.data.advisories.map((a: any) => a.id),
    );
    expect(
      res.json.data.advisories.every((a: any) => a.extents === undefined && typeof a.rule_id === "number"),
    ).toBe(true);
  });
});
