import { beforeAll, describe, expect, it } from "vitest";
import {
  decodeChunk,
  emptyTile,
  encodeChunk,
  encodeTile,
  maskHas,
} from "../../worker/domain/elevation/chunk";
import { Coverage } from "../../worker/domain/elevation/coverage";
import {
  chunkCells,
  chunksPerSide,
  isValidStep,
  NODATA,
  parseTileName,
  snap,
  tileName,
} from "../../worker/domain/elevation/grid";
import {
  MAX_POINTS,
  PointsError,
  parsePath,
  parsePoints,
  parseRectangle,
} from "../../worker/domain/elevation/points";
import {
  carpetPositions,
  interpolate,
  MAX_CHUNKS_PER_REQUEST,
  MAX_PATH_SAMPLES,
  pathPositions,
  planCarpet,
  planPath,
  sampleElevations,
  stats,
  UNCOVERED_STEP,
} from "../../worker/domain/elevation/sampling";
import { objectsOf, storeOf, tileOf } from "./elevationFixtures";

/** A plane over two 3″ tiles side by side, continuous across their shared edge. */
const plane = (lat: number, lng: number) => 100 + (lat - 10) * 1200 + (lng - 20) * 2400;

describe("elevation grid", () => {
  it("takes steps that tile a degree and chunks that tile a tile", () => {
    expect([1, 3, 30, 3600].every(isValidStep)).toBe(true);
    expect([0, 7, 1.5, 3601].some(isValidStep)).toBe(false);
    expect([chunkCells(1), chunksPerSide(1)]).toEqual([240, 15]);
    expect([chunkCells(3), chunksPerSide(3)]).toEqual([240, 5]);
    expect([chunkCells(30), chunksPerSide(30)]).toEqual([120, 1]);
  });

  it("names tiles like .hgt files, both ways", () => {
    expect(tileName(57, 11)).toBe("N57E011");
    expect(tileName(-12, -77)).toBe("S12W077");
    expect(tileName(36, -85)).toBe("N36W085");
    expect(parseTileName("S12W077")).toEqual({ lat: -12, lng: -77 });
    expect(parseTileName("N57E011")).toEqual({ lat: 57, lng: 11 });
    expect(parseTileName("N91E000")).toBeUndefined();
    expect(parseTileName("X57E011")).toBeUndefined();
  });

  it("snaps float noise onto whole samples only", () => {
    expect(snap(43739.99999999999)).toBe(43740);
    expect(snap(0.5)).toBe(0.5);
  });
});

describe("elevation chunks", () => {
  it("round-trips through the stored format", () => {
    const values = Int16Array.from([1, -2, NODATA, 32767, -32767, 0]);
    const chunk = { step: 3, rows: 2, cols: 3, nodata: NODATA, south: 205_200, west: -304_200, values };
    expect(decodeChunk(encodeChunk(chunk))).toEqual(chunk);
  });

  it("refuses bytes that are not a whole chunk", () => {
    const bytes = encodeChunk({
      step: 3,
      rows: 2,
      cols: 2,
      nodata: NODATA,
      south: 0,
      west: 0,
      values: new Int16Array(4),
    });
    expect(() => decodeChunk(bytes.subarray(0, bytes.length - 2))).toThrow(/truncated/);
    expect(() => decodeChunk(new Uint8Array(24))).toThrow(/not an elevation chunk/);
  });

  it("cuts a tile into overlapping chunks, keeping only those with data", async () => {
    // Data only in the south-west corner cell, which chunk (0,0) holds alone.
    const tile = tileOf(10, 20, 3, (k, m) => (k <= 1 && m <= 1 ? 7 : null));
    const encoded = await encodeTile(tile);
    expect(encoded.chunks.map((c) => [c.row, c.col])).toEqual([[0, 0]]);
    expect(maskHas(encoded.mask, 0)).toBe(true);
    expect(maskHas(encoded.mask, 1)).toBe(false);
    expect(encoded.validSamples).toBe(4);

    // Row 240 of the tile is the top row of chunk row 0 and the bottom row of chunk row 1.
    const edge = await encodeTile(tileOf(10, 20, 3, (k, m) => k * 2 + m));
    const below = decodeChunk(edge.chunks.find((c) => c.row === 0 && c.col === 0)!.bytes);
    const above = decodeChunk(edge.chunks.find((c) => c.row === 1 && c.col === 0)!.bytes);
    expect(below.values[240 * 241 + 5]).toBe(480 + 5);
    expect(above.values[5]).toBe(480 + 5);
    expect([below.south, below.west, above.south]).toEqual([36_000, 72_000, 36_000 + 720]);
  });

  it("names a tile by its content", async () => {
    const a = await encodeTile(tileOf(10, 20, 30, (k) => k));
    const again = await encodeTile(tileOf(10, 20, 30, (k) => k));
    const changed = await encodeTile(tileOf(10, 20, 30, (k) => k + 1));
    expect(again.version).toBe(a.version);
    expect(changed.version).not.toBe(a.version);
  });
});

