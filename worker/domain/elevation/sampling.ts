import type { Chunk } from "./chunk";
import type { Coverage, CoveredTile } from "./coverage";
import { ARCSEC_PER_DEGREE, snap } from "./grid";
import { type LatLng, PointsError } from "./points";

export type Interpolation = "bilinear" | "nearest";

/** Samples on a regular grid, row-major; a row index grows along `y`, a column along `x`. */
export interface SampleGrid {
  rows: number;
  cols: number;
  nodata: number;
  values: ArrayLike<number>;
}

/**
 * The value at fractional grid coordinates (y, x). Bilinear weighs the four surrounding samples;
 * a void among those with any weight makes the result void (null), so a point exactly on a
 * sample takes that sample even beside a void.
 */
export function interpolate(grid: SampleGrid, y: number, x: number, mode: Interpolation): number | null {
  if (mode === "nearest") {
    const v = grid.values[Math.round(y) * grid.cols + Math.round(x)]!;
    return v === grid.nodata || Number.isNaN(v) ? null : v;
  }
  const r0 = Math.max(0, Math.min(Math.floor(y), grid.rows - 2));
  const c0 = Math.max(0, Math.min(Math.floor(x), grid.cols - 2));
  const ty = y - r0;
  const tx = x - c0;
  let sum = 0;
  for (let dr = 0; dr <= 1; dr++) {
    const wy = dr === 0 ? 1 - ty : ty;
    if (wy === 0) continue;
    for (let dc = 0; dc <= 1; dc++) {
      const w = wy * (dc === 0 ? 1 - tx : tx);
      if (w === 0) continue;
      const v = grid.values[(r0 + dr) * grid.cols + c0 + dc]!;
      if (v === grid.nodata || Number.isNaN(v)) return null;
      sum += w * v;
    }
  }
  return sum;
}

/** Loads chunks by tile and index, in the order asked; null where storage has none. */
export type ChunkLoader = (refs: { tile: CoveredTile; chunk: number }[]) => Promise<(Chunk | null)[]>;

/** Chunks one request may read: bounds its time and storage reads however many points it has. */
export const MAX_CHUNKS_PER_REQUEST = 1024;
/** Chunks loaded at once: a batch is decoded, used and left to the cache before the next. */
const LOAD_BATCH = 32;

/**
 * Elevations in meters (rounded) at positions given as parallel latitude/longitude arrays; null
 * outside coverage and on voids. Positions are grouped by the chunk that holds their samples,
 * so each chunk is loaded once however many positions fall in it. No object is made per
 * position: a carpet of a million samples costs a pass to locate and a pass to read.
 */
export async function sampleElevations(
  coverage: Coverage,
  lats: ArrayLike<number>,
  lngs: ArrayLike<number>,
  mode: Interpolation,
  load: ChunkLoader,
): Promise<(number | null)[]> {
  const count = lats.length;
  const results: (number | null)[] = new Array(count).fill(null);
  const ys = new Float64Array(count);
  const xs = new Float64Array(count);
  const groupOf = new Int32Array(count).fill(-1);
  const groups: { tile: CoveredTile; chunk: number; size: number }[] = [];
  const groupById = new Map<number, number>();
  const found = { tile: undefined as unknown as CoveredTile, chunk: 0, y: 0, x: 0 };
  let lastId = -1;
  let lastGroup = -1;
  for (let i = 0; i < count; i++) {
    if (!coverage.locateInto(lats[i]!, lngs[i]!, found) || !found.tile.hasData(found.chunk)) continue;
    ys[i] = found.y;
    xs[i] = found.x;
    const id = found.tile.chunkId(found.chunk);
    if (id !== lastId) {
      let group = groupById.get(id);
      if (group === undefined) {
        group = groups.length;
        groups.push({ tile: found.tile, chunk: found.chunk, size: 0 });
        groupById.set(id, group);
      }
      lastId = id;
      lastGroup = group;
    }
    groupOf[i] = lastGroup;
    groups[lastGroup]!.size++;
  }
  if (groups.length > MAX_CHUNKS_PER_REQUEST) {
    throw new PointsError(
      `the request reaches ${groups.length} chunks of elevation data, at most ${MAX_CHUNKS_PER_REQUEST}: split it into smaller areas`,
    );
  }
  // Positions ordered by group (a counting sort), each group's in their original order.
  const starts = new Int32Array(groups.length + 1);
  for (let g = 0; g < groups.length; g++) starts[g + 1] = starts[g]! + groups[g]!.size;
  const next = starts.slice(0, groups.length);
  const order = new Int32Array(starts[groups.length]!);
  for (let i = 0; i < count; i++) {
    const g = groupOf[i]!;
    if (g >= 0) order[next[g]!++] = i;
  }
  for (let first = 0; first < groups.length; first += LOAD_BATCH) {
    const batch = groups.slice(first, first + LOAD_BATCH);
    const chunks = await load(batch);
    batch.forEach((_, b) => {
      const chunk = chunks[b];
      if (!chunk) return;
      const g = first + b;
      const { values, cols, nodata } = chunk;
      for (let k = starts[g]!; k < starts[g + 1]!; k++) {
        const i = order[k]!;
        const y = ys[i]!;
        const x = xs[i]!;
        if (y === Math.floor(y) && x === Math.floor(x)) {
          // On a sample (a carpet at the source step): the sample itself, as interpolate gives it.
          const v = values[y * cols + x]!;
          results[i] = v === nodata ? null : v;
          continue;
        }
        const value = interpolate(chunk, y, x, mode);
        results[i] = value === null ? null : Math.round(value);
      }
    });
  }
  return results;
}

/** Contract §6: a carpet side holds at most this many samples. */
export const MAX_CARPET_SIDE = 1024;

