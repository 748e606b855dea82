import { env } from "cloudflare:test";
import { and, gte, isNull, lte, or } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { beforeAll, describe, expect, it } from "vitest";
import * as schema from "../../schema";
import { cellRange } from "../../worker/domain/airspace/facilityGrid";
import { DRONE_HEIGHT_BAND } from "../../worker/domain/airspace/heights";
import { expandBox } from "../../worker/domain/airspace/spatialGrid";
import { type BBox, bboxOf, type Polygon } from "../../worker/domain/geojson";
import { locatePoint } from "../../worker/services/airspace";
import {
  advisoryInputs,
  type FeatureFilter,
  featuresAndCells,
  featuresAround,
  jurisdictionsAround,
  placeInputs,
  pointInputs,
} from "../../worker/store/airspace";
import {
  flightFeatureDefinitions,
  rulesetsByIds,
  rulesetsOfJurisdictions,
  unknownRulesetIds,
} from "../../worker/store/rulesets";
import {
  FALLON_BOX,
  FALLON_CELL_AREA,
  FALLON_TWO_CELLS_AREA,
  loadAirspaceFixtures,
  loadSfoControlledAirspace,
} from "./airspaceFixtures";

/**
 * The airspace store's queries against the test D1 loaded with the importers' fixtures and SFO's
 * controlled airspace, apart from the routes (Cloudflare's D1 example): grid-indexed reads, feature
 * filters, time windows, facility-map cells, jurisdictions and rulesets.
 */

const db = drizzle(env.DB, { schema });

beforeAll(async () => {
  await loadAirspaceFixtures();
  await loadSfoControlledAirspace();
});

const pointBox = (longitude: number, latitude: number): BBox => ({
  minLat: latitude,
  maxLat: latitude,
  minLng: longitude,
  maxLng: longitude,
});

const KNFL = pointBox(-118.7009964, 39.41659927);
const SFO = pointBox(-122.375, 37.6189);
const FALLON_BBOX = bboxOf(FALLON_BOX as Polygon);
const MID_PACIFIC: BBox = { minLat: 10, maxLat: 10.1, minLng: -150.1, maxLng: -150 };
const TFR_ID = "faa-tfr:0/1234-1-FDC-F";
/** While the Fallon TFR is in effect. */
const IN_JUNE_2030 = Date.UTC(2030, 5, 1, 15);
const now = Date.now();

/** The same features read without the grid index: every row whose stored box meets `box` at drone heights. */
async function featuresWithoutIndex(box: BBox, filter: FeatureFilter): Promise<string[]> {
  const f = schema.airspaceFeatures;
  const rows = await db
    .select({ id: f.externalId })
    .from(f)
    .where(
      and(
        lte(f.minLat, box.maxLat),
        gte(f.maxLat, box.minLat),
        lte(f.minLng, box.maxLng),
        gte(f.maxLng, box.minLng),
        or(isNull(f.effectiveStart), lte(f.effectiveStart, filter.end)),
        or(isNull(f.effectiveEnd), gte(f.effectiveEnd, filter.start)),
        // Drone heights, the reads' default band.
        or(isNull(f.floorAglM), lte(f.floorAglM, DRONE_HEIGHT_BAND.upperM)),
        or(isNull(f.ceilingAglM), gte(f.ceilingAglM, DRONE_HEIGHT_BAND.lowerM)),
      ),
    );
  return rows.map((r) => r.id).sort();
}

const ids = (features: { externalId: string }[]) => features.map((f) => f.externalId).sort();

describe("features under a box (grid cells, filters, time windows)", () => {
  it("finds through the grid index exactly what a scan of every row finds", async () => {
    for (const box of [
      KNFL,
      SFO,
      FALLON_BBOX,
      expandBox(SFO, 20_000),
      bboxOf(FALLON_TWO_CELLS_AREA as Polygon),
    ]) {
      const indexed = ids(await featuresAround(db, box, { start: now, end: now }));
      expect(indexed.length, JSON.stringify(box)).toBeGreaterThan(0);
      expect(indexed).toEqual(await featuresWithoutIndex(box, { start: now, end: now }));
    }
  });

  it("reaches a point through each record's notice radius, and finds nothing where nothing is loaded", async () => {
    expect(ids(await featuresAround(db, KNFL, { start: now, end: now }))).toContain("ourairports:KNFL");
    // 2 km from the airport: still within its grown box.
    const beside = pointBox(-118.677, 39.4166);
    expect(ids(await featuresAround(db, beside, { start: now, end: now }))).toContain("ourairports:KNFL");
    expect(await featuresAround(db, MID_PACIFIC, { start: now, end: now })).toEqual([]);
  });

  it("keeps only the types asked for", async () => {
    const { features } = await featuresAndCells(db, FALLON_BBOX, {
      types: ["heliport"],
      start: now,
      end: now,
    });
    expect(features.length).toBeGreaterThan(0);
    expect(new Set(features.map((f) => f.type))).toEqual(new Set(["heliport"]));
    expect(ids(features)).toContain("ourairports:00NV");
  });

  it("leaves out time-bound airspace outside the window, and keeps it when the window meets it", async () => {
    expect(ids(await featuresAround(db, FALLON_BBOX, { start: now, end: now }))).not.toContain(TFR_ID);
    expect(ids(await featuresAround(db, FALLON_BBOX, { start: IN_JUNE_2030, end: IN_JUNE_2030 }))).toContain(
      TFR_ID,
    );
    // A window that begins before the TFR and ends inside it meets it too.
    const across = { start: IN_JUNE_2030 - 86_400_000, end: IN_JUNE_2030 };
    expect(ids(await featuresAround(db, FALLON_BBOX, across))).toContain(TFR_ID);
    const tfr = (await featuresAround(db, FALLON_BBOX, across)).find((f) => f.externalId === TFR_ID)!;
    expect(tfr.effectiveStart).toBe(Date.parse("2030-06-01T14:00:00Z"));
  });
});

