import { describe, expect, it } from "vitest";
import {
  type AirspaceFeature,
  adviseArea,
  type FacilityCell,
  laancOverArea,
  pointStatus,
} from "../../worker/domain/airspace/advisories";
import { CELLS_PER_DEGREE, cellAt, cellBox } from "../../worker/domain/airspace/facilityGrid";
import { decideLaanc } from "../../worker/domain/airspace/laanc";
import type { Rule, Ruleset } from "../../worker/domain/airspace/rules";
import type { Polygon } from "../../worker/domain/geojson";

/** The cell: 400 ft at 39.47816, −118.78456 (Fallon NAS, Class D, LAANC); its east neighbour 200 ft. */
const FALLON = cellAt([-118.78456, 39.47816]);
const fallonMap = {
  airportId: "NFL",
  icao: "KNFL",
  name: "FALLON NAS",
  laanc: true,
  lastEdit: null,
  source: "faa",
};
const cells: FacilityCell[] = [
  { ...FALLON, ceilingFt: 400, map: fallonMap },
  { row: FALLON.row, col: FALLON.col + 1, ceilingFt: 200, map: fallonMap },
];

/** A rectangle inside the given cells (by fractions of a cell), away from their edges. */
function areaOver(fromCol: number, toCol: number): Polygon {
  const west = cellBox({ row: FALLON.row, col: fromCol }).minLng + 0.2 / CELLS_PER_DEGREE;
  const east = cellBox({ row: FALLON.row, col: toCol }).maxLng - 0.2 / CELLS_PER_DEGREE;
  const { minLat, maxLat } = cellBox(FALLON);
  const south = minLat + 0.2 / CELLS_PER_DEGREE;
  const north = maxLat - 0.2 / CELLS_PER_DEGREE;
  return {
    type: "Polygon",
    coordinates: [
      [
        [west, south],
        [east, south],
        [east, north],
        [west, north],
        [west, south],
      ],
    ],
  };
}

const laancRule = (furtherCoordination: boolean): Rule => ({
  id: 1,
  short_text: "Get ATC authorization",
  description: "",
  display_order: 1,
  flight_features: [],
  condition: { authorization: "faa-laanc", further_coordination: furtherCoordination },
  triggers: [{ type: "controlled_airspace", color: "orange" }],
});
const part107 = { rules: [laancRule(true)] };
const recreational = { rules: [laancRule(false)] };
const FT = 0.3048;
const now = Date.parse("2026-11-21T12:00:00Z");

function decide(area: Polygon, altitudeFt: number, rulesets = [part107], startTime = now) {
  return decideLaanc({
    maxAltitudeAgl: altitudeFt * FT,
    startTime,
    now,
    rulesets,
    ...laancOverArea(area, [], cells),
  });
}

describe("LAANC: the lowest facility-map ceiling over the area decides", () => {
  it("accepts at once at or below the ceiling of the one cell under the area", () => {
    const [authorization] = decide(areaOver(FALLON.col, FALLON.col), 400);
    expect(authorization).toMatchObject({
      status: "accepted",
      authority: { id: "faa-laanc", name: "FAA LAANC" },
    });
    expect(authorization!.message).toContain("400 ft");
    expect(authorization!.description).toContain("KNFL");
  });

  it("takes the lowest cell when the area spans two: 300 ft over 400 and 200 ft cells is above 200", () => {
    const inFourDays = now + 4 * 86_400_000;
    expect(decide(areaOver(FALLON.col, FALLON.col + 1), 200)[0]!.status).toBe("accepted");
    const [above] = decide(areaOver(FALLON.col, FALLON.col + 1), 300, [part107], inFourDays);
    expect(above).toMatchObject({ status: "pending" });
    expect(above!.message).toContain("200 ft");
  });

  it("rejects above the ceiling when further coordination would come less than 72 hours ahead", () => {
    const [soon] = decide(areaOver(FALLON.col, FALLON.col + 1), 300, [part107], now + 71 * 3_600_000);
    expect(soon).toMatchObject({ status: "rejected" });
    expect(soon!.message).toContain("72 hours");
    expect(
      decide(areaOver(FALLON.col, FALLON.col + 1), 300, [part107], now + 72 * 3_600_000)[0]!.status,
    ).toBe("pending");
  });

  it("rejects above the ceiling where the rules allow no further coordination, and above 400 ft always", () => {
    expect(decide(areaOver(FALLON.col, FALLON.col + 1), 300, [recreational])[0]!.status).toBe("rejected");
    expect(decide(areaOver(FALLON.col, FALLON.col), 450)[0]!.status).toBe("rejected");
  });

  it("requests nothing at airports without LAANC, more than 90 days ahead, or without a LAANC ruleset", () => {
    const noLaanc = decideLaanc({
      maxAltitudeAgl: 30,
      startTime: now,
      now,
      rulesets: [part107],
      ...laancOverArea(
        areaOver(FALLON.col, FALLON.col),
        [],
        [{ ...cells[0]!, map: { ...fallonMap, laanc: false } }],
      ),
    });
    expect(noLaanc[0]).toMatchObject({ status: "not_requested" });
    expect(noLaanc[0]!.message).toContain("FAADroneZone");
    expect(decide(areaOver(FALLON.col, FALLON.col), 100, [part107], now + 91 * 86_400_000)[0]!.status).toBe(
      "not_requested",
    );
    expect(decide(areaOver(FALLON.col, FALLON.col), 100, [{ rules: [] }])).toEqual([]);
  });

  it("names controlled airspace that no facility map covers", () => {
    const area = areaOver(FALLON.col, FALLON.col);
    const classD: AirspaceFeature = feature("controlled_airspace", "FALLON CLASS D", area);
    const [manual] = decideLaanc({
      maxAltitudeAgl: 30,
      startTime: now,
      now,
      rulesets: [part107],
      ...laancOverArea(area, [classD], []),
    });
    expect(manual).toMatchObject({
      status: "not_requested",
      description: "Authorization for FALLON CLASS D",
    });
  });
});

