import type { Checked, Problem } from "../problem";
import type { Frame } from "./view";

/** A tile of a Web Mercator XYZ pyramid. */
export interface TileAddress {
  z: number;
  x: number;
  y: number;
}

/** Deeper than any basemap is built, and within the PMTiles tile id's safe range (26). */
export const MAX_TILE_ZOOM = 24;

/** `z`, `x` and `y` from a tile path's parts (`y` may end in `.mvt`), or what is wrong with them. */
export function readTileAddress(z: string, x: string, y: string): Checked<TileAddress> {
  const problems: Problem[] = [];
  const whole = (text: string) => (/^\d{1,8}$/.test(text) ? Number(text) : undefined);
  const zoom = whole(z);
  if (zoom === undefined || zoom > MAX_TILE_ZOOM)
    return {
      ok: false,
      problems: [{ field: "z", message: `must be a whole number from 0 to ${MAX_TILE_ZOOM}` }],
    };
  const n = 2 ** zoom;
  const column = whole(x);
  const row = whole(y.replace(/\.mvt$/, ""));
  if (column === undefined || column >= n)
    problems.push({ field: "x", message: `must be a whole number from 0 to ${n - 1} at zoom ${zoom}` });
  if (row === undefined || row >= n || !y.endsWith(".mvt"))
    problems.push({
      field: "y",
      message: `must be a whole number from 0 to ${n - 1} at zoom ${zoom}, then .mvt`,
    });
  if (problems.length > 0 || column === undefined || row === undefined) return { ok: false, problems };
  return { ok: true, value: { z: zoom, x: column, y: row } };
}

/** Web Mercator meters per pixel of a 256 px tile at zoom 0, at the equator. */
const ZOOM0_METERS_PER_PIXEL = 156_543.034;
const METERS_PER_DEGREE = 111_320;

/** The zoom whose 256 px tiles have the frame's pixels, unclamped (for a feature's `min_zoom`). */
export function frameZoom(frame: Frame): number {
  const midLat = (frame.box.minLat + frame.box.maxLat) / 2;
  const metersPerPixel = METERS_PER_DEGREE / frame.scale;
  return Math.log2((ZOOM0_METERS_PER_PIXEL * Math.cos((midLat * Math.PI) / 180)) / metersPerPixel);
}

/** The columns and rows of the tiles under a frame at zoom `z` (`n` = 2^z tiles a side; columns unclamped). */
export interface TileSpan {
  z: number;
  n: number;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/**
 * The tiles to draw a frame with: at the zoom whose pixels are closest to the frame's (within
 * `minZoom`–`maxZoom`), or shallower until at most `maxTiles` cover it; null if none does.
 */
export function fittingSpan(
  frame: Frame,
  minZoom: number,
  maxZoom: number,
  maxTiles: number,
): TileSpan | null {
  const { box } = frame;
  for (let z = Math.max(minZoom, Math.min(maxZoom, Math.round(frameZoom(frame)))); z >= minZoom; z--) {
    const n = 2 ** z;
    const span = {
      z,
      n,
      x0: Math.floor(tileX(box.minLng, n)),
      x1: Math.floor(tileX(box.maxLng, n)),
      y0: Math.floor(tileY(box.maxLat, n)),
      y1: Math.floor(tileY(box.minLat, n)),
    };
    if ((span.x1 - span.x0 + 1) * (span.y1 - span.y0 + 1) <= maxTiles) return span;
  }
  return null;
}

function tileX(lng: number, n: number): number {
  return ((lng + 180) / 360) * n;
}

function tileY(lat: number, n: number): number {
  const phi = (Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI) / 180;
  return ((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * n;
}

/** The longitude of a (fractional) tile column's west edge. */
export function tileLng(x: number, n: number): number {
  return (x / n) * 360 - 180;
}

/** The latitude of a (fractional) tile row's north edge. */
export function tileLat(y: number, n: number): number {
  return (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI;
}
