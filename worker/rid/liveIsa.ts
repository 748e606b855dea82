import { isaExtents, type Volume4D } from "./dss";

/**
 * The Identification Service Area of an ordinary live flight (pure): where its aircraft has
 * reported, whether the registered area still covers that, and the area to register: the flight's
 * planned area (buffer included) and take-off point, every reported position, from the planned
 * ceiling down to the ground, until the flight's end (isaExtents adds the margins).
 */

/** A box of positions; altitudes are EGM96 (MSL) meters, the lowest being the ground under them. */
export interface ReportedBox {
  minLat: number;
  maxLat: number;
  minLng: number;
  maxLng: number;
  minAlt: number;
  maxAlt: number;
}

/** A position record's fields as stored (proto3: absent fields are 0). */
export type PositionFields = Record<string, number>;

/** The box of position records; null when none has a usable latitude and longitude. */
export function positionsBox(positions: PositionFields[]): ReportedBox | null {
  let box: ReportedBox | null = null;
  for (const f of positions) {
    const { latitude: lat, longitude: lng } = f;
    if (!Number.isFinite(lat) || !Number.isFinite(lng)) continue;
    const msl = Number.isFinite(f.altitude_msl) ? f.altitude_msl! : 0;
    const agl = Number.isFinite(f.altitude_agl) ? Math.max(f.altitude_agl!, 0) : 0;
    const one = { minLat: lat!, maxLat: lat!, minLng: lng!, maxLng: lng!, minAlt: msl - agl, maxAlt: msl };
    box = box ? union(box, one) : one;
  }
  return box;
}

export function union(a: ReportedBox, b: ReportedBox): ReportedBox {
  return {
    minLat: Math.min(a.minLat, b.minLat),
    maxLat: Math.max(a.maxLat, b.maxLat),
    minLng: Math.min(a.minLng, b.minLng),
    maxLng: Math.max(a.maxLng, b.maxLng),
    minAlt: Math.min(a.minAlt, b.minAlt),
    maxAlt: Math.max(a.maxAlt, b.maxAlt),
  };
}

/** Whether every position of `box` lies inside `covered` (upper altitudes only: see liveIsaExtents). */
export function covers(covered: ReportedBox, box: ReportedBox): boolean {
  return (
    box.minLat >= covered.minLat &&
    box.maxLat <= covered.maxLat &&
    box.minLng >= covered.minLng &&
    box.maxLng <= covered.maxLng &&
    box.maxAlt <= covered.maxAlt &&
    // The lowest is a ground estimate; an aircraft reporting below the floor is still outside.
    box.minAlt >= covered.minAlt
  );
}

/** The planned part of a live flight's area. */
export interface PlannedArea {
  latitude: number;
  longitude: number;
  minLat: number;
  minLng: number;
  maxLat: number;
  maxLng: number;
  /** Planned ceiling, meters above ground. */
  maxAltitude: number;
  endTime: number;
}

/**
 * The extents to register from `start`, and the box (MSL) they cover. `geoid` is the geoid height
 * (WGS84 − EGM96) at the area: the DSS wants W84 altitudes, positions are stored as MSL.
 */
export function liveIsaExtents(
  reported: ReportedBox,
  flight: PlannedArea,
  start: number,
  geoid: number,
): { extents: Volume4D; covered: ReportedBox } {
  const floor = reported.minAlt;
  const top = Math.max(reported.maxAlt, floor + flight.maxAltitude);
  const points = [
    { lat: reported.minLat, lng: reported.minLng, alt: floor },
    { lat: reported.maxLat, lng: reported.maxLng, alt: top },
    { lat: flight.minLat, lng: flight.minLng, alt: floor },
    { lat: flight.maxLat, lng: flight.maxLng, alt: floor },
    { lat: flight.latitude, lng: flight.longitude, alt: floor },
  ].map((p) => ({ ...p, alt: p.alt + geoid }));
  const extents = isaExtents(points, start, flight.endTime);
  const vertices = extents.volume.outline_polygon.vertices;
  const covered = {
    minLat: Math.min(...vertices.map((v) => v.lat)),
    maxLat: Math.max(...vertices.map((v) => v.lat)),
    minLng: Math.min(...vertices.map((v) => v.lng)),
    maxLng: Math.max(...vertices.map((v) => v.lng)),
    minAlt: extents.volume.altitude_lower.value - geoid,
    maxAlt: extents.volume.altitude_upper.value - geoid,
  };
  return { extents, covered };
}

/** The longest wait between two attempts of DSS work. */
export const ISA_MAX_RETRY_MS = 300_000;

/** Retries of DSS work: 5 s after the first failure, doubling, at most ISA_MAX_RETRY_MS apart. */
export function isaRetryDelayMs(attempts: number): number {
  return Math.min(5_000 * 2 ** Math.max(0, attempts - 1), ISA_MAX_RETRY_MS);
}
