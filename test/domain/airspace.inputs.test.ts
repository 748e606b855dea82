import { describe, expect, it } from "vitest";
import { cellAt, cellCenter, cellOfPolygon } from "../../worker/domain/airspace/facilityGrid";
import { distanceFromPoint, distanceToArea } from "../../worker/domain/airspace/geometry";
import { checkArea, checkRulesetIds, checkWindow } from "../../worker/domain/airspace/inputs";
import { boxesMeet, expandBox, indexCells, searchRanges } from "../../worker/domain/airspace/spatialGrid";
import type { Polygon } from "../../worker/domain/geojson";
import { ApiError } from "../../worker/lib/errors";
import { areaFrom, rulesetIdsFrom, timeWindowFrom, typeListFrom } from "../../worker/schemas/queryFields";
import { bowTie } from "../geometries";

const square: Polygon = {
  type: "Polygon",
  coordinates: [
    [
      [0, 0],
      [0.01, 0],
      [0.01, 0.01],
      [0, 0.01],
      [0, 0],
    ],
  ],
};

function refusal(fn: () => unknown): { status: number; names: string[]; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError)
      return { status: err.status, names: err.errors.map((e) => e.name), message: err.message };
    throw err;
  }
  throw new Error("accepted");
}

describe("query inputs, as the domain checks them", () => {
  it("returns problems as values, never an HTTP error", () => {
    expect(checkArea(square)).toEqual({ ok: true, value: square });
    expect(checkArea({ type: "Point", coordinates: [0, 0] })).toEqual({
      ok: false,
      problems: [{ field: "geometry", message: "must be a GeoJSON Polygon" }],
    });
    const huge = { type: "Polygon", coordinates: [Array.from({ length: 10_001 }, (_, i) => [i / 1e4, 0])] };
    expect(checkArea(huge)).toMatchObject({ ok: false, problems: [{ field: "geometry", tooLarge: true }] });
    expect(checkRulesetIds([" a ", "a", ""], "rulesets")).toEqual({ ok: true, value: ["a"] });
    expect(checkRulesetIds([7])).toMatchObject({ ok: false, problems: [{ field: "rulesets" }] });
    expect(checkWindow(2, 1)).toEqual({
      ok: false,
      problems: [{ field: "end", message: "must not be before start" }],
    });
  });
});

describe("query inputs, as the HTTP layer reads them", () => {
  it("takes the area as a Polygon object, a JSON string, or wrapped in {geometry}", () => {
    expect(areaFrom(square)).toEqual(square);
    expect(areaFrom(JSON.stringify(square))).toEqual(square);
    expect(areaFrom({ geometry: square })).toEqual(square);
  });

  it("names geometry when it is not a valid Polygon", () => {
    expect(refusal(() => areaFrom("{not json"))).toMatchObject({ status: 400, names: ["geometry"] });
    expect(refusal(() => areaFrom({ type: "Point", coordinates: [0, 0] })).message).toMatch(
      /must be a GeoJSON Polygon/,
    );
    const open = {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [1, 0],
          [1, 1],
          [0, 1],
        ],
      ],
    };
    expect(refusal(() => areaFrom(open)).message).toMatch(/closed/);
    const bowtie = bowTie;
    expect(refusal(() => areaFrom(bowtie)).message).toMatch(/intersect/);
    const wide = {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [1.5, 0],
          [1.5, 0.1],
          [0, 0.1],
          [0, 0],
        ],
      ],
    };
    expect(refusal(() => areaFrom(wide))).toMatchObject({ status: 400, names: ["geometry"] });
    expect(refusal(() => areaFrom(wide)).message).toMatch(/split the area/);
    const huge = { type: "Polygon", coordinates: [Array.from({ length: 10_001 }, (_, i) => [i / 1e4, 0])] };
    expect(refusal(() => areaFrom(huge)).status).toBe(413);
  });

  it("takes ruleset ids comma-separated or as an array, and refuses none", () => {
    expect(rulesetIdsFrom("usa_part_107, usa_advisories,")).toEqual(["usa_part_107", "usa_advisories"]);
    expect(rulesetIdsFrom(["usa_part_107", "usa_part_107"])).toEqual(["usa_part_107"]);
    expect(refusal(() => rulesetIdsFrom(" , "))).toMatchObject({ status: 400, names: ["rulesets"] });
    expect(refusal(() => rulesetIdsFrom(7)).names).toEqual(["rulesets"]);
  });

  it("reads the time window: now by default, end defaulting to start, never backwards", () => {
    const now = Date.parse("2026-11-21T12:00:00Z");
    expect(timeWindowFrom(undefined, undefined, now)).toEqual({ start: now, end: now });
    const start = "2030-06-01T15:00:00Z";
    expect(timeWindowFrom(start, undefined, now)).toEqual({
      start: Date.parse(start),
      end: Date.parse(start),
    });
    expect(refusal(() => timeWindowFrom("2030-06-01T15:00:00", undefined, now)).names).toEqual(["start"]);
    expect(refusal(() => timeWindowFrom(start, "2030-06-01T14:00:00Z", now)).names).toEqual(["end"]);
    expect(timeWindowFrom("now", "now", now)).toEqual({ start: now, end: now });
  });

  it("refuses unknown airspace types, naming the valid ones", () => {
    expect(typeListFrom("airport,controlled_airspace", "types")).toEqual(["airport", "controlled_airspace"]);
    expect(typeListFrom(undefined, "types")).toBeUndefined();
    expect(typeListFrom(" , ", "types")).toBeUndefined();
    const { names, message } = refusal(() => typeListFrom("airport,castle", "types"));
    expect(names).toEqual(["types"]);
    expect(message).toMatch(/unknown type castle; valid: non_geo, laanc, controlled_airspace/);
  });
});

