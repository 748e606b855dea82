import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  type ArcSegment,
  arcPositions,
  destination,
  type Lnglat,
  MAX_BOUNDARY_ERROR_M,
  parseFaaClassPrimitives,
  ringPositions,
  stepDegrees,
} from "../../tools/airspace/formats/faaClassPrimitives";
import { containsPoint } from "../../worker/domain/airspace/geometry";
import type { MultiPolygon, Polygon, Position } from "../../worker/domain/geojson";

const FILE = path.join(__dirname, "../../data/airspace/faa_class_airspace_primitives.json");
const text = readFileSync(FILE, "utf8");
const source = JSON.parse(text) as { count: number; airspaces: { id: string; rings: unknown[][] }[] };
const parsed = parseFaaClassPrimitives(text);

/** Meters between two points a few hundred meters apart (flat is exact enough there). */
function shortDistance([lng1, lat1]: Position, [lng2, lat2]: Position): number {
  const lat = ((lat1 + lat2) / 2) * (Math.PI / 180);
  // WGS84 radii of curvature at this latitude.
  const e2 = 0.00669437999014;
  const w = Math.sqrt(1 - e2 * Math.sin(lat) ** 2);
  const meridional = (6378137 * (1 - e2)) / w ** 3;
  const normal = 6378137 / w;
  return Math.hypot(
    ((lat2 - lat1) * Math.PI * meridional) / 180,
    ((lng2 - lng1) * Math.PI * normal * Math.cos(lat)) / 180,
  );
}

describe("the FAA Class B/C/D primitives reader", () => {
  it("reads every shelf of the file, the one without an ident included", () => {
    expect(source.count).toBe(1286);
    expect(source.airspaces).toHaveLength(1286);
    expect(parsed.features).toHaveLength(1286);
    expect(parsed.skipped.size).toBe(0);
    const byClass = (c: string) => parsed.features.filter((f) => f.properties.airspace_classification === c);
    expect([byClass("B").length, byClass("C").length, byClass("D").length]).toEqual([369, 340, 577]);
    const withoutIdent = parsed.features.filter((f) => f.name === "SAULT STE MARIE CLASS D");
    expect(withoutIdent.length).toBeGreaterThan(0);
    for (const f of withoutIdent) expect(f.properties.airport_id).toBeUndefined();
    expect(new Set(parsed.features.map((f) => f.sourceId)).size).toBe(parsed.features.length);
  });

  it("says the NASR cycle and its date on every record", () => {
    expect(parsed.cycle).toBe("FAA NASR 28-day cycle effective 2026-05-14");
    for (const f of parsed.features) {
      expect(f.source).toBe(parsed.cycle);
      expect(f.lastUpdated).toBe(Date.parse("2026-05-14T00:00:00Z"));
    }
  });

  it("knows McGhee Tyson (TYS) as three Class C shelves, surface to 5,000 ft MSL, floors 2,500 and 3,500", () => {
    const tys = parsed.features.filter((f) => f.properties.airport_id === "TYS");
    expect(tys.map((f) => f.properties.airspace_classification)).toEqual(["C", "C", "C"]);
    expect(tys.every((f) => f.name.endsWith("CLASS C"))).toBe(true);
    expect(tys.map((f) => [f.properties.floor_reference, f.properties.floor_ft]).sort()).toEqual([
      ["MSL", 2500],
      ["MSL", 3500],
      ["SFC", 0],
    ]);
    expect(tys.map((f) => [f.floorM, f.floorCode])).toContainEqual([0, "AGL"]);
    expect(tys.every((f) => f.ceilingM === 1524 && f.ceilingCode === "MSL")).toBe(true);
  });

  it("puts a point inside SFO's Class B surface area in its surface shelf, and none of its 17 shelves far away", () => {
    const sfo = parsed.features.filter((f) => f.properties.airport_id === "SFO");
    expect(sfo).toHaveLength(17);
    const surface = sfo.filter((f) => f.properties.floor_reference === "SFC");
    expect(surface).toHaveLength(1);
    // SFO's runway 28L/28R intersection with 1L/1R: the airport itself.
    const airport: Position = [-122.379, 37.6155];
    expect(containsPoint(surface[0]!.geometry as Polygon | MultiPolygon, airport)).toBe(true);
    const sacramento: Position = [-121.4944, 38.5816];
    expect(sfo.some((f) => containsPoint(f.geometry as Polygon | MultiPolygon, sacramento))).toBe(false);
  });

  it("densifies arcs so that no chord lies more than 50 m from the arc", () => {
    for (const radiusNm of [0.5, 1, 5, 10, 30, 111]) {
      const radiusM = radiusNm * 1852;
      const step = stepDegrees(radiusM);
      // The sagitta of one step's chord, the chord's furthest point from the arc.
      expect(radiusM * (1 - Math.cos(((step / 2) * Math.PI) / 180))).toBeLessThanOrEqual(
        MAX_BOUNDARY_ERROR_M,
      );
      const center: [number, number] = [-122.37, 47.6];
      const arc: ArcSegment = {
        type: "arc",
        center,
        radius_nm: radiusNm,
        start: destination(center, 10, radiusM),
        end: destination(center, 250, radiusM),
        start_bearing_deg: 10,
        end_bearing_deg: 250,
        direction: "CW",
        sweep_deg: 240,
      };
      const points = arcPositions(arc);
      let worst = 0;
      for (let i = 0; i + 1 < points.length; i++) {
        const [a, b] = [points[i]!, points[i + 1]!];
        // The points stand at equal turns from 10° to 250°: the arc's middle between two is known.
        const bearing = 10 + ((i + 0.5) * 240) / (points.length - 1);
        const onArc = destination(center, bearing, radiusM);
        const chordMiddle: Position = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
        worst = Math.max(worst, shortDistance(onArc, chordMiddle));
      }
      expect(worst).toBeLessThanOrEqual(MAX_BOUNDARY_ERROR_M);
      expect(worst).toBeGreaterThan(MAX_BOUNDARY_ERROR_M / 4); // not needlessly dense
    }
  });

  it("joins a gap between segments with a straight line and closes the ring", () => {
    const ring = ringPositions([
      { type: "line", from: [-100, 40], to: [-99.9, 40] },
      { type: "line", from: [-99.9, 40.05], to: [-100, 40.1] },
    ]);
    expect(ring).toEqual([
      [-100, 40],
      [-99.9, 40],
      [-99.9, 40.05],
      [-100, 40.1],
      [-100, 40],
    ]);
  });

  it("converts the whole file quickly (npm start seeds it)", () => {
    const started = performance.now();
    parseFaaClassPrimitives(text);
    expect(performance.now() - started).toBeLessThan(1500);
  });
});

