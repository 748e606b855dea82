import { createRequire } from "node:module";
import type { Feature, FeatureCollection, Geometry, Position } from "geojson";

/**
 * An OpenStreetMap extract (.osm.pbf) as the basemap's GeoJSON layers, in the Protomaps basemap
 * layer schema (https://docs.protomaps.com/basemaps/layers), so the pages' MapLibre style and our
 * SVG draw them alike: `roads` (kind highway, major_road, minor_road, path, other; name and ref),
 * `water` (lakes, rivers' areas, reservoirs as polygons; rivers, streams, canals and the coastline as
 * lines), `earth` (islands drawn by a closed coastline, kind island), `places` (cities, towns, villages, hamlets, suburbs, islands with a name), `landuse` (parks,
 * woods, farmland, grass) and `buildings`. Ways only: a multipolygon relation's closed outer ways
 * count as areas of their own, its holes are not cut. Read by npm tiny-osmpbf, all in memory: meant
 * for a city's or a region's extract, not a country's.
 */

const require = createRequire(import.meta.url);
const readOsmPbf = require("tiny-osmpbf") as (
  input: Uint8Array,
  handler: (element: OsmElement) => void,
) => unknown;

interface OsmElement {
  type: "node" | "way" | "relation";
  id: number;
  lat?: number;
  lon?: number;
  nodes?: number[];
  members?: { type: string; ref: number; role: string }[];
  tags?: Record<string, string>;
}

export type OsmLayerName = "roads" | "water" | "places" | "landuse" | "buildings" | "earth";
export type OsmLayers = Record<OsmLayerName, FeatureCollection>;

export interface OsmExtract {
  layers: OsmLayers;
  /** West, south, east, north of the nodes read. */
  bounds: [number, number, number, number];
  /** Features per layer, for the command's report. */
  counts: Record<OsmLayerName, number>;
}

/** Protomaps' road kinds from OSM's `highway` values. */
const ROAD_KIND: Record<string, string> = {
  motorway: "highway",
  motorway_link: "highway",
  trunk: "highway",
  trunk_link: "highway",
  primary: "major_road",
  primary_link: "major_road",
  secondary: "major_road",
  secondary_link: "major_road",
  tertiary: "major_road",
  tertiary_link: "major_road",
  residential: "minor_road",
  unclassified: "minor_road",
  living_street: "minor_road",
  service: "minor_road",
  road: "minor_road",
  track: "path",
  path: "path",
  footway: "path",
  cycleway: "path",
  bridleway: "path",
  steps: "path",
  pedestrian: "path",
};

/** The zoom a road shows from: highways early, paths only close in (as in Protomaps' tiles). */
const ROAD_MIN_ZOOM: Record<string, number> = { highway: 5, major_road: 8, minor_road: 12, path: 13 };

const PLACE_MIN_ZOOM: Record<string, number> = {
  city: 6,
  town: 8,
  village: 11,
  suburb: 12,
  island: 12,
  hamlet: 13,
  neighbourhood: 14,
  islet: 14,
  locality: 14,
};

const LANDUSE: Record<string, string> = {
  "leisure=park": "park",
  "leisure=nature_reserve": "nature_reserve",
  "leisure=garden": "garden",
  "leisure=pitch": "pitch",
  "landuse=forest": "forest",
  "natural=wood": "wood",
  "landuse=grass": "grass",
  "natural=grassland": "grassland",
  "landuse=meadow": "meadow",
  "landuse=farmland": "farmland",
  "landuse=farmyard": "farmland",
  "landuse=residential": "residential",
  "landuse=industrial": "industrial",
  "landuse=cemetery": "cemetery",
  "aeroway=aerodrome": "aerodrome",
};

const WATER_AREA: Record<string, string> = {
  "natural=water": "water",
  "landuse=reservoir": "water",
  "landuse=basin": "water",
  "waterway=riverbank": "river",
  "natural=bay": "ocean",
};

const WATER_LINE: Record<string, string> = {
  "waterway=river": "river",
  "waterway=stream": "stream",
  "waterway=canal": "canal",
  "waterway=drain": "drain",
  "waterway=ditch": "ditch",
  "natural=coastline": "coastline",
};

function matchTag(tags: Record<string, string>, table: Record<string, string>): string | undefined {
  for (const [key, value] of Object.entries(tags)) {
    const kind = table[`${key}=${value}`];
    if (kind) return kind;
  }
  return undefined;
}

