import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Dataset, loadDataset } from "../../tools/airspace/dataset";
import { FORMATS } from "../../tools/airspace/formats";
import type { Parsed } from "../../tools/airspace/formats/source";
import { cellAt } from "../../worker/domain/airspace/facilityGrid";
import { SqliteTarget } from "./sqliteTarget";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/airspace");
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");
const parse = (format: string, file: string, options = {}): Parsed =>
  FORMATS.find((f) => f.name === format)!.parse(fixture(file), options);
const FALLON_CELL = cellAt([-118.78456, 39.47816]);

describe("FAA UAS facility map", () => {
  const parsed = parse("faa-facility-map", "faa_uas_facility_map.geojson");

  it("reads cells onto the 30″ grid, grouped by airport", () => {
    expect(parsed.facilityMaps.map((m) => m.airportId)).toEqual(["NFL", "NV99"]);
    const fallon = parsed.facilityMaps[0]!;
    expect(fallon).toMatchObject({
      icao: "KNFL",
      name: "FALLON NAS (VAN VOORHIS FLD)",
      laanc: true,
      source: "faa",
    });
    expect(fallon.lastEdit).toBe(1733356800000);
    expect(fallon.cells).toHaveLength(9);
    expect(fallon.cells.find((c) => c.row === FALLON_CELL.row && c.col === FALLON_CELL.col)?.ceilingFt).toBe(
      400,
    );
    expect(parsed.facilityMaps[1]!.laanc).toBe(false);
  });

  it("refuses polygons that are not grid cells, and says so", () => {
    expect(parsed.skipped.get("not a 30″ grid cell polygon")).toBe(1);
  });
});

describe("FAA Class_Airspace", () => {
  const parsed = parse("faa-class-airspace", "faa_class_airspace.geojson");

  it("keeps classes B, C, D and surface E with their limits in meters", () => {
    expect(parsed.features.map((f) => f.name)).toEqual(["FALLON CLASS D", "RENO CLASS E2"]);
    expect(parsed.features[0]).toMatchObject({
      type: "controlled_airspace",
      floorM: 0,
      floorCode: "AGL",
      ceilingM: 1950.72,
      ceilingCode: "MSL",
      city: "Fallon",
      state: "Nevada",
      country: "USA",
      properties: { type: "class_d", airspace_classification: "D", icao: "KNFL", airport_id: "NFL" },
    });
    expect(parsed.features[1]!.geometry.type).toBe("MultiPolygon");
    expect(parsed.features[1]!.ceilingM).toBeNull();
  });

  it("skips airspace that does not reach the surface and features without geometry", () => {
    expect(parsed.skipped.get("class E CLASS_E5 does not reach the surface")).toBe(1);
    expect(parsed.skipped.get("no polygon geometry")).toBe(1);
  });
});

describe("FAA TFR shapes", () => {
  const parsed = parse("faa-tfr", "faa_tfr_shapes.geojson");

  it("reads NOTAM, kind and joined times; a TFR without times stands until replaced", () => {
    const [fallon, disney] = parsed.features;
    expect(fallon).toMatchObject({
      sourceId: "0/1234-1-FDC-F",
      type: "tfr",
      effectiveStart: Date.parse("2030-06-01T14:00:00Z"),
      effectiveEnd: Date.parse("2030-06-01T22:00:00Z"),
      lastUpdated: Date.UTC(2030, 4, 31, 12, 0),
      properties: { type: "security", notam: "0/1234", url: "https://tfr.faa.gov/tfr3/?page=detail_0_1234" },
    });
    expect(disney).toMatchObject({ effectiveStart: null, effectiveEnd: null });
    expect(parsed.skipped.get("no usable geometry")).toBe(1);
  });
});

describe("OpenAIP airspace", () => {
  const parsed = parse("openaip", "openaip_airspace.json");

  it("maps types and converts limits (feet, flight levels) to meters", () => {
    expect(parsed.features.map((f) => [f.name, f.type, f.properties.type])).toEqual([
      ["LONDON CTR", "controlled_airspace", "ctr"],
      ["EG P111 SELLAFIELD", "special_use_airspace", "prohibited"],
      ["EG D201 ABERPORTH", "special_use_airspace", "danger"],
    ]);
    expect(parsed.features[0]).toMatchObject({
      ceilingM: 762,
      ceilingCode: "MSL",
      floorM: 0,
      floorCode: "AGL",
    });
    expect(parsed.features[0]!.properties.airspace_classification).toBe("D");
    expect(parsed.features[2]).toMatchObject({ ceilingM: 20116.8, ceilingCode: "STD" });
    expect(parsed.skipped.get("OpenAIP type 10 does not concern drones")).toBe(1);
  });

  it("also reads an API page with items", () => {
    const page = JSON.stringify({
      items: JSON.parse(fixture("openaip_airspace.json")),
      page: 1,
      totalPages: 1,
    });
    expect(FORMATS.find((f) => f.name === "openaip")!.parse(page, {}).features).toHaveLength(3);
  });
});

