import type { MultiPolygon, Polygon, Position } from "../../../worker/domain/geojson";
import { METERS_PER_FOOT } from "../../../worker/domain/units";
import type { AirspaceRecord } from "../dataset";
import { count, type Parsed } from "./source";

/**
 * The FAA's Class B, C and D airspace as circles, arcs and lines (data/airspace/
 * faa_class_airspace_primitives.json, its .SOURCE.md says where it comes from): one record per
 * shelf, each a ring of segments with its floor and ceiling. Pure: text in, records out.
 */

export type Lnglat = [number, number];

export interface CircleSegment {
  type: "circle";
  center: Lnglat;
  radius_nm: number;
}

export interface ArcSegment {
  type: "arc";
  center: Lnglat;
  radius_nm: number;
  start: Lnglat;
  end: Lnglat;
  start_bearing_deg: number;
  end_bearing_deg: number;
  direction: "CW" | "CCW";
  sweep_deg: number;
}

export interface LineSegment {
  type: "line";
  from: Lnglat;
  to: Lnglat;
}

export type Segment = CircleSegment | ArcSegment | LineSegment;

/** One shelf as the file writes it (values are strings of feet). */
export interface FaaClassPrimitive {
  id: string;
  name: string;
  class: string;
  local_type: string;
  upper_value: string;
  upper_uom: string;
  upper_code: string;
  lower_value: string;
  lower_uom: string;
  lower_code: string;
  working_hours_code?: string;
  rings: Segment[][];
}

export interface FaaClassPrimitivesFile {
  source: string;
  count: number;
  airspaces: FaaClassPrimitive[];
}

export interface ParsedPrimitives extends Parsed {
  /** The NASR cycle as the file names it, e.g. "FAA NASR 28-day cycle effective 2026-05-14". */
  cycle: string;
  /** The cycle's effective date (ms since the epoch), each record's `lastUpdated`. */
  effectiveDate: number;
}

/** No densified boundary lies further than this from the arc or circle it stands for. */
export const MAX_BOUNDARY_ERROR_M = 50;
/** The chord's sagitta is held to this, leaving the rest of the bound to coordinate rounding. */
const SAGITTA_BUDGET_M = 45;
const NM = 1852;

/** Every shelf as a `controlled_airspace` record; a shelf that yields no polygon is skipped and counted. */
export function parseFaaClassPrimitives(text: string): ParsedPrimitives {
  const file = JSON.parse(text) as Partial<FaaClassPrimitivesFile>;
  if (typeof file.source !== "string" || !Array.isArray(file.airspaces))
    throw new Error("not FAA class airspace primitives: expected {source, airspaces: [...]}");
  const effective = /effective (\d{4}-\d{2}-\d{2})/.exec(file.source)?.[1];
  if (!effective) throw new Error(`no cycle date in the file's source: "${file.source}"`);
  const effectiveDate = Date.parse(`${effective}T00:00:00Z`);
  const features: AirspaceRecord[] = [];
  const skipped = new Map<string, number>();
  const shelvesSeen = new Map<string, number>();
  for (const shelf of file.airspaces) {
    const geometry = shelfGeometry(shelf.rings ?? []);
    const floor = verticalLimit(shelf.lower_value, shelf.lower_code);
    const ceiling = verticalLimit(shelf.upper_value, shelf.upper_code);
    if (!geometry || !floor || !ceiling) {
      count(skipped, geometry ? "unreadable floor or ceiling" : "no ring with an area");
      continue;
    }
    const airspaceClass = shelf.class.toUpperCase();
    // `<Null>`: the FAA gave no ident (Sault Ste Marie's Class D); the name stands in for it.
    const ident = shelf.id && shelf.id !== "<Null>" ? shelf.id : null;
    const key = `${ident ?? slug(shelf.name)}-class-${airspaceClass.toLowerCase()}`;
    const shelfNumber = (shelvesSeen.get(key) ?? 0) + 1;
    shelvesSeen.set(key, shelfNumber);
    features.push({
      sourceId: `${key}-${shelfNumber}`,
      type: "controlled_airspace",
      name: shelf.name,
      geometry,
      properties: {
        type: `class_${airspaceClass.toLowerCase()}`,
        airspace_classification: airspaceClass,
        ...(ident ? { airport_id: ident } : {}),
        floor_ft: floor.feet,
        floor_reference: floor.reference,
        ceiling_ft: ceiling.feet,
        ceiling_reference: ceiling.reference,
        nasr_cycle: effective,
      },
      floorM: floor.meters,
      floorCode: floor.code,
      ceilingM: ceiling.meters,
      ceilingCode: ceiling.code,
      lastUpdated: effectiveDate,
      source: file.source,
    });
  }
  return { features, facilityMaps: [], skipped, cycle: file.source, effectiveDate };
}

