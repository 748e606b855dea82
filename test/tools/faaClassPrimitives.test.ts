import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  type ArcSegment,
  arcPositions,
  destination,
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