describe("the repair of surface shelves that miss their field", () => {
  // Field positions as OurAirports gives them (the seeder passes its airports the same way).
  const fields: Record<string, Lnglat> = { TYS: [-83.994003, 35.811001], LAS: [-115.151817, 36.083361] };
  const repairedParse = parseFaaClassPrimitives(text, (ident) => fields[ident]);
  const shelvesOf = (records: typeof parsed.features, ident: string) =>
    records.filter((f) => f.properties.airport_id === ident);
  const surfaceOf = (records: typeof parsed.features, ident: string) =>
    shelvesOf(records, ident).find((f) => f.properties.floor_reference === "SFC")!;
  const TYS_FIELD: Position = [-83.994, 35.811];

  it("rebuilds McGhee Tyson's and Las Vegas's surface shelves so their fields are inside", () => {
    expect(containsPoint(surfaceOf(parsed.features, "TYS").geometry as Polygon, TYS_FIELD)).toBe(false);
    const tys = surfaceOf(repairedParse.features, "TYS");
    expect(containsPoint(tys.geometry as Polygon, TYS_FIELD)).toBe(true);
    expect(tys.properties).toMatchObject({ airspace_classification: "C", floor_ft: 0, ceiling_ft: 5000 });
    expect(tys.properties.geometry_repaired).toMatch(/missed its own airport.*the 5 NM circle/);
    const las = surfaceOf(repairedParse.features, "LAS");
    expect(containsPoint(surfaceOf(parsed.features, "LAS").geometry as Polygon, fields.LAS!)).toBe(false);
    expect(containsPoint(las.geometry as Polygon, fields.LAS!)).toBe(true);
    expect(las.properties).toMatchObject({ airspace_classification: "B", floor_ft: 0 });
    expect(las.properties.geometry_repaired).toMatch(/the 6 NM circle/);
    expect(repairedParse.repaired).toEqual(["LAS-class-b-11", "TYS-class-c-1"]);
    expect(repairedParse.features).toHaveLength(1286);
  });

  it("keeps the 5 NM surface area under the 5–10 NM shelves at TYS", () => {
    const [surface, above2500, above3500] = shelvesOf(repairedParse.features, "TYS");
    const sevenNorth = destination(TYS_FIELD as Lnglat, 0, 7 * 1852);
    const sevenEast = destination(TYS_FIELD as Lnglat, 90, 7 * 1852);
    expect(above2500!.properties.floor_ft).toBe(2500);
    expect(above3500!.properties.floor_ft).toBe(3500);
    for (const point of [sevenNorth, sevenEast])
      expect(containsPoint(surface!.geometry as Polygon, point)).toBe(false);
    expect(containsPoint(above2500!.geometry as Polygon, sevenNorth)).toBe(true);
    expect(containsPoint(above3500!.geometry as Polygon, sevenEast)).toBe(true);
    // The cut-out the fit kept (1 NM about a point 4.7 NM north-east) stays outside the surface area.
    expect(containsPoint(surface!.geometry as Polygon, [-83.9578, 35.8855])).toBe(false);
    expect(
      containsPoint(surface!.geometry as Polygon, destination(TYS_FIELD as Lnglat, 225, 4.5 * 1852)),
    ).toBe(true);
  });

  it("repairs nothing without field positions, and leaves other airports' records as they were", () => {
    expect(parsed.repaired).toEqual([]);
    expect(parsed.features.some((f) => "geometry_repaired" in f.properties)).toBe(false);
    const untouched = repairedParse.features.filter((f) => !repairedParse.repaired.includes(f.sourceId));
    expect(untouched.every((f) => !("geometry_repaired" in f.properties))).toBe(true);
    expect(surfaceOf(repairedParse.features, "PDX").geometry).toEqual(
      surfaceOf(parsed.features, "PDX").geometry,
    );
  });
});
