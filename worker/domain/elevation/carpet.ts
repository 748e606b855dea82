import type { Chunk } from "./chunk";
import type { Coverage, CoveredTile } from "./coverage";
import { ARCSEC_PER_DEGREE, inCoverage, snap } from "./grid";
import {
  type CarpetPlan,
  type ChunkLoader,
  carpetPositions,
  interpolate,
  type Stats,
  sampleElevations,
} from "./sampling";

/** A carpet's value where no sample has data: outside int16, so never a stored elevation. */
export const CARPET_VOID = -0x80000000;

/** Chunks a carpet holds at once on the row path; beyond it the general sampler streams them. */
const ROW_PATH_CHUNKS = 64;

/** A carpet's samples, rows south to north, each west to east; CARPET_VOID where none has data. */
export interface CarpetValues {
  rows: number;
  cols: number;
  values: Int32Array;
}

/**
 * A stretch of one carpet row read from one chunk: columns c0..c1-1 at chunk row `y`, their
 * chunk columns in `xs` (a single sample when `xs` is null: `x` then holds its column).
 */
interface Run {
  row: number;
  c0: number;
  c1: number;
  slot: number;
  y: number;
  xs: Float64Array | null;
  x: number;
}

/**
 * The carpet's samples as sampleElevations gives them at carpetPositions(plan), but read a row at
 * a time: a row's latitude places it in a tile once, a column's longitude once per tile, and each
 * stretch of a row inside one chunk is copied out of it (or interpolated where the plan's grid is
 * off the tile's). Positions on whole degrees, where neighbouring tiles compete, are located one
 * by one as the general sampler does; carpets reaching more than ROW_PATH_CHUNKS chunks go
 * through it whole.
 */
