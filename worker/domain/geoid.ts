import { EGM96_BASE64, EGM96_COLS, EGM96_ROWS } from "./geoidGrid";

/**
 * EGM96 geoid heights (meters above the WGS84 ellipsoid) from the embedded grid, bilinear between
 * the four surrounding grid points: converts ASTM F3411 `position.alt` (ellipsoid height) to the
 * EGM96 height that telemetry's `altitude_msl` and the elevation tiles use.
 */

/** The embedded grid's spacing (tools/geoid/deriveEgm96.ts writes it). */
export const GEOID_STEP_MINUTES = 30;

export interface GeoidGrid {
  rows: number;
  cols: number;
  /** Centimetres, rows from 90°N southward, each from 180°W eastward. */
  values: Int16Array;
}

export function geoidGrid(values: Int16Array): GeoidGrid {
  const step = GEOID_STEP_MINUTES / 60;
  return { rows: Math.round(180 / step) + 1, cols: Math.round(360 / step), values };
}

let embedded: GeoidGrid | undefined;

/** The embedded grid, decoded on first use. */
export function egm96(): GeoidGrid {
  if (!embedded) {
    const bytes = Uint8Array.from(atob(EGM96_BASE64), (ch) => ch.charCodeAt(0));
    const values = new Int16Array(bytes.buffer);
    embedded = { rows: EGM96_ROWS, cols: EGM96_COLS, values };
  }
  return embedded;
}

/** The geoid's height above the ellipsoid at a position, meters. */
export function geoidHeight(grid: GeoidGrid, latitude: number, longitude: number): number {
  const step = 180 / (grid.rows - 1);
  const y = Math.min(Math.max((90 - latitude) / step, 0), grid.rows - 1);
  const lng = (((longitude + 180) % 360) + 360) % 360;
  const x = lng / step;
  const r0 = Math.min(Math.floor(y), grid.rows - 2);
  const c0 = Math.floor(x) % grid.cols;
  const c1 = (c0 + 1) % grid.cols;
  const ty = y - r0;
  const tx = x - Math.floor(x);
  const at = (r: number, c: number) => grid.values[r * grid.cols + c]! / 100;
  const top = at(r0, c0) * (1 - tx) + at(r0, c1) * tx;
  const bottom = at(r0 + 1, c0) * (1 - tx) + at(r0 + 1, c1) * tx;
  return top * (1 - ty) + bottom * ty;
}

/** An ellipsoid height (WGS84) as a height above the EGM96 geoid. */
export function ellipsoidToEgm96(latitude: number, longitude: number, ellipsoidHeight: number): number {
  return ellipsoidHeight - geoidHeight(egm96(), latitude, longitude);
}
