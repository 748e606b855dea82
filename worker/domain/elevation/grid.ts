/**
 * The elevation grid (CONTRACT §6): samples at whole arc-seconds, pixel-is-point as in SRTM `.hgt`.
 * Storage is cut into 1° tiles of (S+1)² samples (S = 3600 / step), sharing their edge rows with
 * their neighbours like `.hgt` files, and each tile into chunks of (C+1)² samples that overlap by
 * one row and column, so the four samples around any point always sit in one chunk.
 */

export const ARCSEC_PER_DEGREE = 3600;
/** The stored value of a void (SRTM's): no sample there. */
export const NODATA = -32768;
/** Where the SRTM sources end (spec §8): nothing is served beyond these latitudes. */
export const COVERAGE_SOUTH = -56;
export const COVERAGE_NORTH = 60;
/** Cells along a chunk side at most: a 1″ or 3″ chunk holds 241² samples (116 KiB decoded). */
const MAX_CHUNK_CELLS = 240;
/** Within this many cells of a whole sample, a position is taken as on it (absorbs float noise). */
const SNAP = 1e-7;

/** A step (arc-seconds between samples) must tile a degree exactly. */
export function isValidStep(step: number): boolean {
  return Number.isInteger(step) && step >= 1 && step <= ARCSEC_PER_DEGREE && ARCSEC_PER_DEGREE % step === 0;
}

/** Cells along a tile side at this step. */
export function tileCells(step: number): number {
  return ARCSEC_PER_DEGREE / step;
}

/** Cells along a chunk side: the largest divisor of the tile's cells not above MAX_CHUNK_CELLS. */
export function chunkCells(step: number): number {
  const cells = tileCells(step);
  for (let c = Math.min(cells, MAX_CHUNK_CELLS); c > 1; c--) if (cells % c === 0) return c;
  return 1;
}

/** Chunks along a tile side at this step. */
export function chunksPerSide(step: number): number {
  return tileCells(step) / chunkCells(step);
}

/** `N57E011`, `S12W077`: the `.hgt` name of the tile whose south-west corner is (lat, lng). */
export function tileName(lat: number, lng: number): string {
  const ns = lat < 0 ? "S" : "N";
  const ew = lng < 0 ? "W" : "E";
  return `${ns}${String(Math.abs(lat)).padStart(2, "0")}${ew}${String(Math.abs(lng)).padStart(3, "0")}`;
}

/** The south-west corner of a tile named like `N57E011`; undefined when the name is not one. */
export function parseTileName(name: string): { lat: number; lng: number } | undefined {
  const match = /^([NS])(\d{2})([EW])(\d{3})$/i.exec(name);
  if (!match) return undefined;
  const lat = Number(match[2]) * (match[1]!.toUpperCase() === "S" ? -1 : 1);
  const lng = Number(match[4]) * (match[3]!.toUpperCase() === "W" ? -1 : 1);
  if (lat < -90 || lat > 89 || lng < -180 || lng > 179) return undefined;
  return { lat, lng };
}

/** A number of cells, taken as whole when within SNAP of it. */
export function snap(cells: number): number {
  const whole = Math.round(cells);
  return Math.abs(cells - whole) < SNAP ? whole : cells;
}

/** Whether a latitude lies where sources can cover it. */
export function inCoverage(lat: number): boolean {
  return lat >= COVERAGE_SOUTH && lat <= COVERAGE_NORTH;
}

/** R2 key of the coverage manifest. */
export const MANIFEST_KEY = "elevation/v1/manifest.json";

/** R2 key of one chunk; the tile's content version is part of it, so a re-import never mixes. */
export function chunkKey(tile: string, version: string, row: number, col: number): string {
  return `elevation/v1/tiles/${tile}/${version}/${row}-${col}.bin`;
}
