import { describe, expect, it } from "vitest";
import {
  CARPET_VOID,
  carpetBounds,
  carpetJson,
  carpetStats,
  sampleCarpet,
} from "../../worker/domain/elevation/carpet";
import { decodeChunk, encodeChunk } from "../../worker/domain/elevation/chunk";
import {
  carpetPositions,
  type Interpolation,
  interpolate,
  planCarpet,
  sampleElevations,
  stats,
} from "../../worker/domain/elevation/sampling";
import { objectsOf, storeOf, tileOf } from "./elevationFixtures";

/** The batched sampler against the plain definition: locate each position, interpolate in its chunk. */

function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

/** Three neighbouring tiles: two at 3″ (one with voids), one at 30″ to the east. */
async function store() {
  const tiles = [
    tileOf(57, 11, 3, (k, m) => ((k * 7 + m * 13) % 900) - 20),
    tileOf(58, 11, 3, (k, m) => ((k * m) % 97 === 5 ? null : (k + 2 * m) % 1200)),
    tileOf(57, 12, 30, (k, m) => 100 + k - m),
  ];
  return storeOf(await objectsOf(tiles));
}

async function reference(
  s: Awaited<ReturnType<typeof store>>,
  lats: ArrayLike<number>,
  lngs: ArrayLike<number>,
  mode: Interpolation,
): Promise<(number | null)[]> {
  const out: (number | null)[] = [];
  const decoded = new Map<string, Awaited<ReturnType<typeof s.load>>[number]>();
  for (let i = 0; i < lats.length; i++) {
    const found = s.coverage.locate(lats[i]!, lngs[i]!);
    if (!found?.tile.hasData(found.chunk)) {
      out.push(null);
      continue;
    }
    const key = found.tile.chunkKey(found.chunk);
    if (!decoded.has(key)) decoded.set(key, (await s.load([{ tile: found.tile, chunk: found.chunk }]))[0]!);
    const chunk = decoded.get(key);
    const value = chunk ? interpolate(chunk, found.y, found.x, mode) : null;
    out.push(value === null ? null : Math.round(value));
  }
  return out;
}

describe("sampleElevations answers as locating and interpolating each position alone", () => {
  it("for random points across tiles, on tile and chunk edges and whole degrees", async () => {
    const s = await store();
    const rnd = random(23);
    const lats: number[] = [];
    const lngs: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const kind = i % 5;
      const lat = kind === 0 ? 57 + Math.floor(rnd() * 3) : 56.9 + rnd() * 2.2;
      const lng =
        kind === 1
          ? 11 + Math.floor(rnd() * 3)
          : kind === 2
            ? 11 + Math.floor(rnd() * 10) / 5
            : 10.9 + rnd() * 2.2;
      lats.push(kind === 3 ? 57 + Math.floor(rnd() * 10) / 5 : lat);
      lngs.push(lng);
    }
    for (const mode of ["bilinear", "nearest"] as const)
      expect(await sampleElevations(s.coverage, lats, lngs, mode, s.load)).toEqual(
        await reference(s, lats, lngs, mode),
      );
  });

  it("for carpets inside a tile, across tiles of different steps, and at whole factors", async () => {
    const s = await store();
    for (const [sw, ne] of [
      [
        [57.3, 11.3],
        [57.7, 11.7],
      ],
      [
        [57.9, 11.8],
        [58.1, 12.2],
      ],
      [
        [57.05, 11.05],
        [57.95, 11.95],
      ],
    ] as [[number, number], [number, number]][]) {
      const plan = planCarpet(s.coverage, sw, ne)!;
      const { lats, lngs } = carpetPositions(plan);
      expect(await sampleElevations(s.coverage, lats, lngs, "bilinear", s.load)).toEqual(
        await reference(s, lats, lngs, "bilinear"),
      );
    }
  });

  it("reads each chunk once, in the order positions first reach it", async () => {
    const s = await store();
    const lats = [57.1, 57.9, 57.1, 58.5, 57.9];
    const lngs = [11.1, 11.9, 11.1, 11.5, 11.9];
    await sampleElevations(s.coverage, lats, lngs, "bilinear", s.load);
    expect(new Set(s.reads).size).toBe(s.reads.length);
    expect(s.reads).toHaveLength(3);
  });
});

