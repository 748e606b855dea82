import { describe, expect, it } from "vitest";
import { EMPTY_CONTEXT, mapLayers } from "../../worker/domain/map/layers";
import {
  clipRing,
  fitFrame,
  metersPerPixel,
  polygonPath,
  project,
  scaleBar,
  simplify,
} from "../../worker/domain/map/view";

const box = { minLng: -122.38, maxLng: -122.37, minLat: 37.61, maxLat: 37.62 };

describe("the shared map's frame", () => {
  it("fits a box north up with its padding, true to shape, and at least the minimum span", () => {
    const frame = fitFrame(box, { width: 640, aspect: 0.75, padding: 0.25 });
    expect([frame.width, frame.height]).toEqual([640, 480]);
    const sw = project(frame, [box.minLng, box.minLat]);
    const ne = project(frame, [box.maxLng, box.maxLat]);
    // North up, east right; the box sits inside the drawing.
    expect(ne.x).toBeGreaterThan(sw.x);
    expect(ne.y).toBeLessThan(sw.y);
    for (const p of [sw, ne]) {
      expect(p.x).toBeGreaterThan(0);
      expect(p.x).toBeLessThan(640);
      expect(p.y).toBeGreaterThan(0);
      expect(p.y).toBeLessThan(480);
    }
    // True to shape: a degree of longitude is cos(lat) of a degree of latitude.
    const widthPx = ne.x - sw.x;
    const heightPx = sw.y - ne.y;
    expect(widthPx / heightPx).toBeCloseTo(Math.cos((37.615 * Math.PI) / 180), 2);
    // The geographic box of the frame maps back onto the drawing's corners.
    expect(project(frame, [frame.box.minLng, frame.box.maxLat])).toEqual({ x: 0, y: 0 });
    const corner = project(frame, [frame.box.maxLng, frame.box.minLat]);
    expect(corner.x).toBeCloseTo(640, 0);
    expect(corner.y).toBeCloseTo(480, 0);
    // A 3 km minimum widens the ~1.1 km box.
    const wide = fitFrame(box, { width: 640, minSpanM: 3000 });
    expect(metersPerPixel(wide) * 640).toBeGreaterThanOrEqual(2999);
    expect(metersPerPixel(wide)).toBeGreaterThan(metersPerPixel(frame));
  });
});

describe("simplification and clipping", () => {
  it("drops points within the tolerance and keeps the corners", () => {
    const wiggly = Array.from({ length: 101 }, (_, i) => ({ x: i, y: i % 2 === 0 ? 0 : 0.4 }));
    expect(simplify(wiggly, 1)).toEqual([
      { x: 0, y: 0 },
      { x: 100, y: 0 },
    ]);
    const corner = [
      { x: 0, y: 0 },
      { x: 50, y: 0.2 },
      { x: 100, y: 0 },
      { x: 100, y: 50 },
      { x: 100, y: 100 },
    ];
    expect(simplify(corner, 1)).toEqual([
      { x: 0, y: 0 },
      { x: 100, y: 0 },
      { x: 100, y: 100 },
    ]);
    expect(simplify(corner, 0.1)).toHaveLength(4);
  });

  it("clips a ring to the view, and drops one wholly outside", () => {
    const square = [
      { x: -50, y: -50 },
      { x: 50, y: -50 },
      { x: 50, y: 50 },
      { x: -50, y: 50 },
    ];
    const clipped = clipRing(square, { x: 0, y: 0 }, { x: 100, y: 100 });
    expect(clipped.map((p) => [p.x, p.y]).sort()).toEqual(
      [
        [0, 0],
        [50, 0],
        [50, 50],
        [0, 50],
      ].sort(),
    );
    expect(clipRing(square, { x: 200, y: 200 }, { x: 300, y: 300 })).toEqual([]);
  });

  it("draws a dense coastline in few points, inside the view", () => {
    const frame = fitFrame(box, { width: 640, padding: 0.25 });
    // A 10 000-point ring far larger than the view, with sub-metre noise along its edges.
    const ring: [number, number][] = [];
    for (let i = 0; i < 10_000; i++) {
      const t = (i / 10_000) * 2 * Math.PI;
      ring.push([
        -122.375 + Math.cos(t) * 0.5 + (i % 2) * 1e-6,
        37.615 + Math.sin(t) * 0.004 + (i % 3) * 1e-6,
      ]);
    }
    ring.push(ring[0]!);
    const d = polygonPath(frame, { type: "Polygon", coordinates: [ring] });
    const points = [...d.matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(points.length).toBeGreaterThan(3);
    expect(points.length).toBeLessThan(200);
    for (const [x, y] of points) {
      expect(x).toBeGreaterThanOrEqual(-4);
      expect(x).toBeLessThanOrEqual(644);
      expect(y).toBeGreaterThanOrEqual(-4);
      expect(y).toBeLessThanOrEqual(484);
    }
    const far: [number, number][] = [
      [10, 10],
      [11, 10],
      [11, 11],
      [10, 10],
    ];
    expect(polygonPath(frame, { type: "Polygon", coordinates: [far] })).toBe("");
  });
});

describe("the scale bar", () => {
  it("is a round length no longer than a quarter of the width, in the pilot's unit", () => {
    const frame = fitFrame(box, { width: 640, minSpanM: 3000 });
    const metric = scaleBar(frame, "metric");
    expect(metric.label).toMatch(/^(1|2|5)(0*) (m|km)$/);
    expect(metric.pixels).toBeLessThanOrEqual(160);
    expect(metric.pixels).toBeGreaterThan(160 / 5);
    expect(metric.pixels * metersPerPixel(frame)).toBeCloseTo(metric.meters, -1);
    const imperial = scaleBar(frame, "imperial");
    expect(imperial.label).toMatch(/^(1|2|5)(0*) (ft|mi)$/);
    expect(imperial.pixels).toBeLessThanOrEqual(160);
    const wide = scaleBar(fitFrame({ ...box, maxLng: -121.3 }, { width: 640 }), "imperial");
    expect(wide.label).toMatch(/ mi$/);
    expect(wide.meters % 1609.344).toBeCloseTo(0, 3);
  });

  it("comes with an empty context as layers with nothing around", () => {
    const layers = mapLayers(fitFrame(box), EMPTY_CONTEXT, new Map(), "metric");
    expect(layers.boundaries).toEqual([]);
    expect(layers.airports).toEqual([]);
    expect(layers.scale.label).toMatch(/ (m|km)$/);
  });
});
