import { CELLS_PER_DEGREE } from "../airspace/facilityGrid";
import type { CarpetValues } from "../elevation/carpet";
import type { CarpetPlan } from "../elevation/sampling";
import type { Geometry, Polygon, Position } from "../geojson";
import { type Basemap, type BasemapTile, basemapTiles } from "./basemap";
import { type StreetFeature, type StreetsLayer, streetsLayer } from "./streets";
import { type TerrainLayer, terrainLayer } from "./terrain";
import {
  type DistanceUnit,
  type Frame,
  inFrame,
  polygonPath,
  project,
  type ScaleBar,
  scaleBar,
} from "./view";

/** What the map draws around a flight, as the store reads it from the embedded data. */
export interface MapContext {
  /** States and counties (the country where no state is loaded), whose outlines give coasts too. */
  boundaries: { name: string; region: string; geometry: Geometry }[];
  airports: {
    id: string;
    type: "airport" | "heliport";
    name: string;
    code?: string;
    latitude: number;
    longitude: number;
  }[];
  /** Airspace with an area (controlled airspace, TFRs, parks…), not the point features. */
  areas: { id: string; type: string; name: string; geometry: Geometry; synthetic: boolean }[];
  /** Facility-map cells: the grid the FAA gives ceilings on; `synthetic` when the map is generated. */
  facilityCells: { row: number; col: number; ceilingFt: number; airportId: string; synthetic: boolean }[];
  /** The ground from our elevation tiles, sampled on terrainPlan(frame); absent where none is loaded. */
  terrain?: { plan: CarpetPlan; carpet: CarpetValues; sourceStep?: number };
  /** The operator's raster basemap (MAP_RASTER_TILES), if one is set. */
  basemap?: Basemap;
  /** Whether the operator's vector basemap (MAP_PMTILES_KEY) is set, for MapLibre to draw under the map. */
  vectorBasemap?: boolean;
  /** The vector basemap's features under the frame and its credits (tags stripped), drawn by the SVG. */
  streets?: { features: StreetFeature[]; attribution: string };
}

export const EMPTY_CONTEXT: MapContext = { boundaries: [], airports: [], areas: [], facilityCells: [] };

export interface MapLayers {
  width: number;
  height: number;
  boundaries: { d: string; region: string; name: string }[];
  /** Airspace areas, largest first so small ones stay on top; `color` the advisory's, if it is one. */
  areas: { d: string; color?: string; name: string; type: string; synthetic: boolean }[];
  cells: {
    x: number;
    y: number;
    w: number;
    h: number;
    ceilingFt: number;
    color?: string;
    label?: string;
    synthetic: boolean;
  }[];
  airports: { x: number; y: number; type: string; name: string; label: string }[];
  /** Hillshade and contours, where a tile covers the view. */
  terrain?: TerrainLayer;
  /** The operator's raster tiles under everything, with their attribution. */
  basemap?: { tiles: BasemapTile[]; attribution: string };
  /** Roads, water and place names from the vector basemap, with its credits. */
  streets?: StreetsLayer & { attribution: string };
  /** The frame's box (west, south, east, north) for the vector basemap to draw, when one is set. */
  vectorBasemap?: { bounds: [number, number, number, number] };
  scale: ScaleBar;
}

/** Cells at least this many pixels wide carry their ceiling as a number. */
const LABELLED_CELL_PX = 30;

/**
 * The context of a frame as SVG geometry: boundaries and airspace simplified to about a pixel and
 * clipped to the view, facility-map cells as squares, airports inside the view as labelled points,
 * and a scale bar. `advisoryColors` maps advisory ids (feature ids, `facility_map:<airport>:<row>:<col>`)
 * to the color the advisory computation gave them, so what applies to the flight stands out.
 */
export function mapLayers(
  frame: Frame,
  context: MapContext,
  advisoryColors: ReadonlyMap<string, string>,
  unit: DistanceUnit,
): MapLayers {
  const boundaries = context.boundaries
    .map((b) => ({ d: polygonPath(frame, b.geometry), region: b.region, name: b.name }))
    .filter((b) => b.d !== "");
  const areas = context.areas
    .map((a) => ({ a, d: polygonPath(frame, a.geometry), size: pathSpan(a.geometry) }))
    .filter((x) => x.d !== "")
    .sort((x, y) => y.size - x.size)
    .map(({ a, d }) => ({
      d,
      name: a.name,
      type: a.type,
      color: advisoryColors.get(a.id),
      synthetic: a.synthetic,
    }));
  const side = frame.scale / CELLS_PER_DEGREE;
  const cells = context.facilityCells.map((c) => {
    const corner = project(frame, [c.col / CELLS_PER_DEGREE, (c.row + 1) / CELLS_PER_DEGREE]);
    const w = Math.round(side * frame.xScale * 10) / 10;
    const h = Math.round(side * 10) / 10;
    return {
      x: corner.x,
      y: corner.y,
      w,
      h,
      ceilingFt: c.ceilingFt,
      color: advisoryColors.get(`facility_map:${c.airportId}:${c.row}:${c.col}`),
      label: w >= LABELLED_CELL_PX ? String(c.ceilingFt) : undefined,
      synthetic: c.synthetic,
    };
  });
  const airports = context.airports
    .map((a) => ({ a, p: project(frame, [a.longitude, a.latitude] as Position) }))
    .filter(({ p }) => inFrame(frame, p))
    .map(({ a, p }) => ({ x: p.x, y: p.y, type: a.type, name: a.name, label: a.code ?? a.name }));
  return {
    width: frame.width,
    height: frame.height,
    boundaries,
    areas,
    cells,
    airports,
    basemap: context.basemap && {
      tiles: basemapTiles(frame, context.basemap),
      attribution: context.basemap.attribution,
    },
    vectorBasemap: context.vectorBasemap
      ? { bounds: [frame.box.minLng, frame.box.minLat, frame.box.maxLng, frame.box.maxLat] }
      : undefined,
    streets: streetsWithCredits(frame, context.streets),
    terrain:
      context.terrain &&
      terrainLayer(frame, context.terrain.plan, context.terrain.carpet, unit, context.terrain.sourceStep),
    scale: scaleBar(frame, unit),
  };
}

function streetsWithCredits(frame: Frame, streets: MapContext["streets"]): MapLayers["streets"] {
  const layer = streets && streetsLayer(frame, streets.features);
  return layer && { ...layer, attribution: streets.attribution };
}

/** Degrees across a shape's box: the order areas are drawn in. */
function pathSpan(geometry: Geometry): number {
  const polygons: Polygon["coordinates"][] =
    geometry.type === "Polygon"
      ? [geometry.coordinates]
      : geometry.type === "MultiPolygon"
        ? geometry.coordinates
        : [];
  let minX = Infinity;
  let maxX = -Infinity;
  let minY = Infinity;
  let maxY = -Infinity;
  for (const polygon of polygons)
    for (const [x, y] of polygon[0] ?? []) {
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
  return Number.isFinite(minX) ? (maxX - minX) * (maxY - minY) : 0;
}