describe("plain GeoJSON", () => {
  it("types features by OpenStreetMap tags or their airspace_type, with times", () => {
    const parsed = parse("geojson", "sensitive_places.geojson");
    expect(parsed.features.map((f) => [f.name, f.type])).toEqual([
      ["Yosemite National Park", "park"],
      ["Example Elementary School", "school"],
      ["Example Regional Hospital", "hospital"],
      ["Example Correctional Center", "prison"],
      ["Example Geothermal Plant", "power_plant"],
      ["Example Fire", "wildfire"],
      ["Search and rescue staging", "emergency"],
    ]);
    expect(parsed.features[0]!.properties).toEqual({ type: "national_park" });
    expect(parsed.features[2]!.radiusM).toBe(200);
    expect(parsed.features[5]).toMatchObject({
      effectiveStart: Date.parse("2030-07-01T00:00:00Z"),
      effectiveEnd: Date.parse("2030-07-10T00:00:00Z"),
    });
    expect(parsed.skipped.get("no airspace type (give --type, or --type-field with --map)")).toBe(1);
  });

  it("takes the type from --type or from a property through --map", () => {
    expect(
      new Set(
        parse("geojson", "sensitive_places.geojson", { type: "emergency" }).features.map((f) => f.type),
      ),
    ).toEqual(new Set(["emergency"]));
    const mapped = parse("geojson", "sensitive_places.geojson", {
      typeField: "amenity",
      map: { prison: "prison" },
    });
    expect(mapped.features.map((f) => f.name)).toEqual(["Example Correctional Center"]);
  });

  it("refuses a type that is not an airspace type", () => {
    expect(() => parse("geojson", "sensitive_places.geojson", { type: "castle" })).toThrow(
      /unknown airspace type "castle"/,
    );
  });
});

describe("OurAirports", () => {
  it("reads airports and heliports, skipping closed ones", () => {
    const parsed = parse("ourairports", "ourairports_airports.csv");
    expect(parsed.features.map((f) => [f.sourceId, f.type, f.radiusM])).toEqual([
      ["KNFL", "airport", 8047],
      ["00NV", "heliport", 1609],
      ["EGLL", "airport", 8047],
    ]);
    expect(parsed.features[0]).toMatchObject({
      city: "Fallon",
      properties: { icao: "KNFL", iata: "NFL", faa: "NFL", elevation: 3934, type: "medium_airport" },
    });
    expect(parsed.skipped.get("not an open airport or heliport (closed)")).toBe(1);
  });

  it("names a file that is not airports.csv", () => {
    expect(() => FORMATS.find((f) => f.name === "ourairports")!.parse("a,b\n1,2\n", {})).toThrow(
      /no "ident" column/,
    );
  });
});

describe("loading a dataset", () => {
  let target: SqliteTarget;
  beforeEach(async () => {
    target = await SqliteTarget.open();
  });
  afterEach(() => target.close());

  const dataset = (name: string, parsed: Parsed): Dataset => ({
    name,
    format: "test",
    version: "1",
    features: parsed.features,
    facilityMaps: parsed.facilityMaps,
  });
  const quiet = () => {};

  it("writes features with their index cells and source, and replaces them on reload", async () => {
    const parsed = parse("faa-class-airspace", "faa_class_airspace.geojson");
    await loadDataset(target, dataset("class", parsed), quiet);
    await loadDataset(target, dataset("class", parsed), quiet);
    const rows = await target.query<{ external_id: string; properties: string }>(
      "SELECT external_id, properties FROM airspace_features ORDER BY id",
    );
    expect(rows.map((r) => r.external_id)).toEqual([
      "class:8D1A6B6C-0001-4A7E-9C1F-FALLONCLASSD",
      "class:8D1A6B6C-0003-4A7E-9C1F-RENOCLASSE2",
    ]);
    expect(JSON.parse(rows[0]!.properties).source).toBe("faa");
    const [orphans] = await target.query<{ n: number }>(
      "SELECT count(*) AS n FROM airspace_feature_cells WHERE feature_id NOT IN (SELECT id FROM airspace_features)",
    );
    expect(orphans!.n).toBe(0);
    const [datasetRow] = await target.query<{ records: number }>(
      "SELECT records FROM airspace_datasets WHERE name = 'class'",
    );
    expect(datasetRow!.records).toBe(2);
  });

  it("keeps the lower ceiling where two facility maps claim a cell", async () => {
    const parsed = parse("faa-facility-map", "faa_uas_facility_map.geojson");
    await loadDataset(target, dataset("fm", parsed), quiet);
    const other: Parsed = {
      features: [],
      skipped: new Map(),
      facilityMaps: [
        {
          airportId: "XYZ",
          icao: null,
          name: "NEIGHBOUR",
          laanc: true,
          lastEdit: null,
          source: "faa",
          cells: [
            { ...FALLON_CELL, ceilingFt: 100 },
            { row: FALLON_CELL.row, col: FALLON_CELL.col + 1, ceilingFt: 300 },
          ],
        },
      ],
    };
    await loadDataset(target, dataset("neighbour", other), quiet);
    const cells = await target.query<{ col: number; ceiling_ft: number; airport_id: string }>(
      `SELECT c.col, c.ceiling_ft, m.airport_id FROM facility_map_cells c JOIN facility_maps m ON m.id = c.facility_map_id
       WHERE c.row = ? AND c.col IN (?, ?) ORDER BY c.col`,
      [FALLON_CELL.row, FALLON_CELL.col, FALLON_CELL.col + 1],
    );
    expect(cells).toEqual([
      { col: FALLON_CELL.col, ceiling_ft: 100, airport_id: "XYZ" },
      { col: FALLON_CELL.col + 1, ceiling_ft: 200, airport_id: "NFL" },
    ]);
  });
});