/** Reads an .osm.pbf extract into the basemap's layers. Throws with what to give instead. */
export function readOsmExtract(bytes: Uint8Array): OsmExtract {
  const nodes = new Map<number, Position>();
  const ways: OsmElement[] = [];
  const placeNodes: OsmElement[] = [];
  const outerWays = new Set<number>();
  try {
    readOsmPbf(bytes, (element) => {
      if (element.type === "node") {
        nodes.set(element.id, [element.lon!, element.lat!]);
        if (element.tags?.place && element.tags.name) placeNodes.push(element);
      } else if (element.type === "way") ways.push(element);
      else if (element.tags?.type === "multipolygon")
        for (const m of element.members ?? [])
          if (m.type === "way" && m.role !== "inner") outerWays.add(m.ref);
    });
  } catch (err) {
    throw new Error(
      `not an OpenStreetMap PBF extract (${err instanceof Error ? err.message : String(err)}): give an .osm.pbf file`,
    );
  }
  if (nodes.size === 0) throw new Error("the extract holds no nodes: give an .osm.pbf file of an area");

  const layers: Record<OsmLayerName, Feature[]> = {
    roads: [],
    water: [],
    places: [],
    landuse: [],
    buildings: [],
    earth: [],
  };
  for (const node of placeNodes) layers.places.push(place(node, nodes.get(node.id)!));
  for (const way of ways) {
    const line = (way.nodes ?? []).map((id) => nodes.get(id)).filter((p): p is Position => p !== undefined);
    if (line.length < 2) continue;
    const tags = way.tags ?? {};
    const closed = way.nodes!.length > 3 && way.nodes![0] === way.nodes!.at(-1);
    const area = closed && (tags.area !== "no" || outerWays.has(way.id));
    const road = tags.highway ? (ROAD_KIND[tags.highway] ?? "other") : undefined;
    if (road && !(area && tags.area === "yes")) {
      layers.roads.push(
        feature(
          { type: "LineString", coordinates: line },
          {
            kind: road,
            kind_detail: tags.highway,
            name: tags.name,
            ref: tags.ref,
            min_zoom: ROAD_MIN_ZOOM[road] ?? 14,
          },
        ),
      );
      continue;
    }
    // An island drawn by its closed coastline: land (kind island) over the sea, and its name.
    if (closed && (tags.natural === "coastline" || tags.place === "island" || tags.place === "islet")) {
      layers.earth.push(
        feature({ type: "Polygon", coordinates: [counterClockwise(line)] }, { kind: "island" }),
      );
      if (tags.place && tags.name) layers.places.push(place(way, centroid(line)));
      continue;
    }
    const waterLine = matchTag(tags, WATER_LINE);
    if (waterLine && !(area && waterLine !== "coastline")) {
      layers.water.push(
        feature({ type: "LineString", coordinates: line }, { kind: waterLine, name: tags.name }),
      );
      continue;
    }
    if (!area) continue;
    const polygon: Geometry = { type: "Polygon", coordinates: [counterClockwise(line)] };
    const waterArea = matchTag(tags, WATER_AREA);
    if (waterArea) layers.water.push(feature(polygon, { kind: waterArea, name: tags.name }));
    else if (tags.building && tags.building !== "no")
      layers.buildings.push(feature(polygon, { kind: "building" }));
    else {
      const landuse = matchTag(tags, LANDUSE);
      if (landuse) layers.landuse.push(feature(polygon, { kind: landuse, name: tags.name }));
    }
    if (tags.place && tags.name) layers.places.push(place(way, centroid(line)));
  }

  let [west, south, east, north] = [180, 90, -180, -90];
  for (const [lon, lat] of nodes.values()) {
    west = Math.min(west, lon!);
    east = Math.max(east, lon!);
    south = Math.min(south, lat!);
    north = Math.max(north, lat!);
  }
  const names = Object.keys(layers) as OsmLayerName[];
  return {
    layers: Object.fromEntries(
      names.map((n) => [n, { type: "FeatureCollection", features: layers[n] }]),
    ) as OsmLayers,
    bounds: [west, south, east, north],
    counts: Object.fromEntries(names.map((n) => [n, layers[n].length])) as Record<OsmLayerName, number>,
  };
}

function place(element: OsmElement, at: Position): Feature {
  const kind = element.tags!.place!;
  const population = Number(element.tags!.population);
  return feature(
    { type: "Point", coordinates: at },
    {
      kind: kind === "city" || kind === "town" || kind === "village" || kind === "hamlet" ? "locality" : kind,
      kind_detail: kind,
      name: element.tags!.name,
      population: Number.isFinite(population) ? population : undefined,
      min_zoom: PLACE_MIN_ZOOM[kind] ?? 14,
    },
  );
}

function feature(geometry: Geometry, properties: Record<string, unknown>): Feature {
  // Absent tags stay absent in the tiles.
  const defined = Object.fromEntries(Object.entries(properties).filter(([, v]) => v !== undefined));
  return { type: "Feature", properties: defined, geometry };
}

function centroid(ring: Position[]): Position {
  let x = 0;
  let y = 0;
  for (const [lon, lat] of ring) {
    x += lon!;
    y += lat!;
  }
  return [x / ring.length, y / ring.length];
}

/** RFC 7946's outer ring (counter-clockwise), as the builder's other polygons. */
function counterClockwise(ring: Position[]): Position[] {
  let sum = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++)
    sum += (ring[j]![0]! - ring[i]![0]!) * (ring[j]![1]! + ring[i]![1]!);
  return sum > 0 ? ring : [...ring].reverse();
}
