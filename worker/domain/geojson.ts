/** GeoJSON positions are [longitude, latitude]. */
export type Position = [number, number];

export interface Point {
  type: "Point";
  coordinates: Position;
}
export interface LineString {
  type: "LineString";
  coordinates: Position[];
}
export interface Polygon {
  type: "Polygon";
  coordinates: Position[][];
}
export interface MultiPolygon {
  type: "MultiPolygon";
  coordinates: Position[][][];
}

export type Geometry = Point | LineString | Polygon | MultiPolygon;

export interface BBox {
  minLat: number;
  minLng: number;
  maxLat: number;
  maxLng: number;
}

/** The rectangle of a bounding box as a closed GeoJSON ring, counter-clockwise from south-west. */
export function boxPolygon(b: BBox): Polygon {
  return {
    type: "Polygon",
    coordinates: [
      [
        [b.minLng, b.minLat],
        [b.maxLng, b.minLat],
        [b.maxLng, b.maxLat],
        [b.minLng, b.maxLat],
        [b.minLng, b.minLat],
      ],
    ],
  };
}

/**
 * The geometry inside the deep-link form `{"geometry": {...}}` or a GeoJSON Feature; any other
 * value as it is. Every reader of a client's geometry accepts these wrappings alike.
 */
export function unwrapGeometry(value: unknown): unknown {
  if (typeof value !== "object" || value === null || !("geometry" in value)) return value;
  const { type, geometry } = value as { type?: unknown; geometry: unknown };
  return type === undefined || type === "Feature" ? geometry : value;
}

/** Degrees to 7 decimal places (about 1 cm): the precision the spec asks of positions. */
export function roundCoordinate(degrees: number): number {
  return Math.round(degrees * 1e7) / 1e7;
}

/** The smallest latitude/longitude box around a geometry. */
export function bboxOf(geometry: Geometry): BBox {
  const box = { minLat: 90, minLng: 180, maxLat: -90, maxLng: -180 };
  for (const [lng, lat] of positionsOf(geometry)) {
    if (lat < box.minLat) box.minLat = lat;
    if (lat > box.maxLat) box.maxLat = lat;
    if (lng < box.minLng) box.minLng = lng;
    if (lng > box.maxLng) box.maxLng = lng;
  }
  return box;
}

/** Every position of a geometry, rings and parts flattened. */
export function positionsOf(geometry: Geometry): Position[] {
  switch (geometry.type) {
    case "Point":
      return [geometry.coordinates];
    case "LineString":
      return geometry.coordinates;
    case "Polygon":
      return geometry.coordinates.flat();
    case "MultiPolygon":
      return geometry.coordinates.flat(2);
  }
}