function feature(
  type: string,
  name: string,
  geometry: AirspaceFeature["geometry"],
  extra: Partial<AirspaceFeature> = {},
): AirspaceFeature {
  return {
    externalId: `test:${name}`,
    type,
    name,
    geometry,
    latitude: 39.478,
    longitude: -118.785,
    radiusM: 0,
    properties: {},
    floorM: null,
    ceilingM: null,
    floorCode: null,
    ceilingCode: null,
    effectiveStart: null,
    effectiveEnd: null,
    lastUpdated: null,
    city: "Fallon",
    state: "Nevada",
    country: "USA",
    ...extra,
  };
}

const withRules = (id: string, rules: Rule[]): Ruleset => ({
  id,
  name: id,
  short_name: id,
  description: "",
  selection_type: "pick1",
  default: true,
  jurisdiction: { id: 840, name: "United States", region: "federal" },
  airspace_types: [],
  rules,
});

describe("advisories over an area", () => {
  const area = areaOver(FALLON.col, FALLON.col + 1);
  const wide: Polygon = {
    type: "Polygon",
    coordinates: [
      [
        [-118.9, 39.4],
        [-118.6, 39.4],
        [-118.6, 39.6],
        [-118.9, 39.6],
        [-118.9, 39.4],
      ],
    ],
  };
  const classD = feature("controlled_airspace", "FALLON CLASS D", wide, {
    properties: { airspace_classification: "D" },
    floorM: 0,
    ceilingM: 1950.72,
    floorCode: "AGL",
    ceilingCode: "MSL",
  });
  // About 100 m east of the area, within the 200 m a hospital point reaches.
  const hospital = feature(
    "hospital",
    "HOSPITAL",
    { type: "Point", coordinates: [-118.7755, 39.479] },
    { radiusM: 200 },
  );
  const farSchool = feature(
    "school",
    "FAR SCHOOL",
    { type: "Point", coordinates: [-118.5, 39.2] },
    { radiusM: 200 },
  );
  const advisories = withRules("usa_advisories", [
    {
      ...laancRule(true),
      id: 30003,
      condition: null,
      triggers: [
        { type: "hospital", color: "yellow" },
        { type: "school", color: "yellow" },
      ],
    },
  ]);

  it("lists what meets the area under the ruleset that colors it most, with LAANC properties and extents", () => {
    const result = adviseArea({
      area,
      features: [classD, hospital, farSchool],
      cells,
      rulesets: [withRules("usa_part_107", [laancRule(true)]), advisories],
      withExtents: true,
    });
    expect(result.color).toBe("orange");
    const controlled = result.advisories.find((a) => a.type === "controlled_airspace")!;
    expect(controlled).toMatchObject({
      rule_id: 1,
      ruleset_id: "usa_part_107",
      distance: 0,
      color: "orange",
      properties: {
        laanc: true,
        authorization: true,
        ceiling: 200,
        airport_id: "NFL",
        icao: "KNFL",
        auto_auth_floor_m_agl: 0,
        auto_auth_ceiling_m_agl: 60.96,
        manual_auth_ceiling_m_agl: 121.92,
      },
      requirements: { notice: { phone: null, digital: true } },
      extents: { floor_m: 0, ceiling_m: 1950.72, floor_code: "AGL", ceiling_code: "MSL" },
    });
    const near = result.advisories.find((a) => a.name === "HOSPITAL")!;
    expect(near).toMatchObject({ ruleset_id: "usa_advisories", rule_id: 30003, color: "yellow" });
    expect(near.distance).toBeGreaterThan(0);
    expect(near.extents).toEqual({ floor_m: 0, ceiling_m: 121.92, floor_code: "AGL", ceiling_code: "AGL" });
    expect(result.advisories.some((a) => a.name === "FAR SCHOOL")).toBe(false);
  });

  it("leaves out what no chosen ruleset has a rule for, and is green when nothing is left", () => {
    const result = adviseArea({
      area,
      features: [classD, hospital],
      cells,
      rulesets: [advisories],
      withExtents: false,
    });
    expect(result.advisories.map((a) => a.name)).toEqual(["HOSPITAL"]);
    expect(result.advisories[0]!.extents).toBeUndefined();
    expect(adviseArea({ area, features: [], cells: [], rulesets: [advisories], withExtents: false })).toEqual(
      {
        color: "green",
        advisories: [],
      },
    );
  });
});