export async function sampleCarpet(
  coverage: Coverage,
  plan: CarpetPlan,
  load: ChunkLoader,
  rowPathChunks = ROW_PATH_CHUNKS,
): Promise<CarpetValues> {
  const { rows, cols } = plan;
  const lngs = new Float64Array(cols);
  for (let c = 0; c < cols; c++) lngs[c] = ((plan.west + c) * plan.step) / ARCSEC_PER_DEGREE;
  const lngFloors = lngs.map(Math.floor);
  // Columns on whole degrees or off the globe: the general rule picks among the tiles there.
  const general = new Uint8Array(cols);
  for (let c = 0; c < cols; c++) {
    const lng = lngs[c]!;
    general[c] = lng === lngFloors[c] || lng < -180 || lng > 180 ? 1 : 0;
  }

  const refs: { tile: CoveredTile; chunk: number }[] = [];
  const slotById = new Map<number, number>();
  const slot = (tile: CoveredTile, chunk: number) => {
    const id = tile.chunkId(chunk);
    let s = slotById.get(id);
    if (s === undefined) {
      s = refs.length;
      refs.push({ tile, chunk });
      slotById.set(id, s);
    }
    return s;
  };
  // Per tile met: each column's chunk column and place in it, as Coverage.locateInto places them.
  const columnsByTile = new Map<CoveredTile, { chunkCol: Int32Array; x: Float64Array }>();
  const columnsIn = (tile: CoveredTile) => {
    let placed = columnsByTile.get(tile);
    if (!placed) {
      placed = { chunkCol: new Int32Array(cols), x: new Float64Array(cols) };
      for (let c = 0; c < cols; c++) {
        const fx = snap((lngs[c]! - tile.lng) * tile.cells);
        const chunkCol = Math.floor(Math.min(Math.floor(fx), tile.cells - 1) / tile.chunkCells);
        placed.chunkCol[c] = chunkCol;
        placed.x[c] = fx - chunkCol * tile.chunkCells;
      }
      columnsByTile.set(tile, placed);
    }
    return placed;
  };

  const runs: Run[] = [];
  const found = { tile: undefined as unknown as CoveredTile, chunk: 0, y: 0, x: 0 };
  const locateOne = (row: number, lat: number, c: number) => {
    if (!coverage.locateInto(lat, lngs[c]!, found) || !found.tile.hasData(found.chunk)) return;
    const s = slot(found.tile, found.chunk);
    runs.push({ row, c0: c, c1: c + 1, slot: s, y: found.y, xs: null, x: found.x });
  };
  for (let r = 0; r < rows; r++) {
    const lat = ((plan.south + r) * plan.step) / ARCSEC_PER_DEGREE;
    const latFloor = Math.floor(lat);
    if (lat === latFloor || !inCoverage(lat)) {
      for (let c = 0; c < cols; c++) locateOne(r, lat, c);
      continue;
    }
    let c = 0;
    while (c < cols) {
      if (general[c]) {
        locateOne(r, lat, c++);
        continue;
      }
      // The columns of one tile, up to the next whole degree.
      const lngFloor = lngFloors[c]!;
      let end = c + 1;
      while (end < cols && !general[end] && lngFloors[end] === lngFloor) end++;
      const tile = coverage.tile(latFloor, lngFloor);
      if (tile) {
        const fy = snap((lat - tile.lat) * tile.cells);
        const chunkRow = Math.floor(Math.min(Math.floor(fy), tile.cells - 1) / tile.chunkCells);
        const y = fy - chunkRow * tile.chunkCells;
        const placed = columnsIn(tile);
        // Split at chunk columns: each stretch reads one chunk.
        for (let c0 = c; c0 < end; ) {
          const chunkCol = placed.chunkCol[c0]!;
          let c1 = c0 + 1;
          while (c1 < end && placed.chunkCol[c1] === chunkCol) c1++;
          const chunk = chunkRow * tile.chunksPerSide + chunkCol;
          if (tile.hasData(chunk))
            runs.push({ row: r, c0, c1, slot: slot(tile, chunk), y, xs: placed.x, x: 0 });
          c0 = c1;
        }
      }
      c = end;
    }
  }
  // The general path also enforces MAX_CHUNKS_PER_REQUEST, with its message.
  if (refs.length > rowPathChunks) return generalCarpet(coverage, plan, load);
  const chunks: (Chunk | null)[] = refs.length === 0 ? [] : await load(refs);
  const values = new Int32Array(rows * cols).fill(CARPET_VOID);
  for (const run of runs) {
    const chunk = chunks[run.slot];
    if (chunk) readRun(chunk, run, values, run.row * cols);
  }
  return { rows, cols, values };
}

/** One stretch of a row out of its chunk: samples copied where it lies on them, else interpolated. */
function readRun(chunk: Chunk, run: Run, out: Int32Array, rowStart: number): void {
  const { y, xs } = run;
  const { values, cols, nodata } = chunk;
  const onRow = y === Math.floor(y);
  const base = onRow ? y * cols : 0;
  for (let c = run.c0; c < run.c1; c++) {
    const x = xs ? xs[c]! : run.x;
    if (onRow && x === Math.floor(x)) {
      const v = values[base + x]!;
      if (v !== nodata) out[rowStart + c] = v;
      continue;
    }
    const value = interpolate(chunk, y, x, "bilinear");
    if (value !== null) out[rowStart + c] = Math.round(value);
  }
}

/** A carpet over many chunks: the general sampler, which loads them a batch at a time. */
async function generalCarpet(coverage: Coverage, plan: CarpetPlan, load: ChunkLoader): Promise<CarpetValues> {
  const { lats, lngs } = carpetPositions(plan);
  const sampled = await sampleElevations(coverage, lats, lngs, "bilinear", load);
  const values = new Int32Array(sampled.length);
  for (let i = 0; i < sampled.length; i++) values[i] = sampled[i] ?? CARPET_VOID;
  return { rows: plan.rows, cols: plan.cols, values };
}