describe("bilinear and nearest interpolation", () => {
  // Four known samples, rows northward: (0,0)=100 (0,1)=200 (1,0)=300 (1,1)=500.
  const grid = { rows: 2, cols: 2, nodata: NODATA, values: [100, 200, 300, 500] };

  it("matches the value computed by hand", () => {
    // y=0.25, x=0.5: 0.75·0.5·100 + 0.75·0.5·200 + 0.25·0.5·300 + 0.25·0.5·500 = 212.5
    expect(interpolate(grid, 0.25, 0.5, "bilinear")).toBe(212.5);
    expect(interpolate(grid, 0, 0, "bilinear")).toBe(100);
    expect(interpolate(grid, 1, 1, "bilinear")).toBe(500);
    expect(interpolate(grid, 0.25, 0.5, "nearest")).toBe(200);
  });

  it("is void where a weighted sample is void, but not on a sample beside one", () => {
    const holed = { ...grid, values: [100, NODATA, 300, 500] };
    expect(interpolate(holed, 0.25, 0.5, "bilinear")).toBeNull();
    expect(interpolate(holed, 0, 0, "bilinear")).toBe(100);
    expect(interpolate(holed, 0.5, 0, "bilinear")).toBe(200);
    expect(
      interpolate({ ...grid, nodata: Number.NaN, values: [Number.NaN, 1, 1, 1] }, 0.5, 0.5, "bilinear"),
    ).toBeNull();
  });
});

describe("sampling stored tiles", () => {
  let store: ReturnType<typeof storeOf>;
  beforeAll(async () => {
    store = storeOf(
      await objectsOf([
        tileOf(10, 20, 3, (k, m) => 100 + k + 2 * m),
        tileOf(10, 21, 3, (k, m) => 100 + k + 2 * (m + 1200)),
        tileOf(11, 20, 30, (k) => 5000 + k),
        tileOf(12, 20, 3, (k, m) =>
          (k === 10 || k === 11) && (m === 10 || m === 11)
            ? [100, 200, 300, 500][(k - 10) * 2 + m - 10]!
            : null,
        ),
      ]),
    );
  });

  const at = async (points: [number, number][], mode: "bilinear" | "nearest" = "bilinear") =>
    sampleElevations(
      store.coverage,
      points.map((p) => p[0]),
      points.map((p) => p[1]),
      mode,
      store.load,
    );

  it("reproduces the hand-computed bilinear value from stored samples", async () => {
    // Samples (k,m) 10..11 of N12E020 hold 100 200 / 300 500; the point is at k=10.25, m=10.75:
    // 0.75·0.25·100 + 0.75·0.75·200 + 0.25·0.25·300 + 0.25·0.75·500 = 243.75 → 244.
    const lat = 12 + 10.25 / 1200;
    const lng = 20 + 10.75 / 1200;
    expect(await at([[lat, lng]])).toEqual([244]);
    expect(await at([[lat, lng]], "nearest")).toEqual([200]);
    expect(await at([[12 + 10 / 1200, 20 + 10 / 1200]])).toEqual([100]);
    expect(await at([[12 + 9.5 / 1200, 20 + 10 / 1200]])).toEqual([null]);
  });

  it("agrees across chunk and tile boundaries, on sample lines and tile edges", async () => {
    const points: [number, number][] = [
      [10 + 240 / 1200, 20.1], // on the line chunk rows 0 and 1 share
      [10 + 240.5 / 1200, 20 + 480.25 / 1200], // just above it, between chunk columns
      [10.5, 21], // on the edge both tiles hold
      [10.5, 20.99999], // just west of it
      [10.5, 21.00001], // just east of it
      [10, 20], // the south-west corner, no neighbours loaded
      [10.25, 20], // the west edge, no western tile
    ];
    const values = await at(points);
    expect(values).toEqual(points.map(([lat, lng]) => Math.round(plane(lat, lng))));
  });

  it("serves an edge from the finer of the two tiles that hold it", async () => {
    // Latitude 11 is the top edge of the 3″ tile and the bottom edge of the 30″ one.
    expect(await at([[11, 20.5]])).toEqual([Math.round(plane(11, 20.5))]);
    expect(await at([[11.5, 20.5]])).toEqual([5060]);
  });

  it("answers null outside coverage and where no tile is", async () => {
    expect(
      await at([
        [60.5, 20.5],
        [-56.5, 20.5],
        [0, 0],
        [10.5, 22.5],
      ]),
    ).toEqual([null, null, null, null]);
  });

  it("reads each chunk once however many points fall in it", async () => {
    store.reads.length = 0;
    await at(Array.from({ length: 50 }, (_, i) => [10.01 + i * 1e-4, 20.01] as [number, number]));
    expect(store.reads).toHaveLength(1);
  });

  it("refuses a request that would read too many chunks, before reading any", async () => {
    // A manifest of 30″ tiles with one chunk each; the refusal must come before any read.
    const tiles: Record<string, { step: number; version: string; chunks: string }> = {};
    const lats: number[] = [];
    const lngs: number[] = [];
    for (let i = 0; i <= MAX_CHUNKS_PER_REQUEST; i++) {
      const [lat, lng] = [Math.floor(i / 100) - 5, (i % 100) - 50];
      tiles[tileName(lat, lng)] = { step: 30, version: "v", chunks: "01" };
      lats.push(lat + 0.5);
      lngs.push(lng + 0.5);
    }
    const coverage = new Coverage({ format: 1, tiles });
    const load = () => Promise.reject(new Error("no chunk may be read"));
    await expect(sampleElevations(coverage, lats, lngs, "bilinear", load)).rejects.toThrow(PointsError);
    await expect(
      sampleElevations(coverage, lats.slice(1), lngs.slice(1), "bilinear", async (refs) =>
        refs.map(() => null),
      ),
    ).resolves.toHaveLength(MAX_CHUNKS_PER_REQUEST);
  });
});

