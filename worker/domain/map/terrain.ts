import { CARPET_VOID, type CarpetValues } from "../elevation/carpet";
import { ARCSEC_PER_DEGREE } from "../elevation/grid";
import type { CarpetPlan } from "../elevation/sampling";
import { METERS_PER_FOOT } from "../units";
import { type DistanceUnit, type Frame, round, simplify } from "./view";

/**
 * The ground under the shared map, from the service's own elevation tiles: a carpet sampled on a
 * modest grid over the frame (about one sample every SAMPLE_PX pixels, interpolated from whatever
 * tile covers it), drawn as a hillshade (one grey value per sample, the page scales it smoothly)
 * and contour lines at an interval that suits the relief in view. Voids (no tile) stay blank.
 */

/** Pixels between samples along the frame's height (columns follow at the same angular step). */
const SAMPLE_PX = 6;
/** At most this many samples along a side, whatever the latitude. */
const MAX_SIDE = 240;
const METERS_PER_DEGREE = 111_320;

/** The carpet the frame's terrain is drawn from: one step in arc-seconds both ways, a sample beyond each edge. */
export function terrainPlan(frame: Frame): CarpetPlan {
  const { box } = frame;
  const latSpan = box.maxLat - box.minLat;
  const lngSpan = box.maxLng - box.minLng;
  const perSide = Math.max(latSpan / (frame.height / SAMPLE_PX), lngSpan / MAX_SIDE, latSpan / MAX_SIDE);
  const step = perSide * ARCSEC_PER_DEGREE;
  const south = Math.floor((box.minLat * ARCSEC_PER_DEGREE) / step) - 1;
  const north = Math.ceil((box.maxLat * ARCSEC_PER_DEGREE) / step) + 1;
  const west = Math.floor((box.minLng * ARCSEC_PER_DEGREE) / step) - 1;
  const east = Math.ceil((box.maxLng * ARCSEC_PER_DEGREE) / step) + 1;
  return { step, south, west, rows: north - south + 1, cols: east - west + 1 };
}

export interface TerrainLayer {
  /** Where the shade image sits in the frame: each of its pixels centred on a sample. */
  image: { x: number; y: number; width: number; height: number };
  /**
   * One byte a sample, rows north to south: 255 lit as flat ground or brighter, darker as slopes
   * turn from the light (north-west, 45° up), 0 where no elevation is loaded (drawn transparent).
   */
  shade: Uint8Array;
  cols: number;
  rows: number;
  /** Contour lines, lowest first; every fifth level is a major (index) contour. */
  contours: { level: number; major: boolean; d: string }[];
  /** Between two contours, in the page's unit. */
  interval: number;
  unit: "m" | "ft";
  /** Lowest and highest ground in view, in the page's unit. */
  low: number;
  high: number;
}

/** Contour intervals to choose from, in the page's unit: a round number giving at most MAX_LEVELS lines. */
const INTERVALS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];
const MAX_LEVELS = 12;
/** Relief drawn a little steeper than it is, so gentle ground still reads at the map's scale. */
const EXAGGERATION = 2;

