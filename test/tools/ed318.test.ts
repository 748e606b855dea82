import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadDataset } from "../../tools/airspace/dataset";
import { FORMATS } from "../../tools/airspace/formats";
import { parseEd269Zones } from "../../tools/airspace/formats/ed269";
import { parseEd318Zones } from "../../tools/airspace/formats/ed318";
import { parseEd318 } from "../../worker/interuss/ed318";
import { SqliteTarget } from "./sqliteTarget";

const ROOT = path.resolve(import.meta.dirname, "../..");
const fixture = (name: string) => readFileSync(path.join(ROOT, "test/fixtures/airspace", name), "utf8");
const run = promisify(execFile);
const FEET = 0.3048;

type Ring = [number, number][];
const metresFrom = ([lng, lat]: [number, number], [cLng, cLat]: [number, number]) =>
  Math.hypot((lng - cLng) * 111_320 * Math.cos((cLat * Math.PI) / 180), (lat - cLat) * 110_574);

describe("ED-318 importer on the standard's examples (UASGeoZones/ED-318)", () => {
  it("reads a circle zone: PROHIBITED → prohibited, 3.5 km around its centre, 50–150 m AGL", () => {
    const parsed = parseEd318Zones(fixture("ed318_example_circle.json"));
    expect(parsed.skipped.size).toBe(0);
    expect(parsed.features).toHaveLength(1);
    const [zone] = parsed.features;
    expect(zone).toMatchObject({
      sourceId: "ABC1234",
      type: "special_use_airspace",
      name: "Fictitious circle",
      floorM: 50,
      ceilingM: 150,
      floorCode: "AGL",
      ceilingCode: "AGL",
      effectiveStart: null,
      effectiveEnd: null,
      country: "FRA",
      source: "ed318",
      properties: {
        type: "prohibited",
        ed318_identifier: "ABC1234",
        ed318_type: "PROHIBITED",
        reason: "POPULATION, NATURE",
        // English preferred among the languages given.
        other_reason: "Castle and nature reserve",
        authority: "LFPG-UASZoneManager",
        email: "UASZoneManager@lfpg.fr",
      },
    });
    const ring = (zone!.geometry as { coordinates: Ring[] }).coordinates[0]!;
    expect(ring).toHaveLength(33);
    for (const p of ring) {
      expect(metresFrom(p, [2.636866, 50.122901])).toBeGreaterThan(3470);
      expect(metresFrom(p, [2.636866, 50.122901])).toBeLessThan(3530);
    }
  });

  it("reads stacked layers as one record spanning them, with the applicability window and its schedule", () => {
    const parsed = parseEd318Zones(fixture("ed318_example_collection.json"));
    const [zone] = parsed.features;
    expect(zone).toMatchObject({
      sourceId: "NFZ6547",
      name: "LFPG-2",
      floorM: 0,
      ceilingM: 150,
      floorCode: "AGL",
      ceilingCode: "AGL",
      effectiveStart: Date.parse("2018-12-31T15:59:59Z"),
      effectiveEnd: Date.parse("2019-12-31T15:59:59Z"),
      properties: {
        type: "restricted",
        ed318_type: "REQ_AUTHORIZATION",
        reason: "AIR_TRAFFIC, OTHER",
        other_reason: "Flying Whales - part 2",
        schedule: "ANY 16:00:00Z–17:00:00Z; SUN 10:00:00Z–12:00:00Z",
      },
    });
    expect(zone!.geometry.type).toBe("MultiPolygon");
    expect((zone!.geometry as { coordinates: Ring[][] }).coordinates.map((p) => p[0]!.length)).toEqual([
      5, 4,
    ]);
  });

  it("refuses the collection's circle, whose extent says Circles, naming the field", () => {
    const parsed = parseEd318Zones(fixture("ed318_example_collection.json"));
    expect(parsed.features.map((f) => f.sourceId)).toEqual(["NFZ6547"]);
    expect([...parsed.skipped.keys()]).toEqual([
      'feature 1 (ABC1234): geometry.extent.subType "Circles" is not "Circle"',
    ]);
  });
});

