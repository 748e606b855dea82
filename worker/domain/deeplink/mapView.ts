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
/** Height over width of every drawing: one shape that fits phones and desktops without letterboxing. */
const ASPECT = 0.75;
/** Markers beyond the frame stay this far inside its edge, whole circles. */
const EDGE = 10;

/**
 * Fits the area (padded by a quarter of its size) into a 4:3 frame with an equirectangular
 * projection, which is true to shape at flight-area scale. Advisories beyond the frame sit on its
 * edge, marked `offMap`, so a distant airport does not shrink the area to a dot.
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
  const pad = Math.max(maxX - minX, maxY - minY, 1e-6) * PADDING;
  let frameWidth = maxX - minX + 2 * pad;
  let frameHeight = maxY - minY + 2 * pad;
  if (frameHeight / frameWidth < ASPECT) frameHeight = frameWidth * ASPECT;
  else frameWidth = frameHeight / ASPECT;
  const x0 = (minX + maxX - frameWidth) / 2;
  const y0 = (minY + maxY - frameHeight) / 2;
  const height = Math.round(width * ASPECT);
  const scale = width / frameWidth;
  const project = ([lng, lat]: Position) => ({
    x: round((lng * xScale - x0) * scale),
    y: round((-lat - y0) * scale),
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
      const clampedX = Math.min(Math.max(x, EDGE), width - EDGE);
      const clampedY = Math.min(Math.max(y, EDGE), height - EDGE);
      return { ...m, x: clampedX, y: clampedY, offMap: clampedX !== x || clampedY !== y };
    }),
  };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