describe("sampleCarpet reads rows as the general sampler reads positions", () => {
  const rectangles: [[number, number], [number, number]][] = [
    [
      [57.3, 11.3],
      [57.7, 11.7],
    ],
    // Across a 3″/3″ edge (with voids), a 3″/30″ edge and whole degrees both ways.
    [
      [57.9, 11.8],
      [58.1, 12.2],
    ],
    [
      [57.05, 11.05],
      [57.95, 11.95],
    ],
    [
      [56.5, 10.5],
      [58.5, 12.5],
    ],
    [
      [57.9, 11.9],
      [58.05, 12.05],
    ],
    // Off coverage entirely, and a sliver inside one chunk.
    [
      [10.1, 10.1],
      [10.2, 10.2],
    ],
    [
      [57.001, 11.001],
      [57.0015, 11.0015],
    ],
  ];

  it("gives the same samples, stats, bounds and JSON text", async () => {
    const s = await store();
    for (const [sw, ne] of rectangles) {
      const plan = planCarpet(s.coverage, sw, ne);
      if (!plan) continue;
      const { lats, lngs } = carpetPositions(plan);
      const expected = await sampleElevations(s.coverage, lats, lngs, "bilinear", s.load);
      const carpet = await sampleCarpet(s.coverage, plan, s.load);
      // Compared as text: toEqual over a million elements takes seconds.
      const asNulls = Array.from(carpet.values, (v) => (v === CARPET_VOID ? null : v));
      expect(JSON.stringify(asNulls)).toBe(JSON.stringify(expected));
      // Beyond its chunk budget the carpet goes through the general sampler, to the same values.
      const general = await sampleCarpet(s.coverage, plan, s.load, 0);
      expect(general.values.join()).toBe(carpet.values.join());
      expect(carpetStats(carpet)).toEqual(stats(expected));
      expect(carpetBounds(plan)).toEqual({ sw: [lats[0], lngs[0]], ne: [lats.at(-1), lngs.at(-1)] });
      const rows = Array.from({ length: plan.rows }, (_, r) =>
        expected.slice(r * plan.cols, (r + 1) * plan.cols),
      );
      expect(new TextDecoder().decode(carpetJson(carpet))).toBe(JSON.stringify(rows));
      const body = { status: "success", data: { bounds: carpetBounds(plan), stats: stats(expected) } };
      const head = JSON.stringify(body).slice(0, -2);
      expect(new TextDecoder().decode(carpetJson(carpet, `${head},"carpet":`, "}}"))).toBe(
        JSON.stringify({ ...body, data: { ...body.data, carpet: rows } }),
      );
    }
  });

  it("has voids to write, rows on whole degrees and carpets coarser than the source", async () => {
    const s = await store();
    const voids = await sampleCarpet(s.coverage, planCarpet(s.coverage, [57.9, 11.8], [58.1, 12.2])!, s.load);
    expect(voids.values.includes(CARPET_VOID)).toBe(true);
    expect(planCarpet(s.coverage, [56.5, 10.5], [58.5, 12.5])!.step).toBeGreaterThan(3);
  });
});

describe("decodeChunk", () => {
  it("reads back what encodeChunk wrote, at any byte offset", () => {
    const values = Int16Array.from({ length: 9 }, (_, i) => (i % 2 ? -32768 : i * 1000 - 4000));
    const chunk = { step: 3, rows: 3, cols: 3, nodata: -32768, south: 205200, west: 39600, values };
    const bytes = encodeChunk(chunk);
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect(decodeChunk(bytes)).toEqual(chunk);
    expect(decodeChunk(shifted.subarray(1))).toEqual(chunk);
  });
});