describe("ED-318 importer on constructed zones", () => {
  const parsed = parseEd318Zones(fixture("ed318_constructed_zones.json"));
  const byId = (id: string) => parsed.features.find((f) => f.sourceId === id)!;

  it("converts feet to metres with each limit's own reference", () => {
    expect(byId("WSK001")).toMatchObject({ floorM: 0, floorCode: "AGL", ceilingCode: "AGL" });
    expect(byId("WSK001").ceilingM).toBeCloseTo(400 * FEET, 6);
    expect(byId("WSK003")).toMatchObject({ floorM: 0, floorCode: "AGL", ceilingCode: "MSL" });
    expect(byId("WSK003").ceilingM).toBeCloseTo(1500 * FEET, 6);
  });

  it("takes the authorizing authority's contact, and maps USPACE to a condition", () => {
    expect(byId("WSK001").properties).toMatchObject({
      type: "prohibited",
      authority: "Test permissions office",
      phone: "+441234567890",
      url: "https://permissions.example.org/stonehenge",
      message: "No drones over the monument",
      reason: "SENSITIVE, OTHER",
    });
    expect(byId("WSK002")).toMatchObject({
      effectiveStart: Date.parse("2030-06-01T08:00:00Z"),
      effectiveEnd: Date.parse("2030-06-30T18:00:00Z"),
      properties: {
        type: "conditional",
        restriction_conditions: "Operations below 60 m AGL only",
        schedule: "MON, TUE, WED, THU, FRI SR–SS",
      },
    });
    expect(byId("WSK003").properties).toMatchObject({ type: "conditional", ed318_type: "USPACE" });
    expect(byId("WSK003").geometry.type).toBe("MultiPolygon");
  });

  it("refuses invalid features, each with the field at fault", () => {
    expect(parsed.features.map((f) => f.sourceId)).toEqual(["WSK001", "WSK002", "WSK003"]);
    expect([...parsed.skipped.keys()]).toEqual([
      'feature 3 (WSK004): properties.type "REQ_AUTHORISATION" is not one of USPACE, PROHIBITED, REQ_AUTHORIZATION, CONDITIONAL, NO_RESTRICTION',
      "feature 4 (WSK005): properties.variant is required (one of COMMON, CUSTOMIZED)",
      'feature 5 (WSK006): geometry.type "LineString" is not an area (Polygon, MultiPolygon, Point with a Circle extent, GeometryCollection)',
      'feature 6 (WSK007): geometry.layer.uom "km" is not m or ft',
    ]);
  });

  it("refuses more broken features: dates, days, open rings, repeated identifiers, missing authority", () => {
    const zone = (props: Record<string, unknown>, geometry: unknown = undefined) => ({
      type: "Feature",
      properties: {
        identifier: "X1",
        country: "FRA",
        type: "PROHIBITED",
        variant: "COMMON",
        zoneAuthority: [{ purpose: "INFORMATION" }],
        ...props,
      },
      geometry: geometry ?? {
        type: "Polygon",
        coordinates: [
          [
            [2, 48],
            [2.1, 48],
            [2.1, 48.1],
            [2, 48],
          ],
        ],
      },
    });
    const problems = (features: unknown[]) => parseEd318({ type: "FeatureCollection", features }).problems;
    expect(problems([zone({ limitedApplicability: [{ startDateTime: "tomorrow" }] })])).toEqual([
      "feature 0 (X1): properties.limitedApplicability[0].startDateTime is not an ISO 8601 date-time",
    ]);
    expect(
      problems([zone({ limitedApplicability: [{ schedule: [{ day: ["MONDAY"], startTime: "08:00" }] }] })]),
    ).toEqual([
      'feature 0 (X1): properties.limitedApplicability[0].schedule[0].day[0] "MONDAY" is not one of MON, TUE, WED, THU, FRI, SAT, SUN, ANY',
    ]);
    expect(
      problems([
        zone(
          {},
          {
            type: "Polygon",
            coordinates: [
              [
                [2, 48],
                [2.1, 48],
                [2.1, 48.1],
                [2, 48.1],
              ],
            ],
          },
        ),
      ]),
    ).toEqual([
      "feature 0 (X1): geometry.coordinates[0] is not closed (its last position must repeat the first)",
    ]);
    expect(problems([zone({}), zone({})])).toEqual([
      "feature 1 (X1): properties.identifier repeats feature 0's",
    ]);
    expect(problems([zone({ zoneAuthority: [] })])).toEqual([
      "feature 0 (X1): properties.zoneAuthority is required (a list of at least one authority)",
    ]);
    expect(problems([zone({ country: "FR" })])).toEqual([
      "feature 0 (X1): properties.country is required (ISO 3166-1 alpha-3, e.g. FRA)",
    ]);
  });

  it("refuses documents that are not ED-318, and tells ED-269 and ED-318 apart", () => {
    expect(() => parseEd318Zones('{"type":"Feature"}')).toThrow(
      /not ED-318: expected a GeoJSON FeatureCollection/,
    );
    expect(() => parseEd318Zones(fixture("sensitive_places.geojson"))).toThrow(
      /not ED-318: no feature has ED-318 zone properties/,
    );
    const ed269 = readFileSync(
      path.join(ROOT, "test/fixtures/interuss/cis_source_sample_ed269.json"),
      "utf8",
    );
    expect(() => parseEd318Zones(ed269)).toThrow(/ED-269 UASZoneList \(import it as ed269\)/);
    const asEd269 = FORMATS.find((f) => f.name === "ed269")!;
    expect(() => asEd269.parse(fixture("ed318_example_circle.json"), {})).toThrow(
      /this is ED-318.*import it as ed318/,
    );
  });
});

