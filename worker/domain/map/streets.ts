import { VectorTile } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import type { Position } from "../geojson";
import { fittingSpan, frameZoom, type TileAddress, tileLat, tileLng } from "./tileAddress";
import { type Frame, inFrame, type Pixel, polygonPath, project, simplify } from "./view";

/**
 * What a pilot navigates by, read from the vector basemap's tiles (Protomaps' layer schema) and
 * drawn by the server into the map's SVG, so every page shows it without WebGL and without scripts:
 * water, parks and woods, buildings, roads (each kind its width) and the names of places and roads.
 * The tiles come at the zoom whose pixels match the frame's, or the archive's deepest (overzoom).
 */

/** A map reads at most this many tiles; wider views read a shallower zoom. */
const MAX_TILES = 12;

/** The tiles to read for the frame from an archive of zooms `minZoom`–`maxZoom`. */
export function streetTiles(frame: Frame, minZoom: number, maxZoom: number): TileAddress[] {
  const span = fittingSpan(frame, minZoom, maxZoom, MAX_TILES);
  if (!span) return [];
  const { z, n } = span;
  const refs: TileAddress[] = [];
  for (let y = Math.max(0, span.y0); y <= Math.min(n - 1, span.y1); y++)
    for (let x = Math.max(0, span.x0); x <= Math.min(n - 1, span.x1); x++) refs.push({ z, x, y });
  return refs;
}

export interface StreetFeature {
  layer: "water" | "landuse" | "buildings" | "roads" | "places" | "earth";
  kind: string;
  name?: string;
  minZoom?: number;
  /** Polygon rings, lines, or one point, in longitude and latitude. */
  shape: "area" | "line" | "point";
  parts: Position[][];
}

const LAYERS = new Set(["water", "landuse", "buildings", "roads", "places", "earth"]);

/** A tile's features in the layers drawn, in longitude and latitude. */
export function readStreetTile(ref: TileAddress, data: ArrayBuffer): StreetFeature[] {
  const tile = new VectorTile(new PbfReader(new Uint8Array(data)));
  const features: StreetFeature[] = [];
  const n = 2 ** ref.z;
  for (const [name, layer] of Object.entries(tile.layers)) {
    if (!LAYERS.has(name)) continue;
    const toLngLat = (p: { x: number; y: number }): Position => [
      tileLng(ref.x + p.x / layer.extent, n),
      tileLat(ref.y + p.y / layer.extent, n),
    ];
    for (let i = 0; i < layer.length; i++) {
      const f = layer.feature(i);
      const shape = f.type === 3 ? "area" : f.type === 2 ? "line" : "point";
      const props = f.properties;
      features.push({
        layer: name as StreetFeature["layer"],
        kind: String(props.kind ?? ""),
        name: typeof props.name === "string" ? props.name : undefined,
        minZoom: typeof props.min_zoom === "number" ? props.min_zoom : undefined,
        shape,
        parts: f.loadGeometry().map((ring) => ring.map(toLngLat)),
      });
    }
  }
  return features;
}

export interface StreetsLayer {
  water: string;
  /** Islands an extract draws by their coastline, over the sea around them. */
  islands: string;
  green: string;
  buildings: string;
  waterLines: { d: string; kind: string }[];
  roads: { d: string; kind: string; name?: string; id: string; length: number }[];
  places: { x: number; y: number; name: string; kind: string }[];
}

const ROAD_ORDER: Record<string, number> = { path: 0, other: 1, minor_road: 2, major_road: 3, highway: 4 };
const GREEN = new Set([
  "park",
  "nature_reserve",
  "garden",
  "forest",
  "wood",
  "grass",
  "grassland",
  "meadow",
  "pitch",
]);

/**
 * The features as SVG geometry for the frame: areas merged per fill, lines simplified to about a
 * pixel, roads ordered minor to major, place names that do not collide. A feature with a `min_zoom`
 * beyond the frame's zoom is left out, as the vector map leaves it out.
 */