describe("status at a point", () => {
  const wide: Polygon = {
    type: "Polygon",
    coordinates: [
      [
        [-118.9, 39.4],
        [-118.6, 39.4],
        [-118.6, 39.6],
        [-118.9, 39.6],
        [-118.9, 39.4],
      ],
    ],
  };
  const classD = feature("controlled_airspace", "FALLON CLASS D", wide, {
    properties: { airspace_classification: "D" },
  });
  const insideFallonCell: [number, number] = [-118.78456, 39.47816];

  it("splits controlled airspace into its facility-map cells within the buffer", () => {
    const status = pointStatus({
      point: insideFallonCell,
      buffer: 100,
      features: [classD],
      cells,
      rulesets: [withRules("usa_part_107", [laancRule(true)])],
      includeCells: true,
    });
    expect(status.max_safe_distance).toBe(0);
    expect(status.advisory_color).toBe("orange");
    expect(status.advisories).toHaveLength(1);
    expect(status.advisories[0]).toMatchObject({
      id: `facility_map:NFL:${FALLON.row}:${FALLON.col}`,
      name: "FALLON CLASS D",
      type: "controlled_airspace",
      distance: 0,
      properties: { airspace_class: "d", ceiling: 400, laanc: true, source: "faa" },
    });
  });

  it("builds the properties of cells with one airspace, map and ceiling once, and shares them", () => {
    const { row, col } = FALLON;
    const status = pointStatus({
      point: insideFallonCell,
      buffer: 2_000,
      features: [classD],
      cells: [
        { row, col, ceilingFt: 400, map: fallonMap },
        { row, col: col + 1, ceilingFt: 200, map: fallonMap },
        { row, col: col + 2, ceilingFt: 400, map: fallonMap },
      ],
      rulesets: [withRules("usa_part_107", [laancRule(true)])],
      includeCells: true,
    });
    const cellAt = (c: number) => status.advisories.find((a) => a.id === `facility_map:NFL:${row}:${c}`)!;
    const [own, east, further] = [cellAt(col), cellAt(col + 1), cellAt(col + 2)];
    expect(own.properties).toBe(further.properties);
    expect(own.properties).toMatchObject({ airspace_class: "d", ceiling: 400, authorization: true });
    expect(east.properties).not.toBe(own.properties);
    expect(east.properties).toMatchObject({ airspace_class: "d", ceiling: 200, authorization: true });
    expect([own.distance, east.distance, further.distance]).toEqual([
      0,
      expect.any(Number),
      expect.any(Number),
    ]);
    expect(further.distance).toBeGreaterThan(east.distance);
  });

  it("gives the distance to the nearest advisory, and the buffer when there is none", () => {
    const hospital = feature(
      "hospital",
      "HOSPITAL",
      { type: "Point", coordinates: [-118.77, 39.47] },
      { radiusM: 200 },
    );
    const status = pointStatus({
      point: insideFallonCell,
      buffer: 2_000,
      features: [hospital],
      cells: [],
      rulesets: [],
      includeCells: false,
    });
    expect(status.advisories[0]!.color).toBe("yellow");
    expect(status.max_safe_distance).toBe(status.advisories[0]!.distance);
    expect(status.max_safe_distance).toBeGreaterThan(1_000);
    const empty = pointStatus({
      point: insideFallonCell,
      buffer: 500,
      features: [],
      cells: [],
      rulesets: [],
      includeCells: true,
    });
    expect(empty).toEqual({ max_safe_distance: 500, advisory_color: "green", advisories: [] });
  });
});
