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
 * The carpet's samples as sampleElevations gives them at carpetPositions(plan), but read row by
 * row: a row's latitude places it in a tile once, a column's longitude once per tile, and the
 * value is copied out of its chunk (or interpolated where the plan's grid is off the tile's).
 * Positions on whole degrees, where neighbouring tiles compete, are located one by one as the
 * general sampler does; carpets reaching more than ROW_PATH_CHUNKS chunks go through it whole.
 */
export async function sampleCarpet(
  coverage: Coverage,
  plan: CarpetPlan,
  load: ChunkLoader,
  rowPathChunks = ROW_PATH_CHUNKS,
): Promise<CarpetValues> {
  const { rows, cols } = plan;
  const lats = new Float64Array(rows);
  const lngs = new Float64Array(cols);
  for (let r = 0; r < rows; r++) lats[r] = ((plan.south + r) * plan.step) / ARCSEC_PER_DEGREE;
  for (let c = 0; c < cols; c++) lngs[c] = ((plan.west + c) * plan.step) / ARCSEC_PER_DEGREE;

  // Where each sample lies: a slot among the chunks needed (-1: no data) and its place there.
  const slotOf = new Int32Array(rows * cols).fill(-1);
  const ys = new Float64Array(rows * cols);
  const xs = new Float64Array(rows * cols);
  const refs: { tile: CoveredTile; chunk: number }[] = [];
  const slotById = new Map<number, number>();
  let lastId = -1;
  let lastSlot = -1;
  const slot = (tile: CoveredTile, chunk: number) => {
    const id = tile.chunkId(chunk);
    // Along a row the chunk changes once in chunkCells samples.
    if (id === lastId) return lastSlot;
    let s = slotById.get(id);
    if (s === undefined) {
      s = refs.length;
      refs.push({ tile, chunk });
      slotById.set(id, s);
    }
    lastId = id;
    lastSlot = s;
    return s;
  };
  // Per tile met: each column's chunk column and place in it (NaN where the column is not inside).
  const columnsByTile = new Map<CoveredTile, { chunkCol: Int32Array; x: Float64Array }>();
  const columnsIn = (tile: CoveredTile) => {
    let placed = columnsByTile.get(tile);
    if (!placed) {
      placed = { chunkCol: new Int32Array(cols), x: new Float64Array(cols) };
      for (let c = 0; c < cols; c++) {
        // As Coverage.locateInto places a position inside its tile.
        const fx = snap((lngs[c]! - tile.lng) * tile.cells);
        const chunkCol = Math.floor(Math.min(Math.floor(fx), tile.cells - 1) / tile.chunkCells);
        placed.chunkCol[c] = chunkCol;
        placed.x[c] = fx - chunkCol * tile.chunkCells;
      }
      columnsByTile.set(tile, placed);
    }
    return placed;
  };
  const found = { tile: undefined as unknown as CoveredTile, chunk: 0, y: 0, x: 0 };
  const lngFloors = lngs.map(Math.floor);
  for (let r = 0; r < rows; r++) {
    const lat = lats[r]!;
    const latFloor = Math.floor(lat);
    const onEdge = lat === latFloor || !inCoverage(lat);
    let tile: CoveredTile | undefined;
    let fy = 0;
    let chunkRow = 0;
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      const lng = lngs[c]!;
      if (onEdge || lng === lngFloors[c] || lng < -180 || lng > 180) {
        // Whole degrees (and beyond coverage): the general rule picks among the tiles there.
        if (!coverage.locateInto(lat, lng, found) || !found.tile.hasData(found.chunk)) continue;
        slotOf[i] = slot(found.tile, found.chunk);
        ys[i] = found.y;
        xs[i] = found.x;
        continue;
      }
      if (tile === undefined || tile.lng !== lngFloors[c]) {
        tile = coverage.tile(latFloor, lngFloors[c]!);
        if (tile === undefined) continue;
        fy = snap((lat - tile.lat) * tile.cells);
        chunkRow = Math.floor(Math.min(Math.floor(fy), tile.cells - 1) / tile.chunkCells);
      }
      const placed = columnsIn(tile);
      const chunk = chunkRow * tile.chunksPerSide + placed.chunkCol[c]!;
      if (!tile.hasData(chunk)) continue;
      slotOf[i] = slot(tile, chunk);
      ys[i] = fy - chunkRow * tile.chunkCells;
      xs[i] = placed.x[c]!;
    }
  }
  // The general path also enforces MAX_CHUNKS_PER_REQUEST, with its message.
  if (refs.length > rowPathChunks) return generalCarpet(coverage, plan, load);
  const chunks: (Chunk | null)[] = refs.length === 0 ? [] : await load(refs);
  const values = new Int32Array(rows * cols).fill(CARPET_VOID);
  for (let i = 0; i < values.length; i++) {
    const s = slotOf[i]!;
    if (s < 0) continue;
    const chunk = chunks[s];
    if (!chunk) continue;
    const y = ys[i]!;
    const x = xs[i]!;
    if (y === Math.floor(y) && x === Math.floor(x)) {
      const v = chunk.values[y * chunk.cols + x]!;
      if (v !== chunk.nodata) values[i] = v;
      continue;
    }
    const value = interpolate(chunk, y, x, "bilinear");
    if (value !== null) values[i] = Math.round(value);
  }
  return { rows, cols, values };
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
