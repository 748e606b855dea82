import booleanPointInPolygon from "@turf/boolean-point-in-polygon";
import type { Polygon, Position } from "../geojson";
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

/** An SVG drawing of the flight area: paths in a `width`×`height` box, north up. */
export interface MapView {
  width: number;
  height: number;
  area: string;
  /** The path of a LineString flight, drawn inside its buffered area. */
  route?: string;
  /** The centre of a Point flight. */
  point?: { x: number; y: number };
  markers: (MapMarker & { x: number; y: number; offMap: boolean })[];
}

const PADDING = 0.25;

/**
 * Fits the area (padded by a quarter of its size) into the box with an equirectangular projection,
 * which is true to shape at flight-area scale. Advisories beyond the frame sit on its edge,
 * marked `offMap`, so a distant airport does not shrink the area to a dot.
 */
export function mapView(area: Polygon, geometry: FlightGeometry, markers: MapMarker[], width = 640): MapView {
  const ring = area.coordinates[0]!;
  const lngs = ring.map((p) => p[0]);
  const lats = ring.map((p) => p[1]);
  const midLat = (Math.min(...lats) + Math.max(...lats)) / 2;
  const xScale = Math.cos((midLat * Math.PI) / 180);
  const minX = Math.min(...lngs) * xScale;
  const maxX = Math.max(...lngs) * xScale;
  const minY = -Math.max(...lats);
  const maxY = -Math.min(...lats);
  const span = Math.max(maxX - minX, maxY - minY, 1e-6);
  const pad = span * PADDING;
  const frame = { x0: minX - pad, y0: minY - pad, w: maxX - minX + 2 * pad, h: maxY - minY + 2 * pad };
  // Keep the drawing between square and 2:1 so phones and desktops both show it well.
  const aspect = Math.min(Math.max(frame.h / frame.w, 0.5), 1);
  const height = Math.round(width * aspect);
  const scale = Math.min(width / frame.w, height / frame.h);
  const offsetX = (width - frame.w * scale) / 2;
  const offsetY = (height - frame.h * scale) / 2;
  const project = ([lng, lat]: Position) => ({
    x: round(offsetX + (lng * xScale - frame.x0) * scale),
    y: round(offsetY + (-lat - frame.y0) * scale),
  });
  const path = (positions: Position[], close: boolean) =>
    positions.map((p, i) => `${i === 0 ? "M" : "L"}${project(p).x} ${project(p).y}`).join(" ") +
    (close ? " Z" : "");
  return {
    width,
    height,
    area: area.coordinates.map((r) => path(r, true)).join(" "),
    route: geometry.type === "LineString" ? path(geometry.coordinates, false) : undefined,
    point: geometry.type === "Point" ? project(geometry.coordinates) : undefined,
    markers: markers.map((m) => {
      const { x, y } = project([m.longitude, m.latitude]);
      const clampedX = Math.min(Math.max(x, 8), width - 8);
      const clampedY = Math.min(Math.max(y, 8), height - 8);
      return { ...m, x: clampedX, y: clampedY, offMap: clampedX !== x || clampedY !== y };
    }),
  };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