/** The terrain layer of a frame from its carpet; undefined where no sample has data. */
export function terrainLayer(
  frame: Frame,
  plan: CarpetPlan,
  carpet: CarpetValues,
  unit: DistanceUnit,
  /** Arc-seconds between the source's samples: the hillshade's gradient spans about that much. */
  sourceStep = plan.step,
): TerrainLayer | undefined {
  const { rows, cols, values } = carpet;
  const stepDeg = plan.step / ARCSEC_PER_DEGREE;
  // Sample (r, c) in the frame's pixels: linear both ways in this projection.
  const x0 = (plan.west * stepDeg * frame.xScale - frame.x0) * frame.scale;
  const dx = stepDeg * frame.xScale * frame.scale;
  const y0 = (-(plan.south * stepDeg) - frame.y0) * frame.scale;
  const dy = -stepDeg * frame.scale;

  const toUnit = unit === "imperial" ? 1 / METERS_PER_FOOT : 1;
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  // Only what is in view sets the interval: the carpet's margin is there for the edges' lines.
  for (let r = 1; r < rows - 1; r++)
    for (let c = 1; c < cols - 1; c++) {
      const v = values[r * cols + c]!;
      if (v === CARPET_VOID) continue;
      if (v < low) low = v;
      if (v > high) high = v;
    }
  if (!Number.isFinite(low)) return undefined;

  const shade = hillshade(carpet, stepDeg * METERS_PER_DEGREE, frame.xScale, sourceStep / plan.step);
  const relief = (high - low) * toUnit;
  const interval = INTERVALS.find((i) => relief / i <= MAX_LEVELS) ?? 1000;
  const contours: TerrainLayer["contours"] = [];
  for (
    let level = Math.ceil((low * toUnit) / interval) * interval;
    level <= high * toUnit;
    level += interval
  ) {
    const lines = isolines(carpet, level / toUnit);
    const parts: string[] = [];
    for (const line of lines) {
      const pixels = line.map(([c, r]) => ({ x: x0 + c * dx, y: y0 + r * dy }));
      const simple = simplify(pixels, 0.5);
      if (simple.length < 2) continue;
      parts.push(simple.map((p, i) => `${i === 0 ? "M" : "L"}${round(p.x)} ${round(p.y)}`).join(""));
    }
    if (parts.length > 0)
      contours.push({ level, major: Math.round(level / interval) % 5 === 0, d: parts.join("") });
  }
  return {
    image: {
      x: round(x0 - dx / 2),
      y: round(y0 + (rows - 1) * dy + dy / 2),
      width: round(cols * dx),
      height: round(-rows * dy),
    },
    shade,
    cols,
    rows,
    contours,
    interval,
    unit: unit === "imperial" ? "ft" : "m",
    low: Math.round(low * toUnit),
    high: Math.round(high * toUnit),
  };
}

/**
 * Lambertian shading under a light from the north-west, 45° up: flat ground and slopes facing the
 * light are 255 (the page multiplies the image over the map, so they leave it as it is), slopes
 * turned away darker. The slope is Horn's 3×3 gradient taken `reach` samples apart: about the
 * source's own spacing, since the carpet interpolates between source samples and a gradient finer
 * than them shows the source's cells as blocks. Rows north to south, as an image runs; 0 on voids.
 */
export function hillshade(
  carpet: CarpetValues,
  metersPerStep: number,
  xScale: number,
  reach = 1,
): Uint8Array {
  const { rows, cols, values } = carpet;
  const out = new Uint8Array(rows * cols);
  const lightX = -0.5;
  const lightY = 0.5;
  const lightZ = Math.SQRT1_2;
  const dxM = metersPerStep * xScale;
  const dyM = metersPerStep;
  const k = Math.max(1, Math.round(reach));
  // A neighbour clamped to the carpet, or the centre where it is a void.
  const at = (r: number, c: number, z: number) => {
    const v = values[Math.min(Math.max(r, 0), rows - 1) * cols + Math.min(Math.max(c, 0), cols - 1)]!;
    return v === CARPET_VOID ? z : v;
  };
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const z = values[r * cols + c]!;
      if (z === CARPET_VOID) continue;
      const east = at(r + k, c + k, z) + 2 * at(r, c + k, z) + at(r - k, c + k, z);
      const west = at(r + k, c - k, z) + 2 * at(r, c - k, z) + at(r - k, c - k, z);
      const north = at(r + k, c - k, z) + 2 * at(r + k, c, z) + at(r + k, c + k, z);
      const south = at(r - k, c - k, z) + 2 * at(r - k, c, z) + at(r - k, c + k, z);
      const gx = ((east - west) * EXAGGERATION) / (8 * k * dxM);
      const gy = ((north - south) * EXAGGERATION) / (8 * k * dyM);
      const lit = (-gx * lightX - gy * lightY + lightZ) / Math.sqrt(gx * gx + gy * gy + 1);
      const shade = Math.max(0, Math.min(1, lit / lightZ));
      out[(rows - 1 - r) * cols + c] = 1 + Math.round(shade * 254);
    }
  }
  return out;
}