describe("ED-318 and ED-269 give the same records", () => {
  it("a circle zone published in both formats becomes the same airspace", () => {
    const ed318 = parseEd318Zones(fixture("ed318_example_circle.json")).features[0]!;
    const ed269 = parseEd269Zones(
      JSON.stringify({
        UASZoneList: [
          {
            identifier: "ABC1234",
            country: "FRA",
            name: "Fictitious circle",
            type: "COMMON",
            restriction: "PROHIBITED",
            reason: ["POPULATION", "NATURE"],
            zoneAuthority: [{ name: "LFPG-UASZoneManager", purpose: "INFORMATION" }],
            applicability: [{ permanent: "YES" }],
            geometry: [
              {
                uomDimensions: "FT",
                lowerLimit: 50 / FEET,
                lowerVerticalReference: "AGL",
                upperLimit: 150 / FEET,
                upperVerticalReference: "AGL",
                horizontalProjection: { type: "Circle", center: [2.636866, 50.122901], radius: 3500 },
              },
            ],
          },
        ],
      }),
    ).features[0]!;
    const shared = (r: typeof ed318) => ({
      sourceId: r.sourceId,
      type: r.type,
      name: r.name,
      geometry: r.geometry,
      subtype: r.properties.type,
      reason: r.properties.reason,
      authority: r.properties.authority,
      floorM: Number(r.floorM!.toFixed(6)),
      ceilingM: Number(r.ceilingM!.toFixed(6)),
      floorCode: r.floorCode,
      ceilingCode: r.ceilingCode,
      effectiveStart: r.effectiveStart,
      effectiveEnd: r.effectiveEnd,
    });
    expect(shared(ed318)).toEqual(shared(ed269));
  });
});

describe("registration and loading", () => {
  let target: SqliteTarget;
  beforeEach(async () => {
    target = await SqliteTarget.open();
  });
  afterEach(() => target.close());

  it("loads as the ed318 format with its source and limits", async () => {
    const parsed = FORMATS.find((f) => f.name === "ed318")!.parse(
      fixture("ed318_constructed_zones.json"),
      {},
    );
    await loadDataset(
      target,
      { name: "ed318", format: "ed318", version: "1", features: parsed.features, facilityMaps: [] },
      () => {},
    );
    const rows = await target.query<{ external_id: string; properties: string; ceiling_m: number }>(
      "SELECT external_id, properties, ceiling_m FROM airspace_features ORDER BY external_id",
    );
    expect(rows.map((r) => r.external_id)).toEqual(["ed318:WSK001", "ed318:WSK002", "ed318:WSK003"]);
    expect(JSON.parse(rows[0]!.properties)).toMatchObject({ source: "ed318", type: "prohibited" });
    expect(rows[0]!.ceiling_m).toBeCloseTo(121.92, 2);
  });

  it("is named in airspace:import --help", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        "--import",
        "tsx",
        "--import",
        "./test/tools/noHeavyImports.mjs",
        "tools/airspace/import.ts",
        "--help",
      ],
      { cwd: ROOT },
    );
    expect(stdout).toMatch(/ed318\s+EUROCAE ED-318/);
  });
});