/** SFC is 0 ft above ground; MSL and AGL keep their reference. Feet as written, meters for the store. */
export function verticalLimit(
  value: string,
  code: string,
): { feet: number; reference: "SFC" | "MSL" | "AGL"; meters: number; code: "AGL" | "MSL" } | undefined {
  const reference = code?.toUpperCase();
  if (reference === "SFC") return { feet: 0, reference, meters: 0, code: "AGL" };
  const feet = Number(value);
  if ((reference !== "MSL" && reference !== "AGL") || !Number.isFinite(feet) || feet < 0) return undefined;
  return { feet, reference, meters: Math.round(feet * METERS_PER_FOOT * 100) / 100, code: reference };
}

/**
 * A shelf's rings as one geometry: a ring inside another is that ring's hole (Kansas City's Class
 * B shelves), else its own polygon. Outer rings counter-clockwise, holes clockwise (RFC 7946).
 */
export function shelfGeometry(rings: Segment[][]): Polygon | MultiPolygon | undefined {
  const closed = rings.map((ring) => ringPositions(ring)).filter((ring) => ring.length >= 4);
  const outers: Position[][][] = [];
  const holes: Position[][] = [];
  for (const ring of closed) {
    const container = closed.find((other) => other !== ring && pointInRing(ring[0]!, other));
    if (container) holes.push(ring);
    else outers.push([ring]);
  }
  for (const hole of holes) {
    const polygon = outers.find(([outer]) => pointInRing(hole[0]!, outer!));
    polygon?.push(oriented(hole, false));
  }
  for (const polygon of outers) polygon[0] = oriented(polygon[0]!, true);
  if (outers.length === 0) return undefined;
  return outers.length === 1
    ? { type: "Polygon", coordinates: outers[0]! }
    : { type: "MultiPolygon", coordinates: outers };
}

/**
 * One ring's boundary: each segment densified, consecutive segments joined by a straight line
 * where the fit left a gap, and the ring closed.
 */
export function ringPositions(ring: Segment[], maxErrorM = MAX_BOUNDARY_ERROR_M): Position[] {
  const positions: Position[] = [];
  const add = (p: Position) => {
    const rounded = round6(p);
    const last = positions[positions.length - 1];
    if (!last || last[0] !== rounded[0] || last[1] !== rounded[1]) positions.push(rounded);
  };
  for (const segment of ring) {
    if (segment.type === "line") {
      add(segment.from);
      add(segment.to);
    } else if (segment.type === "arc") {
      for (const p of arcPositions(segment, maxErrorM)) add(p);
    } else {
      // A circle inside a longer ring (one fit does it) starts where the ring reached it.
      const previous = positions[positions.length - 1];
      const startBearing = previous ? bearingFrom(segment.center, previous) : 0;
      for (const p of sweepPositions(segment.center, segment.radius_nm * NM, startBearing, 360, maxErrorM))
        add(p);
    }
  }
  const first = positions[0];
  if (first) add(first);
  return positions.length >= 4 ? positions : [];
}

/**
 * An arc from its start point to its end point about its centre, in its direction, through points
 * at its radius on the bearings between its start and end bearings. The file's start and end points
 * are kept as written: the fit puts them up to a few percent off the radius.
 */
export function arcPositions(arc: ArcSegment, maxErrorM = MAX_BOUNDARY_ERROR_M): Position[] {
  const clockwise = arc.direction !== "CCW";
  const turn = clockwise
    ? mod360(arc.end_bearing_deg - arc.start_bearing_deg)
    : mod360(arc.start_bearing_deg - arc.end_bearing_deg);
  // Equal bearings are a whole turn when the file says the arc sweeps most of the circle.
  const whole = turn < 1e-9 && arc.sweep_deg > 180 ? 360 : turn;
  const sweep = clockwise ? whole : -whole;
  const inner = sweepPositions(arc.center, arc.radius_nm * NM, arc.start_bearing_deg, sweep, maxErrorM);
  return [arc.start, ...inner.slice(1, -1), arc.end];
}

/**
 * The largest step (degrees) between points on a circle of this radius whose chords stay within
 * `maxErrorM` of it: a chord over angle θ lies at most r(1 − cos(θ/2)) (its sagitta) inside.
 */
export function stepDegrees(radiusM: number, maxErrorM = MAX_BOUNDARY_ERROR_M): number {
  const sagitta = Math.min(SAGITTA_BUDGET_M, maxErrorM * (SAGITTA_BUDGET_M / MAX_BOUNDARY_ERROR_M));
  if (radiusM <= sagitta) return 90;
  return Math.min(90, (2 * Math.acos(1 - sagitta / radiusM) * 180) / Math.PI);
}