describe("carpet plans", () => {
  let coverage: Coverage;
  beforeAll(async () => {
    coverage = storeOf(await objectsOf([tileOf(10, 20, 3, () => 1), tileOf(11, 20, 30, () => 2)])).coverage;
  });

  it("inflates the rectangle outward to whole samples", () => {
    // 10.0001° = 36000.36″ → down to 36000″; 10.0099° = 36035.64″ → up to 36036″ (13 rows).
    const plan = planCarpet(coverage, [10.0001, 20.0001], [10.0099, 20.0199])!;
    expect(plan).toMatchObject({ step: 3, south: 12_000, west: 24_000, rows: 13, cols: 25 });
    const { lats, lngs } = carpetPositions(plan);
    expect([lats[0], lngs[0]]).toEqual([10, 20]);
    expect([lats.at(-1), lngs.at(-1)]).toEqual([10.01, 20.02]);
    expect(lats[plan.cols]! > lats[0]!).toBe(true); // rows run south to north
  });

  it("keeps a rectangle already on whole samples as it is", () => {
    expect(planCarpet(coverage, [10.25, 20.5], [10.5, 20.75])).toMatchObject({ rows: 301, cols: 301 });
  });

  it("multiplies the step by the smallest factor that keeps sides within 1024", () => {
    // 1° at 3″ is 1201 samples: factor 2 (6″) gives 601.
    expect(planCarpet(coverage, [10, 20], [11, 20.1])).toMatchObject({ step: 6, rows: 601, cols: 61 });
    // 0.85° = 3060″: 1021 samples at 3″ fit exactly.
    expect(planCarpet(coverage, [10, 20], [10.85, 20.1])).toMatchObject({ step: 3, rows: 1021 });
    // Over the 30″ tile only, the coarse step is the base.
    expect(planCarpet(coverage, [11.2, 20.2], [11.3, 20.3])).toMatchObject({ step: 30, rows: 13, cols: 13 });
  });

  it("has no plan where no tile meets the rectangle", () => {
    expect(planCarpet(coverage, [40, 40], [41, 41])).toBeUndefined();
  });

  it("summarizes values with data", () => {
    expect(stats([3, null, 1, 2])).toEqual({ max: 3, min: 1, avg: 2 });
    expect(stats([1, 2, 2])).toEqual({ max: 2, min: 1, avg: 1.67 });
    expect(stats([null])).toBeNull();
  });
});