/**
 * Marching squares: the lines where the carpet crosses `level`, as runs of grid positions [col, row]
 * joined across cells. Cells with a void corner are skipped, so lines stop at the edge of the data
 * rather than outline it (why this is not d3-contour, whose isobands close along voids and borders).
 * Saddles are split by the cell's mean.
 */
export function isolines(carpet: CarpetValues, level: number): [number, number][][] {
  const { rows, cols, values } = carpet;
  // An edge's key: 2·(its lower-left sample) for the horizontal edge, +1 for the vertical one.
  const point = (key: number): [number, number] => {
    const i = key >> 1;
    const r = Math.floor(i / cols);
    const c = i % cols;
    const a = values[i]!;
    const b = key & 1 ? values[i + cols]! : values[i + 1]!;
    const t = (level - a) / (b - a);
    return key & 1 ? [c, r + t] : [c + t, r];
  };
  // The (at most two) segments meeting at each edge: the two cells that share it.
  const endA = new Int32Array(2 * rows * cols).fill(-1);
  const endB = new Int32Array(2 * rows * cols).fill(-1);
  const segments: number[] = [];
  const add = (from: number, to: number) => {
    const s = segments.length / 2;
    segments.push(from, to);
    for (const key of [from, to]) {
      if (endA[key] === -1) endA[key] = s;
      else endB[key] = s;
    }
  };
  for (let r = 0; r < rows - 1; r++) {
    for (let c = 0; c < cols - 1; c++) {
      const i = r * cols + c;
      const a = values[i]!;
      const b = values[i + 1]!;
      const d = values[i + cols]!;
      const e = values[i + cols + 1]!;
      if (a === CARPET_VOID || b === CARPET_VOID || d === CARPET_VOID || e === CARPET_VOID) continue;
      const above = (a >= level ? 1 : 0) | (b >= level ? 2 : 0) | (e >= level ? 4 : 0) | (d >= level ? 8 : 0);
      if (above === 0 || above === 15) continue;
      const bottom = 2 * i;
      const top = 2 * (i + cols);
      const left = 2 * i + 1;
      const right = 2 * (i + 1) + 1;
      // The crossed edges, counter-clockwise from the bottom.
      const crossed: number[] = [];
      if ((above & 1) !== (above & 2) >> 1) crossed.push(bottom);
      if ((above & 2) >> 1 !== (above & 4) >> 2) crossed.push(right);
      if ((above & 4) >> 2 !== (above & 8) >> 3) crossed.push(top);
      if ((above & 8) >> 3 !== (above & 1)) crossed.push(left);
      if (crossed.length === 2) add(crossed[0]!, crossed[1]!);
      else {
        const centreAbove = (a + b + d + e) / 4 >= level;
        // Corners a and e above (5) or b and d (10): the centre says which pair the high ground joins.
        if ((above === 5) === centreAbove) {
          add(bottom, right);
          add(top, left);
        } else {
          add(bottom, left);
          add(right, top);
        }
      }
    }
  }
  const count = segments.length / 2;
  const used = new Uint8Array(count);
  const next = (key: number) => {
    const a = endA[key]!;
    if (a !== -1 && !used[a]) return a;
    const b = endB[key]!;
    return b !== -1 && !used[b] ? b : -1;
  };
  const other = (s: number, key: number) =>
    segments[2 * s] === key ? segments[2 * s + 1]! : segments[2 * s]!;
  const lines: [number, number][][] = [];
  for (let s = 0; s < count; s++) {
    if (used[s]) continue;
    used[s] = 1;
    const first = segments[2 * s]!;
    const forward = [first, segments[2 * s + 1]!];
    // Forward from the second end, then backward from the first, until the line ends or closes.
    for (let key = forward[1]!, at = next(key); at !== -1; at = next(key)) {
      used[at] = 1;
      key = other(at, key);
      forward.push(key);
    }
    const backward: number[] = [];
    for (let key = first, at = next(key); at !== -1; at = next(key)) {
      used[at] = 1;
      key = other(at, key);
      backward.push(key);
    }
    lines.push([...backward.reverse(), ...forward].map(point));
  }
  return lines;
}
