import { cellCenter, cellRange } from "../../worker/domain/airspace/facilityGrid";
import { containsPoint } from "../../worker/domain/airspace/geometry";
import { heightAboveGround } from "../../worker/domain/airspace/heights";
import { METERS_PER_DEGREE } from "../../worker/domain/airspace/spatialGrid";
import {
  type BBox,
  bboxOf,
  type MultiPolygon,
  type Polygon,
  type Position,
} from "../../worker/domain/geojson";
import { METERS_PER_FOOT } from "../../worker/domain/units";
import type { AirspaceRecord, FacilityMapRecord } from "./dataset";
import type { AirportInput } from "./formats/airports";

/** An airport with its runway centrelines (threshold to threshold) and its country. */
export interface AirportWithRunways extends AirportInput {
  country: string;
  runways: [Position, Position][];
}

/**
 * The embedded default's controlled airspace. In the USA: the FAA's own Class B, C and D shelves
 * (formats/faaClassPrimitives.ts), each given its airport's elevation so MSL floors can be measured
 * from the ground; where a large or medium airport has none of its own and lies in none, a generated
 * Class E surface area (the file holds no Class E; Pine Bluff's is one). Generated UAS facility maps
 * cover the real surface areas and the shelves low enough to matter to drones (and the generated
 * Class E areas), in 30″ cells whose ceilings step 0/100/200/300/400 ft away from the runways and,
 * under a shelf, stay 500 ft below its floor. In the UK, flight restriction zones: the aerodrome traffic zone plus 1 × 5 km runway
 * protection zones off each threshold. Every generated record says `synthetic`.
 */

const NM = 1852;
const CLASS_E_SURFACE_RADIUS_NM = 4.3;
/** A facility map reaches no further than this from its airport: past it, shelves are far above drones. */
const FACILITY_MAP_RADIUS_NM = 10;
/** Facility-map ceilings (ft) by distance from the nearest runway (NM), the FAA's usual steps. */
const CEILING_STEPS: [number, number][] = [
  [1, 0],
  [1.5, 100],
  [2.5, 200],
  [3.5, 300],
];
const TOP_CEILING_FT = 400;
/** Under a shelf, drones stay this far below its floor (and at most TOP_CEILING_FT). */
const SHELF_SEPARATION_FT = 500;
const CLASS_E_HEIGHT_FT = 2_500;
const FRZ_HEIGHT_FT = 2_000;
/** UK ATZ: 2 NM radius, 2.5 NM where the longest runway exceeds 1,850 m. */
const ATZ_LONG_RUNWAY_M = 1_850;
const RPZ_LENGTH_M = 5_000;
const RPZ_HALF_WIDTH_M = 500;

export interface EmbeddedControlledAirspace {
  /** The FAA's shelves, with their airports' elevations and names. */
  faa: AirspaceRecord[];
  /** Generated: Class E surface areas, UK flight restriction zones, and every facility map. */
  synthetic: { features: AirspaceRecord[]; facilityMaps: FacilityMapRecord[] };
}

export function embeddedControlledAirspace(
  airports: AirportWithRunways[],
  faaShelves: AirspaceRecord[],
): EmbeddedControlledAirspace {
  const usAirports = new Map<string, AirportWithRunways>();
  for (const airport of airports) {
    if (airport.country === "USA" && airport.localCode && isAerodrome(airport))
      usAirports.set(airport.localCode, airport);
  }
  const shelvesByAirport = new Map<string, Shelf[]>();
  const faa = faaShelves.map((record) => {
    const ident = record.properties.airport_id;
    const airport = typeof ident === "string" ? usAirports.get(ident) : undefined;
    const withAirport: AirspaceRecord = airport
      ? {
          ...record,
          groundElevationM: airport.elevationFt === null ? null : airport.elevationFt * METERS_PER_FOOT,
          properties: {
            ...record.properties,
            ...(airport.icao ? { icao: airport.icao } : {}),
            airport_name: airport.name,
          },
          city: record.city ?? airport.city,
        }
      : record;
    if (airport && typeof ident === "string") {
      const shelves = shelvesByAirport.get(ident) ?? [];
      shelves.push(shelfOf(withAirport));
      shelvesByAirport.set(ident, shelves);
    }
    return withAirport;
  });
  const surfaces = faa.filter((r) => r.floorM === 0).map((r) => shelfOf(r));

  const features: AirspaceRecord[] = [];
  const facilityMaps: FacilityMapRecord[] = [];
  for (const [ident, shelves] of shelvesByAirport) {
    const map = facilityMap(usAirports.get(ident)!, shelves);
    if (map.cells.length > 0) facilityMaps.push(map);
  }
  for (const airport of airports) {
    if (airport.type !== "large_airport" && airport.type !== "medium_airport") continue;
    if (airport.country !== "USA") {
      features.push(flightRestrictionZone(airport));
      continue;
    }
    const position: Position = [airport.longitude, airport.latitude];
    if (shelvesByAirport.has(airport.localCode ?? "") || surfaces.some((s) => s.contains(position))) continue;
    const surface = classESurfaceArea(airport);
    features.push(surface);
    facilityMaps.push(facilityMap(airport, [shelfOf(surface)]));
  }
  return { faa, synthetic: { features, facilityMaps } };
}

