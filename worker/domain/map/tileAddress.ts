import type { Checked, Problem } from "../problem";

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