describe("path plans", () => {
  let coverage: Coverage;
  beforeAll(async () => {
    coverage = storeOf(await objectsOf([tileOf(10, 20, 3, () => 1), tileOf(11, 20, 30, () => 2)])).coverage;
  });

  it("spaces samples at most one source step along the larger axis", () => {
    const [segment] = planPath(coverage, [
      [10.1, 20.1],
      [10.105, 20.11],
    ]);
    // 0.01° of longitude is 36″: 12 steps of 3″.
    expect(segment!.samples).toBe(13);
    expect(segment!.step[0]).toBeCloseTo(0.005 / 12, 12);
    expect(segment!.step[1]).toBeCloseTo(0.01 / 12, 12);
  });

  it("ends every profile exactly on its milestones", () => {
    const milestones: [number, number][] = [
      [10.1, 20.1],
      [10.2, 20.3],
      [10.2, 20.3],
    ];
    const segments = planPath(coverage, milestones);
    expect(segments.map((s) => s.samples)).toEqual([241, 1]);
    const { lats, lngs } = pathPositions(segments);
    expect([lats[0], lngs[0], lats[240], lngs[240], lats[241]]).toEqual([10.1, 20.1, 10.2, 20.3, 10.2]);
  });

  it("uses a coarse source's step, and a fixed one where nothing is loaded", () => {
    expect(
      planPath(coverage, [
        [11.1, 20.1],
        [11.2, 20.1],
      ])[0]!.samples,
    ).toBe(13);
    const uncovered = planPath(coverage, [
      [40, 40],
      [40.1, 40],
    ])[0]!;
    expect(UNCOVERED_STEP).toBe(30);
    expect(uncovered.samples).toBe(13);
  });

  it("refuses a path that needs too many samples", () => {
    expect(() =>
      planPath(coverage, [
        [10, 20],
        [10.9, 20.9],
      ]),
    ).not.toThrow();
    const long: [number, number][] = [
      [-50, -170],
      [50, 170],
    ];
    expect(() => planPath(coverage, long)).toThrow(PointsError);
    expect(MAX_PATH_SAMPLES).toBe(100_000);
  });
});

describe("points", () => {
  it("parses latitude,longitude pairs", () => {
    expect(parsePoints("36.5,-84.2, 57.7 ,11.9")).toEqual([
      [36.5, -84.2],
      [57.7, 11.9],
    ]);
  });

  it.each([
    ["", /pairs/],
    ["36.5", /odd/],
    ["36.5,-84.2,1", /odd/],
    ["36.5,abc", /item 2/],
    ["36.5,,1,2", /item 2/],
    ["0x10,1", /item 1/],
    ["Infinity,1", /item 1/],
    ["91,0", /latitude 91/],
    ["-90.5,0", /latitude -90.5/],
    ["0,181", /longitude 181/],
  ])("refuses %j", (text, message) => {
    expect(() => parsePoints(text)).toThrow(PointsError);
    expect(() => parsePoints(text)).toThrow(message);
  });

  it("caps the number of points", () => {
    const text = (n: number) => Array.from({ length: n }, () => "1,2").join(",");
    expect(parsePoints(text(MAX_POINTS))).toHaveLength(MAX_POINTS);
    expect(() => parsePoints(text(MAX_POINTS + 1))).toThrow(/at most 10000/);
  });

  it("wants a rectangle south-west then north-east", () => {
    expect(parseRectangle("1,2,3,4")).toEqual({ sw: [1, 2], ne: [3, 4] });
    expect(parseRectangle("1,2,1,2")).toEqual({ sw: [1, 2], ne: [1, 2] });
    expect(() => parseRectangle("3,2,1,4")).toThrow(/not south-west/);
    expect(() => parseRectangle("1,4,3,2")).toThrow(/not south-west/);
    expect(() => parseRectangle("1,2")).toThrow(/two corners/);
    expect(() => parseRectangle("1,2,3,4,5,6")).toThrow(/two corners/);
  });

  it("wants two milestones or more on a path", () => {
    expect(() => parsePath("1,2")).toThrow(/at least two/);
    expect(parsePath("1,2,3,4")).toHaveLength(2);
  });
});

describe("coverage", () => {
  it("ignores manifest entries it cannot use", () => {
    const coverage = new Coverage({
      format: 1,
      tiles: {
        N10E020: { step: 3, version: "a", chunks: "01" },
        N10E021: { step: 7, version: "a", chunks: "01" },
        bogus: { step: 3, version: "a", chunks: "01" },
      },
    });
    expect(coverage.size).toBe(1);
    expect(emptyTile(0, 0, 30).values.every((v) => v === NODATA)).toBe(true);
  });

  it("locates a point on the antimeridian in the tile west of it", () => {
    const coverage = new Coverage({
      format: 1,
      tiles: { N10E179: { step: 30, version: "a", chunks: "01" } },
    });
    expect(coverage.locate(10.5, 180)).toMatchObject({ chunk: 0, x: 120, y: 60 });
    expect(coverage.locate(10.5, -180)).toBeUndefined();
  });
});