/** A shelf ready for the cell tests: its box, its floor in feet above the ground, its polygon. */
interface Shelf {
  box: BBox;
  floorAglFt: number;
  contains(point: Position): boolean;
}

function shelfOf(record: AirspaceRecord): Shelf {
  const geometry = record.geometry as Polygon | MultiPolygon;
  const box = bboxOf(geometry);
  // Unknown ground (no airport elevation) measures an MSL floor from sea level: the higher ceiling.
  const floorAglM = heightAboveGround(record.floorM, record.floorCode, record.groundElevationM ?? 0) ?? 0;
  return {
    box,
    floorAglFt: floorAglM / METERS_PER_FOOT,
    contains: ([lng, lat]) =>
      lat >= box.minLat &&
      lat <= box.maxLat &&
      lng >= box.minLng &&
      lng <= box.maxLng &&
      containsPoint(geometry, [lng, lat]),
  };
}

function classESurfaceArea(airport: AirportWithRunways): AirspaceRecord {
  const center: Position = [airport.longitude, airport.latitude];
  const elevationFt = airport.elevationFt ?? 0;
  return {
    sourceId: `${airport.ident}-class-e2`,
    type: "controlled_airspace",
    name: `${airport.name.toUpperCase()} CLASS E SURFACE AREA`,
    geometry: circle(center, CLASS_E_SURFACE_RADIUS_NM * NM),
    properties: {
      type: "class_e2",
      airspace_classification: "E",
      ...(airport.icao ? { icao: airport.icao } : {}),
      airport_id: airport.localCode ?? airport.ident,
      airport_name: airport.name,
    },
    floorM: 0,
    floorCode: "AGL",
    ceilingM: round2((elevationFt + CLASS_E_HEIGHT_FT) * METERS_PER_FOOT),
    ceilingCode: "MSL",
    groundElevationM: airport.elevationFt === null ? null : elevationFt * METERS_PER_FOOT,
    city: airport.city,
    source: "synthetic",
  };
}

/**
 * Cells whose centres lie in one of the airport's shelves within FACILITY_MAP_RADIUS_NM of it, where
 * that shelf comes down within reach of drones. A cell in a surface area steps up away from the
 * runways; under a low shelf, it also stays SHELF_SEPARATION_FT below the shelf's floor.
 */
function facilityMap(airport: AirportWithRunways, shelves: Shelf[]): FacilityMapRecord {
  const project = localProjection([airport.longitude, airport.latitude]);
  const runways =
    airport.runways.length > 0
      ? airport.runways.map(([a, b]) => [project(a), project(b)] as const)
      : [
          [
            project([airport.longitude, airport.latitude]),
            project([airport.longitude, airport.latitude]),
          ] as const,
        ];
  const radiusM = FACILITY_MAP_RADIUS_NM * NM;
  const reach = shelves.reduce(
    (box, s) => ({
      minLat: Math.max(Math.min(box.minLat, s.box.minLat), airport.latitude - radiusM / METERS_PER_DEGREE),
      maxLat: Math.min(Math.max(box.maxLat, s.box.maxLat), airport.latitude + radiusM / METERS_PER_DEGREE),
      minLng: Math.min(box.minLng, s.box.minLng),
      maxLng: Math.max(box.maxLng, s.box.maxLng),
    }),
    { minLat: 90, maxLat: -90, minLng: 180, maxLng: -180 } as BBox,
  );
  const cells: FacilityMapRecord["cells"] = [];
  const range = cellRange(reach);
  for (let row = range.minRow; row <= range.maxRow; row++) {
    for (let col = range.minCol; col <= range.maxCol; col++) {
      const position = cellCenter({ row, col });
      const center = project(position);
      if (Math.hypot(center[0], center[1]) > radiusM) continue;
      let lowestFloorFt = Number.POSITIVE_INFINITY;
      for (const shelf of shelves) {
        if (shelf.floorAglFt < lowestFloorFt && shelf.contains(position)) lowestFloorFt = shelf.floorAglFt;
      }
      // Under a shelf this high, drones (400 ft at most) are outside it: no controlled airspace to map.
      if (lowestFloorFt >= TOP_CEILING_FT + SHELF_SEPARATION_FT) continue;
      const nearest = Math.min(...runways.map(([a, b]) => segmentDistance(center, a, b))) / NM;
      const byRunways = CEILING_STEPS.find(([limit]) => nearest < limit)?.[1] ?? TOP_CEILING_FT;
      const underShelf =
        lowestFloorFt <= 0
          ? TOP_CEILING_FT
          : Math.max(0, Math.floor((lowestFloorFt - SHELF_SEPARATION_FT) / 100) * 100);
      cells.push({ row, col, ceilingFt: Math.min(byRunways, underShelf, TOP_CEILING_FT) });
    }
  }
  return {
    airportId: airport.localCode ?? airport.ident,
    icao: airport.icao,
    name: airport.name.toUpperCase(),
    laanc: true,
    lastEdit: null,
    source: "synthetic",
    cells,
  };
}

