import type { Feature, FeatureCollection } from "geojson";
import GeoJSONVT from "geojson-vt";
import { fromGeojsonVt } from "vt-pbf";
import type { AirportWithRunways } from "../airspace/controlledAirspace";
import type { OsmExtract } from "./osm";
import { PLACES_ATTRIBUTION, placesIn } from "./places";
import { writeArchive } from "./pmtilesWriter";
import { ATTRIBUTION, worldLayers } from "./sources";

/**
 * The embedded basemap: the whole world at zooms 0–5 from Natural Earth's 1:50m data (and GeoNames'
 * capitals and cities of a million), and zooms 6–12 around each embedded area from its 1:10m data,
 * US boundaries, airports and GeoNames' places. OpenStreetMap extracts (the small real samples in
 * data/basemap/, or an operator's) add roads, water, places, land use and buildings over their own
 * box at zooms 6–12. MapLibre and the pages' SVG draw deeper zooms from the zoom-12 tiles
 * (overzoom): a tile unit there is about a metre or two.
 */

/** The embedded default's areas (the elevation samples'): centre longitude, latitude. */
export const EMBEDDED_AREAS = [
  { name: "Jacksboro", center: [-84.19, 36.33] },
  { name: "Gothenburg", center: [11.97, 57.7] },
  { name: "Luxembourg", center: [6.13, 49.61] },
] as const;

export const WORLD_MAX_ZOOM = 5;
export const MAX_ZOOM = 12;
const EXTENT = 4096;

/** Half the side of the box around an area, in degrees, tiled at a zoom beyond the world's. */
function areaRadius(z: number): number {
  return z <= 8 ? 4 : z <= 10 ? 1.5 : 0.5;
}

export type BuildProgress = (message: string) => void;

export interface BuildOptions {
  /** The deepest zoom tiled world-wide (default 5). */
  worldMaxZoom?: number;
  /** The deepest zoom tiled around the areas and extracts (default 12). */
  maxZoom?: number;
  /** OpenStreetMap extracts whose layers join the tiles over their boxes. */
  extracts?: OsmExtract[];
  /** Whether to tile around EMBEDDED_AREAS (default true). */
  embeddedAreas?: boolean;
}

export interface BuiltBasemap {
  archive: Uint8Array;
  tiles: number;
}

type TileLayers = Record<string, { features: unknown[] }>;
type Tiler = (z: number, x: number, y: number, into: TileLayers) => void;

/**
 * Cuts GeoJSON layers into tile features. A feature with a `min_zoom` shows from that zoom on, as in
 * Protomaps' tiles, and in every tile of the deepest zoom, which deeper views overzoom.
 */
function tilerOf(layers: Record<string, FeatureCollection>, maxZoom: number): Tiler {
  const indexes = Object.entries(layers)
    .filter(([, data]) => data.features.length > 0)
    .map(
      ([name, data]) => [name, new GeoJSONVT(data, { maxZoom, indexMaxZoom: 0, extent: EXTENT })] as const,
    );
  return (z, x, y, into) => {
    for (const [name, index] of indexes) {
      const features =
        index.getTile(z, x, y)?.features.filter((f) => z === maxZoom || !(Number(f.tags?.min_zoom) > z)) ??
        [];
      if (features.length > 0) into[name] = { features: [...(into[name]?.features ?? []), ...features] };
    }
  };
}

