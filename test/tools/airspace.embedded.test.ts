import { describe, expect, it } from "vitest";
import { embeddedAirports } from "../../tools/airspace/airportDatabase";
import { jurisdictionsFrom } from "../../tools/airspace/boundaries";
import { syntheticControlledAirspace } from "../../tools/airspace/controlledAirspace";
import { readBoundarySources, readRulesetsFile } from "../../tools/airspace/embedded";
import { type RulesetsFile, rulesetProblems } from "../../tools/airspace/rulesets";
import { cellAt, cellCenter } from "../../worker/domain/airspace/facilityGrid";
import { distanceFromPoint } from "../../worker/domain/airspace/geometry";
import { placeOf } from "../../worker/domain/airspace/jurisdictions";
import { airspaceTypesOf } from "../../worker/domain/airspace/rules";
import { bboxOf, type Position } from "../../worker/domain/geojson";

describe("jurisdictions from the real boundaries", () => {
  const jurisdictions = jurisdictionsFrom(readBoundarySources());
  const at = (point: Position) => {
    const candidates = jurisdictions.filter((j) => {
      const b = bboxOf(j.geometry);
      return point[1] >= b.minLat && point[1] <= b.maxLat && point[0] >= b.minLng && point[0] <= b.maxLng;
    });
    return { place: placeOf(point, candidates), counties: candidates.filter((j) => j.region === "county") };
  };

  it("covers the USA (nation, 56 states and territories, 3,231 counties) and the UK", () => {
    const count = (country: string, region: string) =>
      jurisdictions.filter((j) => j.country === country && j.region === region).length;
    expect([count("USA", "federal"), count("USA", "state"), count("USA", "county")]).toEqual([1, 56, 3231]);
    expect([count("GBR", "federal"), count("GBR", "state"), count("GBR", "county")]).toEqual([1, 4, 232]);
    expect(new Set(jurisdictions.map((j) => j.id)).size).toBe(jurisdictions.length);
  });

  it("places real points in their state and country", () => {
    expect(at([-118.78456, 39.47816]).place).toEqual({ city: null, state: "Nevada", country: "USA" });
    expect(at([-122.4194, 37.7749]).place).toMatchObject({ state: "California", country: "USA" });
    expect(at([-0.1276, 51.5072]).place).toMatchObject({ state: "England", country: "GBR" });
    expect(at([-3.1883, 55.9533]).place).toMatchObject({ state: "Scotland", country: "GBR" });
    expect(at([2.3522, 48.8566]).place).toEqual({ city: null, state: null, country: null });
  });
});

describe("the embedded airports and synthetic controlled airspace", async () => {
  const airports = await embeddedAirports();
  const { features, facilityMaps } = syntheticControlledAirspace(airports);
  const sfo = airports.find((a) => a.ident === "KSFO")!;

  it("reads the real airports and heliports of the USA and the UK, with runways", () => {
    expect(airports.length).toBeGreaterThan(24_000);
    expect(sfo).toMatchObject({
      name: "San Francisco International Airport",
      localCode: "SFO",
      country: "USA",
    });
    expect(sfo.runways.length).toBe(4);
    expect(airports.some((a) => a.type === "closed")).toBe(false);
    expect(airports.find((a) => a.ident === "EGLL")?.country).toBe("GBR");
  });

  it("marks every generated record synthetic", () => {
    expect(features.every((f) => f.source === "synthetic")).toBe(true);
    expect(facilityMaps.every((m) => m.source === "synthetic")).toBe(true);
  });

  it("draws Class B at large US airports with a facility map stepping 0 to 400 ft away from the runways", () => {
    expect(features.find((f) => f.sourceId === "KSFO-class-b")).toMatchObject({
      type: "controlled_airspace",
      properties: { airspace_classification: "B", icao: "KSFO", airport_id: "SFO" },
      floorM: 0,
      ceilingM: 3048,
    });
    const map = facilityMaps.find((m) => m.airportId === "SFO")!;
    const ceilingAt = (point: Position) => {
      const key = cellAt(point);
      return map.cells.find((c) => c.row === key.row && c.col === key.col)?.ceilingFt;
    };
    expect(ceilingAt([sfo.longitude, sfo.latitude])).toBe(0);
    expect(ceilingAt([sfo.longitude + 0.1, sfo.latitude])).toBe(400);
    expect(new Set(map.cells.map((c) => c.ceilingFt))).toEqual(new Set([0, 100, 200, 300, 400]));
    for (const cell of map.cells)
      expect(
        distanceFromPoint({ type: "Point", coordinates: cellCenter(cell) }, [sfo.longitude, sfo.latitude]),
      ).toBeLessThan(6 * 1852 + 1);
  });

  it("draws Class D at medium US airports and flight restriction zones in the UK", () => {
    expect(features.find((f) => f.sourceId === "KNFL-class-d")?.properties.airspace_classification).toBe("D");
    const heathrow = features.find((f) => f.sourceId === "EGLL-frz")!;
    expect(heathrow.properties.type).toBe("frz");
    // The aerodrome traffic zone and a protection zone off each end of both runways.
    expect(heathrow.geometry.type === "MultiPolygon" && heathrow.geometry.coordinates.length).toBe(5);
    expect(facilityMaps.some((m) => m.icao === "EGLL")).toBe(false);
  });
});

describe("the rulesets file", () => {
  const file = readRulesetsFile();

  it("has every ruleset the contract names, with every field of spec 2.4", () => {
    const ids = file.rulesets.map((r) => r.id);
    for (const id of [
      "usa_part_107",
      "usa_sec_44809",
      "usa_national_parks",
      "usa_advisories",
      "gbr_open_category",
      "gbr_specific_category",
      "gbr_flight_restriction_zones",
    ])
      expect(ids).toContain(id);
    const pick1 = file.rulesets.filter((r) => r.selection_type === "pick1").map((r) => r.id);
    expect(pick1).toEqual(["usa_part_107", "usa_sec_44809", "gbr_open_category", "gbr_specific_category"]);
    for (const ruleset of file.rulesets) {
      expect(ruleset.name && ruleset.short_name && ruleset.description).toBeTruthy();
      for (const rule of ruleset.rules) expect(rule.short_text).toBeTruthy();
    }
    expect(airspaceTypesOf(file.rulesets.find((r) => r.id === "usa_part_107")!.rules)).toContain("laanc");
  });

  it("names what makes a rulesets file unusable", () => {
    const broken: RulesetsFile = {
      flight_features: [],
      rulesets: [
        {
          id: "Part107",
          jurisdiction_id: 840,
          name: "x",
          short_name: "x",
          description: "x",
          selection_type: "pick1",
          default: true,
          rules: [
            {
              id: 1,
              short_text: "x",
              description: "",
              display_order: 1,
              flight_features: ["uav_weight"],
              condition: null,
              triggers: [{ type: "castle", color: "red" }],
            },
          ],
        },
      ],
    };
    expect(rulesetProblems(broken)).toEqual([
      "ruleset id Part107 is not <country>_<name>",
      "rule 1: unknown flight feature uav_weight",
      "rule 1: unknown airspace type castle",
    ]);
  });
});
