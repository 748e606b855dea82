import { fittingSpan, tileLat, tileLng } from "./tileAddress";
import type { Frame } from "./view";

/**
 * An operator's raster basemap under the shared map: XYZ tiles in Web Mercator from a URL template
 * (`https://tiles.example/{z}/{x}/{y}.png`), each placed by its corners in the frame. At the zooms
 * a flight's map uses, a tile's own Mercator stretch is far below a pixel, so plain images do.
 */

export interface Basemap {
  template: string;
  /** The tiles' data's own attribution, shown on the map. */
  attribution: string;
}

/** The template, or what is wrong with it: https (http for a local server), with {z}, {x} and {y}. */
export function readBasemap(
  template: string | undefined,
  attribution: string | undefined,
): Basemap | string | undefined {
  if (!template) return undefined;
  let url: URL;
  try {
    url = new URL(template.replace(/\{[xyz]\}/g, "0"));
  } catch {
    return "MAP_RASTER_TILES must be a URL template such as https://tiles.example/{z}/{x}/{y}.png";
  }
  if (
    url.protocol !== "https:" &&
    !(url.protocol === "http:" && ["localhost", "127.0.0.1"].includes(url.hostname))
  )
    return "MAP_RASTER_TILES must be https (http only for localhost)";
  if (!["{z}", "{x}", "{y}"].every((p) => template.includes(p)))
    return "MAP_RASTER_TILES must hold {z}, {x} and {y}";
  if (!attribution)
    return "MAP_RASTER_ATTRIBUTION must name the tiles' data (for example © OpenStreetMap contributors)";
  return { template, attribution };
}

/** The origin the page's Content-Security-Policy must allow images from. */
export function basemapOrigin(basemap: Basemap): string {
  return new URL(basemap.template.replace(/\{[xyz]\}/g, "0")).origin;
}

export interface BasemapTile {
  href: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

const MAX_ZOOM = 19;
/** A map never asks for more tiles than this. */
const MAX_TILES = 36;

/** The tiles covering the frame at the zoom whose pixels are closest to the frame's. */
export function basemapTiles(frame: Frame, basemap: Basemap): BasemapTile[] {
  const span = fittingSpan(frame, 0, MAX_ZOOM, MAX_TILES);
  if (!span) return [];
  const { z, n } = span;
  const tiles: BasemapTile[] = [];
  for (let y = Math.max(0, span.y0); y <= Math.min(n - 1, span.y1); y++) {
    for (let x = span.x0; x <= span.x1; x++) {
      const left = (tileLng(x, n) * frame.xScale - frame.x0) * frame.scale;
      const right = (tileLng(x + 1, n) * frame.xScale - frame.x0) * frame.scale;
      const top = (-tileLat(y, n) - frame.y0) * frame.scale;
      const bottom = (-tileLat(y + 1, n) - frame.y0) * frame.scale;
      const wrapped = ((x % n) + n) % n;
      tiles.push({
        href: basemap.template
          .replace("{z}", String(z))
          .replace("{x}", String(wrapped))
          .replace("{y}", String(y)),
        x: round(left),
        y: round(top),
        width: round(right - left),
        height: round(bottom - top),
      });
    }
  }
  return tiles;
}

/** Two decimals: neighbouring tiles meet without a hairline. */
function round(n: number): number {
  return Math.round(n * 100) / 100;
}
