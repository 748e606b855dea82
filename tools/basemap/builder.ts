import GeoJSONVT from "geojson-vt";
import { fromGeojsonVt } from "vt-pbf";
import type { AirportWithRunways } from "../airspace/controlledAirspace";
import { type ArchiveTile, writeArchive } from "./pmtilesWriter";
import { ATTRIBUTION, type Detail, type Layers, worldLayers } from "./sources";

/**
 * The embedded basemap: the whole world at zooms 0–5 from Natural Earth's 1:50m data, and zooms
 * 6–10 around each embedded area from its 1:10m data, US boundaries and airports. MapLibre draws
 * deeper zooms from the zoom-10 tiles (overzoom): the data holds no finer detail.
 */

/** The embedded default's areas (the elevation samples'): centre longitude, latitude. */
export const EMBEDDED_AREAS = [
  { name: "Jacksboro", center: [-84.19, 36.33] },
  { name: "Gothenburg", center: [11.97, 57.7] },
  { name: "Luxembourg", center: [6.13, 49.61] },
] as const;

export const WORLD_MAX_ZOOM = 5;
export const MAX_ZOOM = 10;
const EXTENT = 4096;

/** Half the side of the box around an area, in degrees, tiled at a zoom beyond the world's. */
function areaRadius(z: number): number {
  return z <= 8 ? 4 : 1.5;
}

export type BuildProgress = (message: string) => void;

export interface BuildOptions {
  /** The deepest zoom tiled world-wide (default 5). */
  worldMaxZoom?: number;
  /** The deepest zoom tiled around the areas (default 10). */
  maxZoom?: number;
}

export interface BuiltBasemap {
  archive: Uint8Array;
  tiles: number;
}

export function buildBasemap(
  airports: AirportWithRunways[],
  progress: BuildProgress = () => {},
  options: BuildOptions = {},
): BuiltBasemap {
  const worldMaxZoom = options.worldMaxZoom ?? WORLD_MAX_ZOOM;
  const maxZoom = options.maxZoom ?? MAX_ZOOM;
  if (worldMaxZoom > maxZoom) throw new Error("the world's deepest zoom cannot pass the areas'");
  const tiles: ArchiveTile[] = [];
  const tiler = (detail: Detail) => {
    progress(`reading Natural Earth 1:${detail}`);
    const layers = worldLayers(detail, airports);
    const indexes = Object.entries(layers).map(
      ([name, data]) => [name, new GeoJSONVT(data, { maxZoom, indexMaxZoom: 0, extent: EXTENT })] as const,
    );
    return (z: number, x: number, y: number) => {
      const tileLayers: Record<string, { features: unknown[] }> = {};
      for (const [name, index] of indexes) {
        const tile = index.getTile(z, x, y);
        // A feature with a `min_zoom` (pois) shows from that zoom on, as in Protomaps' tiles.
        const features = tile?.features.filter((f) => !(Number(f.tags?.min_zoom) > z)) ?? [];
        if (features.length > 0) tileLayers[name] = { features };
      }
      if (Object.keys(tileLayers).length > 0)
        tiles.push({ z, x, y, data: fromGeojsonVt(tileLayers, { version: 2, extent: EXTENT }) });
    };
  };

  const world = tiler("50m");
  for (let z = 0; z <= worldMaxZoom; z++) {
    const n = 2 ** z;
    for (let x = 0; x < n; x++) for (let y = 0; y < n; y++) world(z, x, y);
    progress(`zoom ${z}: ${tiles.length} tiles so far`);
  }
  const detailed = tiler("10m");
  for (let z = worldMaxZoom + 1; z <= maxZoom; z++) {
    const wanted = new Set<string>();
    for (const area of EMBEDDED_AREAS) {
      const [lng, lat] = area.center;
      const r = areaRadius(z);
      const [x0, y1] = tileOf(z, lng - r, lat - r);
      const [x1, y0] = tileOf(z, lng + r, lat + r);
      for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) wanted.add(`${x}/${y}`);
    }
    for (const key of wanted) {
      const [x, y] = key.split("/").map(Number) as [number, number];
      detailed(z, x, y);
    }
    progress(`zoom ${z}: ${tiles.length} tiles so far`);
  }

  const archive = writeArchive(tiles, {
    bounds: [-180, -85.05, 180, 85.05],
    center: [EMBEDDED_AREAS[0].center[0], EMBEDDED_AREAS[0].center[1], 8],
    metadata: {
      name: "Windsock embedded basemap",
      description: `Natural Earth land, water and country borders worldwide (zooms 0–${worldMaxZoom}, 1:50m), and around Jacksboro, Gothenburg and Luxembourg (zooms ${worldMaxZoom + 1}–${maxZoom}, 1:10m) with US states and counties and OurAirports airports, in the Protomaps basemap layer schema`,
      attribution: ATTRIBUTION,
      type: "baselayer",
      format: "pbf",
      minzoom: 0,
      maxzoom: maxZoom,
      vector_layers: (Object.keys(emptyLayers()) as (keyof Layers)[]).map((id) => ({
        id,
        fields: LAYER_FIELDS[id],
        minzoom: 0,
        maxzoom: maxZoom,
      })),
    },
  });
  return { archive, tiles: tiles.length };
}

const LAYER_FIELDS: Record<keyof Layers, Record<string, string>> = {
  earth: { kind: "String" },
  water: { kind: "String" },
  boundaries: { kind: "String", kind_detail: "Number" },
  pois: { kind: "String", kind_detail: "String", name: "String", ref: "String", min_zoom: "Number" },
};

function emptyLayers(): Record<keyof Layers, null> {
  return { earth: null, water: null, boundaries: null, pois: null };
}

function tileOf(z: number, lng: number, lat: number): [number, number] {
  const n = 2 ** z;
  const x = Math.floor(((lng + 180) / 360) * n);
  const phi = (lat * Math.PI) / 180;
  const y = Math.floor(((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * n);
  return [Math.max(0, Math.min(n - 1, x)), Math.max(0, Math.min(n - 1, y))];
}