const isAerodrome = (airport: AirportWithRunways) =>
  airport.type.endsWith("airport") || airport.type === "seaplane_base";

function flightRestrictionZone(airport: AirportWithRunways): AirspaceRecord {
  const project = localProjection([airport.longitude, airport.latitude]);
  const unproject = inverseProjection([airport.longitude, airport.latitude]);
  const longest = airport.runways
    .map(([a, b]) => ({ a: project(a), b: project(b) }))
    .sort((x, y) => length(y) - length(x))[0];
  const centre: Position = longest
    ? unproject([(longest.a[0] + longest.b[0]) / 2, (longest.a[1] + longest.b[1]) / 2])
    : [airport.longitude, airport.latitude];
  const atzRadius = (longest && length(longest) > ATZ_LONG_RUNWAY_M ? 2.5 : 2) * NM;
  const zones: Position[][][] = [circle(centre, atzRadius).coordinates];
  for (const [a, b] of airport.runways.map(([p, q]) => [project(p), project(q)] as const)) {
    zones.push(protectionZone(a, b, unproject), protectionZone(b, a, unproject));
  }
  const geometry: MultiPolygon = { type: "MultiPolygon", coordinates: zones };
  return {
    sourceId: `${airport.ident}-frz`,
    type: "controlled_airspace",
    name: `${airport.name} FRZ`,
    geometry,
    properties: { type: "frz", ...(airport.icao ? { icao: airport.icao } : {}), airport_name: airport.name },
    floorM: 0,
    floorCode: "AGL",
    ceilingM: round2(FRZ_HEIGHT_FT * METERS_PER_FOOT),
    ceilingCode: "AGL",
    city: airport.city,
    source: "synthetic",
  };
}

/** The runway protection zone off threshold `from`: 5 km out along the centreline, 1 km wide. */
function protectionZone(from: Position, to: Position, unproject: (p: Position) => Position): Position[][] {
  const len = Math.hypot(to[0] - from[0], to[1] - from[1]) || 1;
  const ux = (from[0] - to[0]) / len;
  const uy = (from[1] - to[1]) / len;
  const [nx, ny] = [-uy * RPZ_HALF_WIDTH_M, ux * RPZ_HALF_WIDTH_M];
  const far: Position = [from[0] + ux * RPZ_LENGTH_M, from[1] + uy * RPZ_LENGTH_M];
  const corners: Position[] = [
    [from[0] + nx, from[1] + ny],
    [far[0] + nx, far[1] + ny],
    [far[0] - nx, far[1] - ny],
    [from[0] - nx, from[1] - ny],
  ];
  const ring = corners.map(unproject).map(round6);
  return [[...ring, ring[0]!]];
}

function circle(center: Position, radiusM: number, steps = 48): Polygon {
  const unproject = inverseProjection(center);
  const ring: Position[] = [];
  for (let i = 0; i < steps; i++) {
    const angle = (2 * Math.PI * i) / steps;
    ring.push(round6(unproject([Math.sin(angle) * radiusM, Math.cos(angle) * radiusM])));
  }
  ring.push(ring[0]!);
  return { type: "Polygon", coordinates: [ring] };
}

/** Meters east and north of an origin: flat within the few miles an airport's airspace spans. */
function localProjection([lng0, lat0]: Position): (p: Position) => Position {
  const kx = METERS_PER_DEGREE * Math.cos((lat0 * Math.PI) / 180);
  return ([lng, lat]) => [(lng - lng0) * kx, (lat - lat0) * METERS_PER_DEGREE];
}

function inverseProjection([lng0, lat0]: Position): (p: Position) => Position {
  const kx = METERS_PER_DEGREE * Math.cos((lat0 * Math.PI) / 180);
  return ([x, y]) => [lng0 + x / kx, lat0 + y / METERS_PER_DEGREE];
}

function segmentDistance(p: Position, a: Position, b: Position): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const lengthSquared = dx * dx + dy * dy;
  const t =
    lengthSquared === 0
      ? 0
      : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / lengthSquared));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

const length = ({ a, b }: { a: Position; b: Position }) => Math.hypot(b[0] - a[0], b[1] - a[1]);
const round2 = (n: number) => Math.round(n * 100) / 100;
const round6 = ([lng, lat]: Position): Position => [Math.round(lng * 1e6) / 1e6, Math.round(lat * 1e6) / 1e6];