export function buildBasemap(
  airports: AirportWithRunways[],
  progress: BuildProgress = () => {},
  options: BuildOptions = {},
): BuiltBasemap {
  const worldMaxZoom = options.worldMaxZoom ?? WORLD_MAX_ZOOM;
  const maxZoom = options.maxZoom ?? MAX_ZOOM;
  const extracts = options.extracts ?? [];
  const areas = options.embeddedAreas === false ? [] : EMBEDDED_AREAS;
  if (worldMaxZoom > maxZoom) throw new Error("the world's deepest zoom cannot pass the areas'");
  const tiles = new Map<string, { z: number; x: number; y: number; layers: TileLayers }>();
  const tileAt = (z: number, x: number, y: number) => {
    const key = `${z}/${x}/${y}`;
    let tile = tiles.get(key);
    if (!tile) {
      tile = { z, x, y, layers: {} };
      tiles.set(key, tile);
    }
    return tile.layers;
  };

  progress("reading Natural Earth 1:50m and GeoNames' largest places");
  const world = worldLayers("50m", airports);
  world.places = collection(placesIn().filter((f) => Number(f.properties?.min_zoom) <= worldMaxZoom));
  const worldTiler = tilerOf(world, maxZoom);
  for (let z = 0; z <= worldMaxZoom; z++) {
    const n = 2 ** z;
    for (let x = 0; x < n; x++) for (let y = 0; y < n; y++) worldTiler(z, x, y, tileAt(z, x, y));
    progress(`zoom ${z}: ${tiles.size} tiles so far`);
  }

  progress("reading Natural Earth 1:10m, US boundaries, airports and GeoNames' places");
  const boxes = [
    ...areas.map((area) => ({ center: area.center, radius: areaRadius })),
    ...extracts.map((e) => ({ box: e.bounds })),
  ];
  const detailed = worldLayers("10m", airports);
  const near: [number, number, number, number][] = [
    ...areas.map(
      ({ center: [lng, lat] }) => [lng - 4, lat - 4, lng + 4, lat + 4] as [number, number, number, number],
    ),
    ...extracts.map((e) => e.bounds),
  ];
  detailed.places = collection(near.flatMap((box) => placesIn(box)));
  const detailedTiler = tilerOf(detailed, maxZoom);
  const extractTilers = extracts.map((e) => tilerOf(e.layers, maxZoom));
  for (let z = worldMaxZoom + 1; z <= maxZoom; z++) {
    const wanted = new Set<string>();
    for (const b of boxes) {
      const [west, south, east, north] =
        "box" in b
          ? b.box
          : [
              b.center[0] - b.radius(z),
              b.center[1] - b.radius(z),
              b.center[0] + b.radius(z),
              b.center[1] + b.radius(z),
            ];
      const [x0, y1] = tileOf(z, west, south);
      const [x1, y0] = tileOf(z, east, north);
      for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) wanted.add(`${x}/${y}`);
    }
    for (const key of wanted) {
      const [x, y] = key.split("/").map(Number) as [number, number];
      const into = tileAt(z, x, y);
      detailedTiler(z, x, y, into);
      for (const tiler of extractTilers) tiler(z, x, y, into);
    }
    progress(`zoom ${z}: ${tiles.size} tiles so far`);
  }
  // Extracts reach below the world's zooms too (their highways and cities).
  for (const tiler of extractTilers)
    for (let z = 0; z <= worldMaxZoom; z++)
      for (const e of extracts) {
        const [x0, y1] = tileOf(z, e.bounds[0], e.bounds[1]);
        const [x1, y0] = tileOf(z, e.bounds[2], e.bounds[3]);
        for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) tiler(z, x, y, tileAt(z, x, y));
      }

  const encoded = [...tiles.values()]
    .filter((t) => Object.keys(t.layers).length > 0)
    .map((t) => ({ z: t.z, x: t.x, y: t.y, data: fromGeojsonVt(t.layers, { version: 2, extent: EXTENT }) }));
  const layerIds = [
    ...new Set(encoded.length ? [...tiles.values()].flatMap((t) => Object.keys(t.layers)) : []),
  ];
  const archive = writeArchive(encoded, {
    bounds: [-180, -85.05, 180, 85.05],
    center: [EMBEDDED_AREAS[0].center[0], EMBEDDED_AREAS[0].center[1], 8],
    metadata: {
      name: "Windsock embedded basemap",
      description: `Natural Earth land, water and country borders worldwide (zooms 0–${worldMaxZoom}, 1:50m), and around Jacksboro, Gothenburg and Luxembourg (zooms ${worldMaxZoom + 1}–${maxZoom}, 1:10m) with US states and counties, OurAirports airports and GeoNames places${extracts.length ? `; roads, water, places, land use and buildings of ${extracts.length} OpenStreetMap extract(s)` : ""}, in the Protomaps basemap layer schema`,
      attribution: extracts.length
        ? `${ATTRIBUTION} · ${PLACES_ATTRIBUTION} · ${OSM_ATTRIBUTION}`
        : `${ATTRIBUTION} · ${PLACES_ATTRIBUTION}`,
      type: "baselayer",
      format: "pbf",
      minzoom: 0,
      maxzoom: maxZoom,
      vector_layers: (Object.keys(LAYER_FIELDS) as (keyof typeof LAYER_FIELDS)[])
        .filter((id) => layerIds.includes(id))
        .map((id) => ({ id, fields: LAYER_FIELDS[id], minzoom: 0, maxzoom: maxZoom })),
    },
  });
  return { archive, tiles: encoded.length };
}

export const OSM_ATTRIBUTION =
  '<a href="https://www.openstreetmap.org/copyright">© OpenStreetMap contributors</a>';

function collection(features: Feature[]): FeatureCollection {
  return { type: "FeatureCollection", features };
}

const LAYER_FIELDS = {
  earth: { kind: "String" },
  landuse: { kind: "String", name: "String" },
  water: { kind: "String", name: "String" },
  boundaries: { kind: "String", kind_detail: "Number" },
  buildings: { kind: "String" },
  roads: { kind: "String", kind_detail: "String", name: "String", ref: "String", min_zoom: "Number" },
  pois: { kind: "String", kind_detail: "String", name: "String", ref: "String", min_zoom: "Number" },
  places: { kind: "String", kind_detail: "String", name: "String", population: "Number", min_zoom: "Number" },
} satisfies Record<string, Record<string, string>>;

function tileOf(z: number, lng: number, lat: number): [number, number] {
  const n = 2 ** z;
  const x = Math.floor(((lng + 180) / 360) * n);
  const phi = (lat * Math.PI) / 180;
  const y = Math.floor(((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * n);
  return [Math.max(0, Math.min(n - 1, x)), Math.max(0, Math.min(n - 1, y))];
}
