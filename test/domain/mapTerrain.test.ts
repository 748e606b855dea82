import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { CARPET_VOID, type CarpetValues } from "../../worker/domain/elevation/carpet";
import { ARCSEC_PER_DEGREE } from "../../worker/domain/elevation/grid";
import { hillshade, isolines, terrainLayer, terrainPlan } from "../../worker/domain/map/terrain";
import { fitFrame } from "../../worker/domain/map/view";
import { greyPng } from "../../worker/lib/png";

/** A carpet by value function over (row northward, col eastward); null a void. */
function carpetOf(rows: number, cols: number, value: (r: number, c: number) => number | null): CarpetValues {
  const values = new Int32Array(rows * cols);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) values[r * cols + c] = value(r, c) ?? CARPET_VOID;
  return { rows, cols, values };
}

/** A cone 500 m high on a 100 m plain, centred in a 41×41 carpet. */
const cone = carpetOf(41, 41, (r, c) => Math.max(100, 600 - 25 * Math.hypot(r - 20, c - 20)));

describe("isolines (marching squares)", () => {
  it("draws one closed ring around a cone at a level it crosses, at the right distance", () => {
    const lines = isolines(cone, 350);
    expect(lines).toHaveLength(1);
    const ring = lines[0]!;
    expect(ring[0]).toEqual(ring[ring.length - 1]);
    // 600 − 25·d = 350: ten samples from the top, within the interpolation's error across a cell.
    for (const [c, r] of ring) expect(Math.abs(Math.hypot(r - 20, c - 20) - 10)).toBeLessThan(0.3);
  });

  it("draws nothing at a level the ground never reaches, and open lines that stop at voids", () => {
    expect(isolines(cone, 700)).toEqual([]);
    // A west–east ramp with the middle columns void: the level's line breaks into two open runs.
    const ramp = carpetOf(10, 30, (r, c) => (c >= 12 && c <= 17 ? null : r * 10));
    const lines = isolines(ramp, 45);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line[0]).not.toEqual(line[line.length - 1]);
      for (const [c, r] of line) {
        expect(r).toBeCloseTo(4.5);
        expect(c < 12 || c > 17).toBe(true);
      }
    }
  });
});

describe("the hillshade", () => {
  it("leaves flat ground and slopes facing the north-west white, darkens the others, and marks voids 0", () => {
    const carpet = carpetOf(41, 41, (r, c) =>
      r === 0 && c === 0 ? null : Math.max(100, 600 - 25 * Math.hypot(r - 20, c - 20)),
    );
    const shade = hillshade(carpet, 90, 1);
    // Rows north to south: image row 40 − r.
    const at = (r: number, c: number) => shade[(40 - r) * 41 + c]!;
    expect(at(2, 38)).toBe(255); // the plain
    expect(at(28, 12)).toBe(255); // north-west slope, towards the light
    expect(at(12, 28)).toBeLessThan(120); // south-east slope, away from it
    expect(at(0, 0)).toBe(0);
  });
});

describe("the terrain layer", () => {
  const box = { minLng: 11.9, maxLng: 11.95, minLat: 57.6, maxLat: 57.63 };
  const frame = fitFrame(box, { width: 600, aspect: 0.7 });

  it("samples a modest grid over the frame with a sample beyond each edge", () => {
    const plan = terrainPlan(frame);
    const stepDeg = plan.step / ARCSEC_PER_DEGREE;
    expect(plan.south * stepDeg).toBeLessThan(frame.box.minLat);
    expect((plan.south + plan.rows - 1) * stepDeg).toBeGreaterThan(frame.box.maxLat);
    expect(plan.west * stepDeg).toBeLessThan(frame.box.minLng);
    expect((plan.west + plan.cols - 1) * stepDeg).toBeGreaterThan(frame.box.maxLng);
    // About a sample every 6 px down the frame, and never more than 240 a side.
    expect(plan.rows).toBeGreaterThan(frame.height / 7);
    expect(plan.rows).toBeLessThan(frame.height / 5);
    expect(plan.cols).toBeLessThanOrEqual(240);
  });

  it("picks a round interval for the relief in view, in the page's unit, and places the image on the samples", () => {
    const plan = terrainPlan(frame);
    const carpet = carpetOf(plan.rows, plan.cols, (r) => 10 + r * 3);
    const metric = terrainLayer(frame, plan, carpet, "metric")!;
    const relief = metric.high - metric.low;
    expect(relief / metric.interval).toBeLessThanOrEqual(12);
    expect(metric.contours.length).toBeGreaterThan(3);
    expect(metric.contours.every((c) => c.level % metric.interval === 0)).toBe(true);
    const imperial = terrainLayer(frame, plan, carpet, "imperial")!;
    expect(imperial.unit).toBe("ft");
    expect(imperial.high).toBeCloseTo(metric.high / 0.3048, -1);
    // The image spans the carpet: half a sample beyond its outer samples, which lie beyond the view.
    expect(metric.image.x).toBeLessThan(0);
    expect(metric.image.y).toBeLessThan(0);
    expect(metric.image.x + metric.image.width).toBeGreaterThan(frame.width);
    expect(metric.image.y + metric.image.height).toBeGreaterThan(frame.height);
  });

  it("is absent where no sample has data", () => {
    const plan = terrainPlan(frame);
    expect(
      terrainLayer(
        frame,
        plan,
        carpetOf(plan.rows, plan.cols, () => null),
        "metric",
      ),
    ).toBeUndefined();
  });
});

describe("the greyscale PNG", () => {
  it("is a valid PNG whose rows decode back to the pixels, with 0 transparent", () => {
    const pixels = new Uint8Array([0, 10, 20, 30, 40, 50]);
    const png = greyPng(3, 2, pixels);
    expect([...png.subarray(1, 4)].map((b) => String.fromCharCode(b)).join("")).toBe("PNG");
    const text = new TextDecoder("latin1").decode(png);
    expect(text).toContain("tRNS");
    const idat = text.indexOf("IDAT");
    const length = new DataView(png.buffer, png.byteOffset + idat - 4, 4).getUint32(0);
    const raw = inflateSync(png.subarray(idat + 4, idat + 4 + length));
    expect([...raw]).toEqual([0, 0, 10, 20, 0, 30, 40, 50]);
  });
});