describe("facility-map cells", () => {
  it("reads the cells on the grid rows and columns under a box, each with its map", async () => {
    const box = bboxOf(FALLON_TWO_CELLS_AREA as Polygon);
    const { cells } = await featuresAndCells(db, box, {
      types: ["controlled_airspace"],
      start: now,
      end: now,
    });
    const range = cellRange(box);
    expect(cells.map((c) => c.ceilingFt).sort()).toEqual([200, 400]);
    for (const cell of cells) {
      expect(cell.row).toBeGreaterThanOrEqual(range.minRow);
      expect(cell.row).toBeLessThanOrEqual(range.maxRow);
      expect(cell.col).toBeGreaterThanOrEqual(range.minCol);
      expect(cell.col).toBeLessThanOrEqual(range.maxCol);
      expect(cell.map).toMatchObject({ laanc: expect.any(Boolean), source: expect.any(String) });
    }
    const one = await featuresAndCells(db, bboxOf(FALLON_CELL_AREA as Polygon), { start: now, end: now });
    expect(one.cells.map((c) => c.ceilingFt)).toEqual([400]);
  });

  it("reads SFO's real Class B surface area and its synthetic facility map under the airport", async () => {
    const { features, cells } = await featuresAndCells(db, expandBox(SFO, 2_000), {
      types: ["controlled_airspace"],
      start: now,
      end: now,
    });
    // Drone heights (no band given): only the surface shelf; the 16 others start at 1,500 ft MSL or higher.
    expect(features.map((f) => [f.name, f.floorM, f.properties.source])).toEqual([
      ["SAN FRANCISCO CLASS B", 0, "FAA NASR 28-day cycle effective 2026-05-14"],
    ]);
    expect(cells.length).toBeGreaterThan(0);
    expect(new Set(cells.map((c) => c.map.airportId)).size).toBe(1);
    expect(cells.every((c) => c.map.source === "synthetic")).toBe(true);
    expect(await featuresAndCells(db, MID_PACIFIC, { start: now, end: now })).toEqual({
      features: [],
      cells: [],
    });
  });
});

describe("floors and ceilings", () => {
  // 4 NM east of SFO, over the bay: under the Class B shelves whose floors are 1,500 ft MSL and up.
  const bay = expandBox(pointBox(-122.29, 37.6), 100);
  const shelvesAt = async (band?: { lowerM: number; upperM: number }) =>
    (await featuresAndCells(db, bay, { types: ["controlled_airspace"], start: now, end: now, band })).features
      .map((f) => f.properties.floor_ft)
      .sort((a, b) => Number(a) - Number(b));

  it("leaves out a Class B shelf above the flight: a flight under its floor is not in it", async () => {
    const all = await shelvesAt({ lowerM: 0, upperM: 10_000 });
    expect(all.length).toBeGreaterThan(1);
    expect(all[0]).toBe(0);
    // At 400 ft (the default) and at 300 m: the surface area only; at 1,000 m the shelves below it too.
    expect(await shelvesAt()).toEqual([0]);
    expect(await shelvesAt({ lowerM: 0, upperM: 300 })).toEqual([0]);
    const at1000m = await shelvesAt({ lowerM: 0, upperM: 1_000 });
    expect(at1000m.length).toBeGreaterThan(1);
    expect(at1000m.every((floorFt) => Number(floorFt) * 0.3048 - 4 <= 1_000)).toBe(true);
    // Above the Class B's ceiling (10,000 ft MSL), nothing of it.
    expect(await shelvesAt({ lowerM: 3_100, upperM: 3_200 })).toEqual([]);
  });
});

