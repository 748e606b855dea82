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

/** Web Mercator meters per pixel of a 256 px tile at zoom 0, at the equator. */
const ZOOM0_METERS_PER_PIXEL = 156_543.034;
const MAX_ZOOM = 19;
/** A map never asks for more tiles than this. */
const MAX_TILES = 36;
const METERS_PER_DEGREE = 111_320;

/** The tiles covering the frame at the zoom whose pixels are closest to the frame's. */
export function basemapTiles(frame: Frame, basemap: Basemap): BasemapTile[] {
  const { box } = frame;
  const midLat = (box.minLat + box.maxLat) / 2;
  const metersPerPixel = METERS_PER_DEGREE / frame.scale;
  const ideal = Math.log2((ZOOM0_METERS_PER_PIXEL * Math.cos((midLat * Math.PI) / 180)) / metersPerPixel);
  for (let z = Math.max(0, Math.min(MAX_ZOOM, Math.round(ideal))); z >= 0; z--) {
    const n = 2 ** z;
    const x0 = Math.floor(tileX(box.minLng, n));
    const x1 = Math.floor(tileX(box.maxLng, n));
    const y0 = Math.floor(tileY(box.maxLat, n));
    const y1 = Math.floor(tileY(box.minLat, n));
    if ((x1 - x0 + 1) * (y1 - y0 + 1) > MAX_TILES) continue;
    const tiles: BasemapTile[] = [];
    for (let y = Math.max(0, y0); y <= Math.min(n - 1, y1); y++) {
      for (let x = x0; x <= x1; x++) {
        const west = (x / n) * 360 - 180;
        const east = ((x + 1) / n) * 360 - 180;
        const north = tileLat(y, n);
        const south = tileLat(y + 1, n);
        const left = (west * frame.xScale - frame.x0) * frame.scale;
        const right = (east * frame.xScale - frame.x0) * frame.scale;
        const top = (-north - frame.y0) * frame.scale;
        const bottom = (-south - frame.y0) * frame.scale;
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
  return [];
}

function tileX(lng: number, n: number): number {
  return ((lng + 180) / 360) * n;
}

function tileY(lat: number, n: number): number {
  const phi = (Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI) / 180;
  return ((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * n;
}

function tileLat(y: number, n: number): number {
  return (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI;
}

/** Two decimals: neighbouring tiles meet without a hairline. */
function round(n: number): number {
  return Math.round(n * 100) / 100;
}