export function streetsLayer(frame: Frame, features: StreetFeature[]): StreetsLayer | undefined {
  const zoom = frameZoom(frame);
  const shown = features.filter((f) => f.minZoom === undefined || f.minZoom <= zoom + 0.5);
  const areaPath = (wanted: (f: StreetFeature) => boolean) =>
    shown
      .filter((f) => f.shape === "area" && wanted(f))
      .map((f) => polygonPath(frame, { type: "Polygon", coordinates: f.parts }, 0.7))
      .filter(Boolean)
      .join(" ");
  // Water only where it shows: a polygon clipped away entirely leaves a sliver along the edge.
  const water = areaPath((f) => f.layer === "water" && showsIn(frame, f.parts));
  const islands = areaPath((f) => f.layer === "earth" && f.kind === "island");
  const green = areaPath((f) => f.layer === "landuse" && GREEN.has(f.kind));
  const buildings = zoom >= 14 ? areaPath((f) => f.layer === "buildings") : "";
  const waterLines = shown
    .filter((f) => f.layer === "water" && f.shape === "line")
    .map((f) => ({ d: linePath(frame, f.parts).d, kind: f.kind }))
    .filter((l) => l.d !== "");
  const roads = shown
    .filter((f) => f.layer === "roads" && f.shape === "line")
    .sort((a, b) => (ROAD_ORDER[a.kind] ?? 1) - (ROAD_ORDER[b.kind] ?? 1))
    .map((f, i) => ({ ...linePath(frame, f.parts), kind: f.kind, name: f.name, id: `road-${i}` }))
    .filter((r) => r.d !== "");
  const places: StreetsLayer["places"] = [];
  const taken: Pixel[] = [];
  for (const f of shown
    .filter((f) => f.layer === "places" && f.shape === "point" && f.name)
    .sort((a, b) => (a.minZoom ?? 99) - (b.minZoom ?? 99))) {
    const p = project(frame, f.parts[0]![0]!);
    // One name per place (tiles overlap at their edges), none crowding another.
    if (!inFrame(frame, p) || taken.some((t) => Math.abs(t.x - p.x) < 90 && Math.abs(t.y - p.y) < 18))
      continue;
    taken.push(p);
    places.push({ x: p.x, y: p.y, name: f.name!, kind: f.kind });
  }
  if (!water && !islands && !green && !buildings && waterLines.length + roads.length + places.length === 0)
    return undefined;
  return { water, islands, green, buildings, waterLines, roads, places };
}

/** Whether a polygon has a corner inside the frame or covers its centre. */
function showsIn(frame: Frame, rings: Position[][]): boolean {
  if (rings.some((ring) => ring.some((p) => inFrame(frame, project(frame, p))))) return true;
  const { box } = frame;
  const [x, y] = [(box.minLng + box.maxLng) / 2, (box.minLat + box.maxLat) / 2];
  let inside = false;
  for (const ring of rings)
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i]!;
      const [xj, yj] = ring[j]!;
      if (yi! > y !== yj! > y && x < ((xj! - xi!) * (y - yi!)) / (yj! - yi!) + xi!) inside = !inside;
    }
  return inside;
}

/** A (multi)line in the frame: each part projected and simplified; `length` the longest part's in pixels. */
function linePath(frame: Frame, parts: Position[][]): { d: string; length: number } {
  const out: string[] = [];
  let longest = 0;
  for (const part of parts) {
    const points = simplify(
      part.map((p) => project(frame, p)),
      0.7,
    );
    if (points.length < 2 || points.every((p) => !inFrame(frame, p))) continue;
    let length = 0;
    for (let i = 1; i < points.length; i++)
      length += Math.hypot(points[i]!.x - points[i - 1]!.x, points[i]!.y - points[i - 1]!.y);
    longest = Math.max(longest, length);
    // Left to right, so a name along it reads upright.
    const ordered = points[0]!.x <= points.at(-1)!.x ? points : [...points].reverse();
    out.push(ordered.map((p, i) => `${i === 0 ? "M" : "L"}${p.x} ${p.y}`).join(" "));
  }
  return { d: out.join(" "), length: longest };
}