describe("jurisdictions and rulesets", () => {
  it("lists the jurisdictions whose boxes hold a point, parents without their geometry", async () => {
    const around = await jurisdictionsAround(db, KNFL);
    const nevada = around.find((j) => j.name === "Nevada");
    const usa = around.find((j) => j.region === "federal" && j.country === "USA");
    expect(nevada).toMatchObject({ region: "state", geometry: { type: expect.stringMatching(/Polygon/) } });
    expect(usa).toMatchObject({ geometry: null });
    expect(nevada!.parentId).toBe(usa!.id);
    expect(around.map((j) => j.id)).toEqual([...around.map((j) => j.id)].sort((a, b) => a - b));
    // The United States' box reaches from Samoa to the Aleutians: only the South Atlantic is outside every box.
    expect((await jurisdictionsAround(db, MID_PACIFIC)).map((j) => j.name)).toContain("United States");
    expect(await jurisdictionsAround(db, pointBox(-20, -40))).toEqual([]);
  });

  it("reads rulesets by id and by jurisdiction with their rules in display order", async () => {
    const [part107] = await rulesetsByIds(db, ["usa_part_107", "usa_part_999"]);
    expect(part107).toMatchObject({ id: "usa_part_107", jurisdiction: { region: "federal" } });
    expect(part107!.rules.length).toBeGreaterThan(0);
    const orders = part107!.rules.map((r) => r.display_order ?? 0);
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
    const ofUsa = await rulesetsOfJurisdictions(db, [part107!.jurisdiction.id]);
    expect(ofUsa.map((r) => r.id)).toContain("usa_part_107");
    expect(ofUsa.find((r) => r.id === "usa_part_107")).toEqual(part107);
    expect(await rulesetsByIds(db, [])).toEqual([]);
    expect(await unknownRulesetIds(db, ["usa_part_107", "usa_part_999", "usa_part_999"])).toEqual([
      "usa_part_999",
    ]);
  });

  it("keeps rulesets (of a set of jurisdictions, or by id) a minute in the isolate, then reads them again", async () => {
    const [part107] = await rulesetsByIds(db, ["usa_part_107"]);
    const usa = [part107!.jurisdiction.id];
    const later = Date.now() + 3_600_000;
    const nameNow = async (at: number) =>
      (await rulesetsOfJurisdictions(db, usa, at)).find((r) => r.id === "usa_part_107")?.name;
    const nameById = async (at: number) => (await rulesetsByIds(db, ["usa_part_107"], at))[0]?.name;
    const rename = (name: string) =>
      env.DB.prepare("UPDATE rulesets SET name = ? WHERE id = 'usa_part_107'").bind(name).run();
    expect(await nameNow(later)).toBe(part107!.name);
    expect(await nameById(later)).toBe(part107!.name);
    await rename("Renamed by an operator");
    try {
      expect(await nameNow(later + 59_000)).toBe(part107!.name);
      expect(await nameById(later + 59_000)).toBe(part107!.name);
      expect(await nameNow(later + 61_000)).toBe("Renamed by an operator");
      expect(await nameById(later + 61_000)).toBe("Renamed by an operator");
    } finally {
      await rename(part107!.name);
    }
  });

  it("reads the flight features a set of rules names", async () => {
    const definitions = await flightFeatureDefinitions(db, ["flight_max_altitude_agl", "no_such_feature"]);
    expect([...definitions.keys()]).toEqual(["flight_max_altitude_agl"]);
    expect(definitions.get("flight_max_altitude_agl")).toMatchObject({ input_type: "float" });
  });
});

describe("the batched reads of the airspace queries", () => {
  it("reads an area's chosen rulesets, features and cells in one batch", async () => {
    const box = bboxOf(FALLON_TWO_CELLS_AREA as Polygon);
    const read = await advisoryInputs(db, box, ["usa_part_107", "usa_part_999"], { start: now, end: now });
    expect(read.rulesets.map((r) => r.id)).toEqual(["usa_part_107"]);
    expect(ids(read.features)).toEqual(await featuresWithoutIndex(box, { start: now, end: now }));
    expect(read.cells.map((c) => c.ceilingFt).sort()).toEqual([200, 400]);
  });

  it("reads a point's candidate jurisdictions, and cells only for controlled airspace", async () => {
    const at = pointBox(-118.78456, 39.47816);
    const all = await pointInputs(db, at, expandBox(at, 1_000), { start: now, end: now });
    const [part107] = await rulesetsByIds(db, ["usa_part_107"]);
    expect(all.jurisdictions.map((j) => j.id)).toContain(part107?.jurisdiction.id);
    expect(all.cells.length).toBeGreaterThan(0);
    const airports = await pointInputs(db, at, expandBox(at, 1_000), {
      types: ["airport"],
      start: now,
      end: now,
    });
    expect(airports.cells).toEqual([]);
    expect(airports.features.every((f) => f.type === "airport")).toBe(true);
  });

  it("reads a place's jurisdictions and the airports around it, and the service names the town", async () => {
    const read = await placeInputs(db, KNFL, expandBox(KNFL, 5_000), {
      types: ["airport", "heliport"],
      start: now,
      end: now,
    });
    expect(ids(read.features)).toContain("ourairports:KNFL");
    expect(read.features.every((f) => f.type === "airport" || f.type === "heliport")).toBe(true);
    expect(await locatePoint(db, 39.41659927, -118.7009964)).toEqual({
      city: "Fallon",
      state: "Nevada",
      country: "USA",
    });
    expect(await locatePoint(db, 10.05, -150.05)).toEqual({ city: null, state: null, country: null });
  });
});