describe("the spatial grid index", () => {
  it("stores a record under at most 2×2 cells of the finest level that allows it", () => {
    const airport = { minLat: 37.6, maxLat: 37.6, minLng: -122.4, maxLng: -122.4 };
    expect(indexCells(airport)).toEqual([{ level: 0, x: -12240, y: 3760 }]);
    const state = { minLat: 35, maxLat: 42, minLng: -120, maxLng: -114 };
    expect(indexCells(state).every((c) => c.level === 3)).toBe(true);
    const nation = { minLat: -14.6, maxLat: 71.4, minLng: -179.1, maxLng: 179.8 };
    expect(indexCells(nation).every((c) => c.level === 4)).toBe(true);
  });

  it("finds every stored record whose box meets the query box", () => {
    const records = [
      { minLat: 37.6, maxLat: 37.6, minLng: -122.4, maxLng: -122.4 },
      { minLat: 37.0, maxLat: 38.3, minLng: -123.0, maxLng: -121.5 },
      { minLat: -14.6, maxLat: 71.4, minLng: -179.1, maxLng: 179.8 },
      { minLat: 39.0, maxLat: 39.1, minLng: -118.0, maxLng: -117.9 },
    ];
    const query = expandBox({ minLat: 37.6, maxLat: 37.6, minLng: -122.4, maxLng: -122.4 }, 500);
    const ranges = searchRanges(query);
    const found = records.filter((r) =>
      indexCells(r).some((c) =>
        ranges.some(
          (q) => q.level === c.level && c.x >= q.minX && c.x <= q.maxX && c.y >= q.minY && c.y <= q.maxY,
        ),
      ),
    );
    expect(found).toEqual(records.filter((r) => boxesMeet(r, query)));
    expect(found).toHaveLength(3);
  });
});

describe("facility-map grid and distances", () => {
  it("names 30″ cells by row and column and recognises FAA cell polygons", () => {
    const cell = cellAt([-118.78456, 39.47816]);
    expect(cell).toEqual({ row: 4737, col: -14255 });
    const [lng, lat] = cellCenter(cell);
    const h = 1 / 240;
    const polygon: Polygon = {
      type: "Polygon",
      coordinates: [
        [
          [lng - h, lat - h],
          [lng + h, lat - h],
          [lng + h, lat + h],
          [lng - h, lat + h],
          [lng - h, lat - h],
        ],
      ],
    };
    expect(cellOfPolygon(polygon)).toEqual(cell);
    const twice: Polygon = {
      type: "Polygon",
      coordinates: [
        [
          [lng - h, lat - h],
          [lng + 3 * h, lat - h],
          [lng + 3 * h, lat + h],
          [lng - h, lat + h],
          [lng - h, lat - h],
        ],
      ],
    };
    expect(cellOfPolygon(twice)).toBeUndefined();
  });

  it("measures meters to points, lines and shapes, 0 when they meet", () => {
    expect(distanceFromPoint(square, [0.005, 0.005])).toBe(0);
    expect(distanceFromPoint(square, [0.02, 0.005])).toBeCloseTo(1112, -1);
    expect(
      distanceFromPoint(
        {
          type: "LineString",
          coordinates: [
            [0, 0.02],
            [0.01, 0.02],
          ],
        },
        [0.005, 0.01],
      ),
    ).toBeCloseTo(1112, -1);
    expect(distanceToArea({ type: "Point", coordinates: [0.005, 0.005] }, square)).toBe(0);
    const east: Polygon = {
      type: "Polygon",
      coordinates: [
        [
          [0.02, 0],
          [0.03, 0],
          [0.03, 0.01],
          [0.02, 0.01],
          [0.02, 0],
        ],
      ],
    };
    expect(distanceToArea(east, square)).toBeCloseTo(1112, -1);
    expect(distanceToArea(square, square)).toBe(0);
  });
});