/** A carpet's grid: whole samples at `step` arc-seconds, indexed from the equator and meridian. */
export interface CarpetPlan {
  step: number;
  south: number;
  west: number;
  rows: number;
  cols: number;
}

/**
 * The rectangle inflated outward to whole samples at the source's step times the smallest whole
 * factor that keeps both sides within MAX_CARPET_SIDE; undefined when no tile meets it.
 */
export function planCarpet(coverage: Coverage, sw: LatLng, ne: LatLng): CarpetPlan | undefined {
  const sourceStep = coverage.finestStep(sw[0], sw[1], ne[0], ne[1]);
  if (sourceStep === undefined) return undefined;
  const spanSeconds = Math.max(ne[0] - sw[0], ne[1] - sw[1]) * ARCSEC_PER_DEGREE;
  // Inflation adds at most one sample on each side, so this start is never past the answer.
  let factor = Math.max(1, Math.floor(spanSeconds / sourceStep / (MAX_CARPET_SIDE - 1)));
  for (; ; factor++) {
    const step = sourceStep * factor;
    const south = Math.max(Math.floor(snap((sw[0] * ARCSEC_PER_DEGREE) / step)), Math.ceil(-324_000 / step));
    const north = Math.min(Math.ceil(snap((ne[0] * ARCSEC_PER_DEGREE) / step)), Math.floor(324_000 / step));
    const west = Math.max(Math.floor(snap((sw[1] * ARCSEC_PER_DEGREE) / step)), Math.ceil(-648_000 / step));
    const east = Math.min(Math.ceil(snap((ne[1] * ARCSEC_PER_DEGREE) / step)), Math.floor(648_000 / step));
    const rows = north - south + 1;
    const cols = east - west + 1;
    if (rows <= MAX_CARPET_SIDE && cols <= MAX_CARPET_SIDE) return { step, south, west, rows, cols };
  }
}

/** Positions of a carpet's samples: rows south to north, each row west to east. */
export function carpetPositions(plan: CarpetPlan): { lats: Float64Array; lngs: Float64Array } {
  const lats = new Float64Array(plan.rows * plan.cols);
  const lngs = new Float64Array(plan.rows * plan.cols);
  for (let r = 0; r < plan.rows; r++) {
    const lat = ((plan.south + r) * plan.step) / ARCSEC_PER_DEGREE;
    for (let c = 0; c < plan.cols; c++) {
      lats[r * plan.cols + c] = lat;
      lngs[r * plan.cols + c] = ((plan.west + c) * plan.step) / ARCSEC_PER_DEGREE;
    }
  }
  return { lats, lngs };
}

export interface Stats {
  max: number;
  min: number;
  avg: number;
}

/** max, min and mean (to the centimetre) of the values with data; null when none has. */
export function stats(values: (number | null)[]): Stats | null {
  let count = 0;
  let sum = 0;
  let max = Number.NEGATIVE_INFINITY;
  let min = Number.POSITIVE_INFINITY;
  for (const v of values) {
    if (v === null) continue;
    count++;
    sum += v;
    if (v > max) max = v;
    if (v < min) min = v;
  }
  if (count === 0) return null;
  return { max, min, avg: Math.round((sum / count) * 100) / 100 };
}

/** A segment's profile: `samples` positions from `from` to `to`, `step` apart. */
export interface PathSegment {
  from: LatLng;
  to: LatLng;
  step: [number, number];
  samples: number;
}

/** Where no source covers a segment its profile (all null) is spaced at this step, in ″. */
export const UNCOVERED_STEP = 30;
/** Samples over all segments of one path: about 3,000 km at 1″. */
export const MAX_PATH_SAMPLES = 100_000;

/**
 * One segment per pair of consecutive milestones, sampled at most one source step apart along
 * its larger axis, at the finest step of the tiles it meets.
 */
export function planPath(coverage: Coverage, milestones: LatLng[]): PathSegment[] {
  const segments: PathSegment[] = [];
  let total = 0;
  for (let i = 1; i < milestones.length; i++) {
    const from = milestones[i - 1]!;
    const to = milestones[i]!;
    const sourceStep =
      coverage.finestStep(
        Math.min(from[0], to[0]),
        Math.min(from[1], to[1]),
        Math.max(from[0], to[0]),
        Math.max(from[1], to[1]),
      ) ?? UNCOVERED_STEP;
    const dLat = to[0] - from[0];
    const dLng = to[1] - from[1];
    const intervals = Math.ceil(
      snap((Math.max(Math.abs(dLat), Math.abs(dLng)) * ARCSEC_PER_DEGREE) / sourceStep),
    );
    const step: [number, number] = intervals === 0 ? [0, 0] : [dLat / intervals, dLng / intervals];
    segments.push({ from, to, step, samples: intervals + 1 });
    total += intervals + 1;
    if (total > MAX_PATH_SAMPLES) {
      throw new PointsError(
        `the path needs more than ${MAX_PATH_SAMPLES} samples at its source resolution: split it into shorter paths`,
      );
    }
  }
  return segments;
}

/** Positions of every segment's profile in order; each ends exactly on its milestone. */
export function pathPositions(segments: PathSegment[]): { lats: Float64Array; lngs: Float64Array } {
  const total = segments.reduce((n, s) => n + s.samples, 0);
  const lats = new Float64Array(total);
  const lngs = new Float64Array(total);
  let at = 0;
  for (const s of segments) {
    for (let i = 0; i < s.samples; i++, at++) {
      const last = i === s.samples - 1;
      lats[at] = last ? s.to[0] : s.from[0] + i * s.step[0];
      lngs[at] = last ? s.to[1] : s.from[1] + i * s.step[1];
    }
  }
  return { lats, lngs };
}