/** Points on a circle from `startBearing` turning `sweep` degrees (positive clockwise), both ends included. */
function sweepPositions(
  center: Lnglat,
  radiusM: number,
  startBearing: number,
  sweep: number,
  maxErrorM: number,
): Position[] {
  // Two steps at least: a lone short arc (Fort Lauderdale's) still bounds a segment of its circle.
  const steps = Math.max(2, Math.ceil(Math.abs(sweep) / stepDegrees(radiusM, maxErrorM)));
  const positions: Position[] = [];
  for (let i = 0; i <= steps; i++) {
    positions.push(destination(center, startBearing + (sweep * i) / steps, radiusM));
  }
  return positions;
}

// WGS84, for Vincenty's direct solution: the FAA's radii are distances on the ellipsoid.
const A = 6378137;
const F = 1 / 298.257223563;
const B = A * (1 - F);

/** The point `distanceM` from `origin` on the initial bearing (degrees), on the WGS84 ellipsoid. */
export function destination([lng, lat]: Lnglat, bearingDeg: number, distanceM: number): Position {
  const alpha1 = (bearingDeg * Math.PI) / 180;
  const sinAlpha1 = Math.sin(alpha1);
  const cosAlpha1 = Math.cos(alpha1);
  const tanU1 = (1 - F) * Math.tan((lat * Math.PI) / 180);
  const cosU1 = 1 / Math.sqrt(1 + tanU1 * tanU1);
  const sinU1 = tanU1 * cosU1;
  const sigma1 = Math.atan2(tanU1, cosAlpha1);
  const sinAlpha = cosU1 * sinAlpha1;
  const cosSqAlpha = 1 - sinAlpha * sinAlpha;
  const uSq = (cosSqAlpha * (A * A - B * B)) / (B * B);
  const bigA = 1 + (uSq / 16384) * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)));
  const bigB = (uSq / 1024) * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)));
  let sigma = distanceM / (B * bigA);
  let cos2SigmaM = 0;
  let sinSigma = 0;
  let cosSigma = 1;
  for (let i = 0; i < 100; i++) {
    cos2SigmaM = Math.cos(2 * sigma1 + sigma);
    sinSigma = Math.sin(sigma);
    cosSigma = Math.cos(sigma);
    const deltaSigma =
      bigB *
      sinSigma *
      (cos2SigmaM +
        (bigB / 4) *
          (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) -
            (bigB / 6) * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)));
    const next = distanceM / (B * bigA) + deltaSigma;
    const done = Math.abs(next - sigma) < 1e-12;
    sigma = next;
    if (done) break;
  }
  sinSigma = Math.sin(sigma);
  cosSigma = Math.cos(sigma);
  cos2SigmaM = Math.cos(2 * sigma1 + sigma);
  const tmp = sinU1 * sinSigma - cosU1 * cosSigma * cosAlpha1;
  const lat2 = Math.atan2(
    sinU1 * cosSigma + cosU1 * sinSigma * cosAlpha1,
    (1 - F) * Math.sqrt(sinAlpha * sinAlpha + tmp * tmp),
  );
  const lambda = Math.atan2(sinSigma * sinAlpha1, cosU1 * cosSigma - sinU1 * sinSigma * cosAlpha1);
  const c = (F / 16) * cosSqAlpha * (4 + F * (4 - 3 * cosSqAlpha));
  const l =
    lambda -
    (1 - c) *
      F *
      sinAlpha *
      (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)));
  return [lng + (l * 180) / Math.PI, (lat2 * 180) / Math.PI];
}

/** The bearing (degrees) from `center` to `p`, flat over the few miles of an airport's airspace. */
function bearingFrom([lng0, lat0]: Lnglat, [lng, lat]: Position): number {
  const east = (lng - lng0) * Math.cos((lat0 * Math.PI) / 180);
  return mod360((Math.atan2(east, lat - lat0) * 180) / Math.PI);
}

function pointInRing([x, y]: Position, ring: Position[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** The ring turned counter-clockwise (or clockwise), by the sign of its area. */
function oriented(ring: Position[], counterClockwise: boolean): Position[] {
  let twiceArea = 0;
  for (let i = 0; i < ring.length - 1; i++) {
    twiceArea += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1];
  }
  return twiceArea > 0 === counterClockwise ? ring : [...ring].reverse();
}

const mod360 = (degrees: number) => ((degrees % 360) + 360) % 360;
const round6 = ([lng, lat]: Position): Position => [Math.round(lng * 1e6) / 1e6, Math.round(lat * 1e6) / 1e6];
const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