/** The carpet's south-west and north-east samples, as carpetPositions places them. */
export function carpetBounds(plan: CarpetPlan): { sw: [number, number]; ne: [number, number] } {
  const lat = (r: number) => ((plan.south + r) * plan.step) / ARCSEC_PER_DEGREE;
  const lng = (c: number) => ((plan.west + c) * plan.step) / ARCSEC_PER_DEGREE;
  return { sw: [lat(0), lng(0)], ne: [lat(plan.rows - 1), lng(plan.cols - 1)] };
}

/** As stats() over the carpet's values: max, min and mean to the centimetre; null when none has data. */
export function carpetStats(carpet: CarpetValues): Stats | null {
  const { values } = carpet;
  let count = 0;
  let sum = 0;
  let max = Number.NEGATIVE_INFINITY;
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v === CARPET_VOID) continue;
    count++;
    sum += v;
    if (v > max) max = v;
    if (v < min) min = v;
  }
  if (count === 0) return null;
  return { max, min, avg: Math.round((sum / count) * 100) / 100 };
}

/** Bytes a value takes at most in carpetJson: "-32768," (int16, and rounded blends of int16). */
const MAX_VALUE_BYTES = 7;
const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const NULL_BYTES = [0x6e, 0x75, 0x6c, 0x6c];
/** The ASCII digits of 0..SMALL-1, four bytes a value, and how many of them each uses. */
const SMALL = 10_000;
const SMALL_DIGITS = new Uint8Array(SMALL * 4);
const SMALL_LENGTH = new Uint8Array(SMALL);
for (let v = 0; v < SMALL; v++) {
  const text = String(v);
  SMALL_LENGTH[v] = text.length;
  for (let k = 0; k < text.length; k++) SMALL_DIGITS[v * 4 + k] = text.charCodeAt(k);
}

/**
 * The carpet's rows as JSON, as JSON.stringify writes nested arrays of integers and nulls, but
 * written as ASCII digits straight into bytes: no array, number string or body string is made
 * per sample, and the body needs no encoding. `prefix` and `suffix` (ASCII) are written around it.
 */
export function carpetJson(carpet: CarpetValues, prefix = "", suffix = ""): Uint8Array<ArrayBuffer> {
  const { rows, cols, values } = carpet;
  const out = new Uint8Array(prefix.length + suffix.length + 2 + rows * (3 + cols * MAX_VALUE_BYTES));
  let n = new TextEncoder().encodeInto(prefix, out).written;
  out[n++] = OPEN;
  for (let r = 0; r < rows; r++) {
    if (r > 0) out[n++] = COMMA;
    out[n++] = OPEN;
    for (let c = 0, i = r * cols; c < cols; c++, i++) {
      if (c > 0) out[n++] = COMMA;
      let v = values[i]!;
      if (v === CARPET_VOID) {
        out.set(NULL_BYTES, n);
        n += 4;
        continue;
      }
      if (v > 99_999 || v < -99_999) throw new Error(`carpet value ${v} outside the elevation range`);
      if (v < 0) {
        out[n++] = 0x2d;
        v = -v;
      }
      if (v < SMALL) {
        // Elevations are almost all below 10,000 m: their digits come from a table.
        const at = v * 4;
        const digits = SMALL_LENGTH[v]!;
        for (let k = 0; k < digits; k++) out[n + k] = SMALL_DIGITS[at + k]!;
        n += digits;
        continue;
      }
      let digits = 1;
      for (let t = v; t >= 10; t = (t / 10) | 0) digits++;
      for (let k = n + digits - 1; k >= n; k--) {
        out[k] = 0x30 + (v % 10);
        v = (v / 10) | 0;
      }
      n += digits;
    }
    out[n++] = CLOSE;
  }
  out[n++] = CLOSE;
  n += new TextEncoder().encodeInto(suffix, out.subarray(n)).written;
  return out.subarray(0, n);
}
