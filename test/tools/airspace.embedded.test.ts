import { describe, expect, it } from "vitest";
import { embeddedAirports } from "../../tools/airspace/airportDatabase";
import { jurisdictionsFrom } from "../../tools/airspace/boundaries";
import { embeddedControlledAirspace, fieldPositions } from "../../tools/airspace/controlledAirspace";
import type { FacilityMapRecord } from "../../tools/airspace/dataset";
import { readBoundarySources, readFaaClassPrimitives, readRulesetsFile } from "../../tools/airspace/embedded";
import { type RulesetsFile, rulesetProblems } from "../../tools/airspace/rulesets";
import { cellAt, cellCenter } from "../../worker/domain/airspace/facilityGrid";
import { containsPoint } from "../../worker/domain/airspace/geometry";
import { placeOf } from "../../worker/domain/airspace/jurisdictions";
import { airspaceTypesOf } from "../../worker/domain/airspace/rules";
import { bboxOf, type MultiPolygon, type Polygon, type Position } from "../../worker/domain/geojson";

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

describe("the embedded airports, the FAA's Class B/C/D and the synthetic records", async () => {
  const airports = await embeddedAirports();
  const classAirspace = readFaaClassPrimitives(fieldPositions(airports));
  const { faa, synthetic } = embeddedControlledAirspace(airports, classAirspace.features);
  const { features, facilityMaps } = synthetic;
  const sfo = airports.find((a) => a.ident === "KSFO")!;
  const mapOf = (airportId: string) => facilityMaps.find((m) => m.airportId === airportId)!;
  const ceilingIn = (map: FacilityMapRecord, point: Position) => {
    const key = cellAt(point);
    return map.cells.find((c) => c.row === key.row && c.col === key.col)?.ceilingFt;
  };
  const boxes = new Map(faa.map((f) => [f, bboxOf(f.geometry)]));
  /** The real shelves (of one airport, or all) over a point. */
  const realShelvesAt = ([lng, lat]: Position, airportId?: string) =>
    faa.filter((f) => {
      const box = boxes.get(f)!;
      return (
        (airportId === undefined || f.properties.airport_id === airportId) &&
        lat >= box.minLat &&
        lat <= box.maxLat &&
        lng >= box.minLng &&
        lng <= box.maxLng &&
        containsPoint(f.geometry as Polygon | MultiPolygon, [lng, lat])
      );
    });

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

  it("loads every one of the file's 1,286 Class B/C/D shelves, with their airports' elevations", () => {
    expect(faa).toHaveLength(1286);
    expect(faa.every((f) => f.source === classAirspace.cycle && f.source !== "synthetic")).toBe(true);
    const sfoSurface = faa.find((f) => f.properties.airport_id === "SFO" && f.floorM === 0)!;
    expect(sfoSurface).toMatchObject({
      name: "SAN FRANCISCO CLASS B",
      groundElevationM: 13 * 0.3048,
      properties: { airspace_classification: "B", icao: "KSFO" },
    });
  });

  it("calls McGhee Tyson (TYS) Class C, and nothing near Knoxville Class B", () => {
    const tys = faa.filter((f) => f.properties.airport_id === "TYS");
    expect(tys.map((f) => f.properties.airspace_classification)).toEqual(["C", "C", "C"]);
    const knoxville = { minLat: 35.3, maxLat: 36.3, minLng: -84.5, maxLng: -83.4 };
    const near = [...faa, ...features].filter((f) => {
      const box = bboxOf(f.geometry);
      return (
        box.minLat < knoxville.maxLat &&
        box.maxLat > knoxville.minLat &&
        box.minLng < knoxville.maxLng &&
        box.maxLng > knoxville.minLng
      );
    });
    expect(near.some((f) => f.properties.airspace_classification === "B" || / CLASS B/.test(f.name))).toBe(
      false,
    );
    expect(facilityMaps.find((m) => m.airportId === "TYS")?.name).not.toMatch(/CLASS B/);
  });

  it("rebuilds the surface shelves that missed their field, and lists the ones no rule repairs", () => {
    expect(faa).toHaveLength(1286);
    expect(classAirspace.repaired).toEqual([
      "AVL-class-c-2",
      "OKC-class-c-4",
      "UAO-class-d-1",
      "TCM-class-d-1",
      "FLL-class-c-4",
      "BUR-class-c-1",
      "PDX-class-c-1",
      "LAS-class-b-11",
      "HNL-class-b-5",
      "ANC-class-c-4",
      "TYS-class-c-1",
    ]);
    expect(classAirspace.unrepaired).toHaveLength(23);
    const surfaceAt = (ident: string) => {
      const airport = airports.find((a) => a.localCode === ident)!;
      return realShelvesAt([airport.longitude, airport.latitude], ident).filter((f) => f.floorM === 0);
    };
    for (const ident of ["TYS", "LAS", "PDX", "OKC"]) {
      const [surface] = surfaceAt(ident);
      expect(surface?.properties.geometry_repaired, ident).toMatch(
        /rebuilt from this airport's other shelves/,
      );
    }
  });

  it("marks every generated record synthetic", () => {
    expect(features.every((f) => f.source === "synthetic")).toBe(true);
    expect(facilityMaps.every((m) => m.source === "synthetic")).toBe(true);
  });

  it("lays facility maps only inside real surface areas and low shelves, 0 ft by SFO's runways, 400 ft away", () => {
    const map = mapOf("SFO");
    expect(ceilingIn(map, [sfo.longitude, sfo.latitude])).toBe(0);
    expect(ceilingIn(map, [sfo.longitude + 0.1, sfo.latitude])).toBe(400);
    expect(new Set(map.cells.map((c) => c.ceilingFt))).toEqual(new Set([0, 100, 200, 300, 400]));
    for (const m of facilityMaps
      .filter((m) => faa.some((f) => f.properties.airport_id === m.airportId))
      .slice(0, 40)) {
      for (const cell of m.cells) {
        const shelves = realShelvesAt(cellCenter(cell), m.airportId);
        expect(shelves.length, `${m.airportId} ${cell.row},${cell.col}`).toBeGreaterThan(0);
      }
    }
  });

  it("keeps a facility map under a shelf 500 ft below its floor", () => {
    for (const map of facilityMaps) {
      for (const cell of map.cells.slice(0, 50)) {
        const shelves = realShelvesAt(cellCenter(cell), map.airportId);
        if (shelves.length === 0 || shelves.some((f) => f.floorM === 0)) continue;
        const lowestFloorFt = Math.min(
          ...shelves.map((f) => ((f.floorM ?? 0) - (f.groundElevationM ?? 0)) / 0.3048),
        );
        expect(cell.ceilingFt).toBeLessThanOrEqual(Math.max(0, lowestFloorFt - 500));
      }
    }
  });

  it("generates a Class E surface area where a US airport has no Class B/C/D (Pine Bluff), and UK flight restriction zones", () => {
    const pineBluff = features.find((f) => f.sourceId === "KPBF-class-e2")!;
    expect(pineBluff).toMatchObject({ source: "synthetic", properties: { airspace_classification: "E" } });
    expect(realShelvesAt([-91.9355, 34.1731])).toEqual([]);
    expect(mapOf("PBF").cells.length).toBeGreaterThan(0);
    expect(features.some((f) => f.properties.airport_id === "SFO")).toBe(false);
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
      // Named by apps built on the C++ SDK's earlier LAANC suites.
      "usa_sec_91",
      "usa_national_parks",
      "usa_advisories",
      "gbr_open_category",
      "gbr_specific_category",
      "gbr_flight_restriction_zones",
    ])
      expect(ids).toContain(id);
    const pick1 = file.rulesets.filter((r) => r.selection_type === "pick1").map((r) => r.id);
    expect(pick1).toEqual([
      "usa_part_107",
      "usa_sec_44809",
      "usa_sec_91",
      "gbr_open_category",
      "gbr_specific_category",
    ]);
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
