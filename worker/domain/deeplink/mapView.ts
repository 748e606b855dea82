import booleanPointInPolygon from "@turf/boolean-point-in-polygon";
import { bboxOf, type Polygon, type Position } from "../geojson";
import { EMPTY_CONTEXT, type MapContext, type MapLayers, mapLayers } from "../map/layers";
import { type DistanceUnit, type Frame, fitFrame, project } from "../map/view";
import type { FlightGeometry } from "./link";

/** Where the flight starts: a Point itself, a path's first position, a Polygon's vertex centroid when inside it. */
export function takeoffPoint(geometry: FlightGeometry): Position {
  if (geometry.type === "Point") return geometry.coordinates;
  if (geometry.type === "LineString") return geometry.coordinates[0]!;
  const ring = geometry.coordinates[0]!.slice(0, -1);
  const centroid: Position = [
    ring.reduce((sum, p) => sum + p[0], 0) / ring.length,
    ring.reduce((sum, p) => sum + p[1], 0) / ring.length,
  ];
  return booleanPointInPolygon(centroid, geometry) ? centroid : ring[0]!;
}

export interface MapMarker {
  latitude: number;
  longitude: number;
  color: string;
  name: string;
}

/** An SVG drawing of the flight area: paths in a `width`×`height` box, north up, with its context. */
export interface MapView {
  width: number;
  height: number;
  area: string;
  /** The path of a LineString flight, drawn inside its buffered area. */
  route?: string;
  /** The centre of a Point flight. */
  point?: { x: number; y: number };
  markers: (MapMarker & { x: number; y: number; offMap: boolean })[];
  /** Boundaries, airspace, airports and the scale around the area (the shared map's layers). */
  layers: MapLayers;
}

/** Markers beyond the frame stay this far inside its edge, whole circles. */
const EDGE = 10;
/** The map shows at least this much ground, so a small area still has airports and airspace around it. */
export const MIN_SPAN_M = 3000;

/** The frame the page draws: the area padded by a quarter of its size, 4:3, at least MIN_SPAN_M wide. */
export function mapFrame(area: Polygon, width = 640): Frame {
  return fitFrame(bboxOf(area), { width, aspect: 0.75, padding: 0.25, minSpanM: MIN_SPAN_M });
}

export interface MapViewOptions {
  width?: number;
  /** What the embedded data holds around the area; nothing drawn around it without. */
  context?: MapContext;
  unit?: DistanceUnit;
}

/**
 * Fits the area into the shared map's frame (equirectangular, true to shape at flight-area scale)
 * and lays out its context, airspace colored by the advisories given as markers. Advisories beyond
 * the frame sit on its edge, marked `offMap`, so a distant airport does not shrink the area to a dot.
 */
export function mapView(
  area: Polygon,
  geometry: FlightGeometry,
  markers: (MapMarker & { id?: string })[],
  options: MapViewOptions = {},
): MapView {
  const frame = mapFrame(area, options.width);
  const { width, height } = frame;
  const at = (p: Position) => project(frame, p);
  const path = (positions: Position[], close: boolean) =>
    positions.map((p, i) => `${i === 0 ? "M" : "L"}${at(p).x} ${at(p).y}`).join(" ") + (close ? " Z" : "");
  const colors = new Map(markers.flatMap((m) => (m.id ? [[m.id, m.color] as const] : [])));
  return {
    width,
    height,
    area: area.coordinates.map((r) => path(r, true)).join(" "),
    route: geometry.type === "LineString" ? path(geometry.coordinates, false) : undefined,
    point: geometry.type === "Point" ? at(geometry.coordinates) : undefined,
    markers: markers.map((m) => {
      const { x, y } = at([m.longitude, m.latitude]);
      const clampedX = Math.min(Math.max(x, EDGE), width - EDGE);
      const clampedY = Math.min(Math.max(y, EDGE), height - EDGE);
      return { ...m, x: clampedX, y: clampedY, offMap: clampedX !== x || clampedY !== y };
    }),
    layers: mapLayers(frame, options.context ?? EMPTY_CONTEXT, colors, options.unit ?? "metric"),
  };
}
