import { CELLS_PER_DEGREE, cellCenter } from "../../worker/domain/airspace/facilityGrid";
import { METERS_PER_DEGREE } from "../../worker/domain/airspace/spatialGrid";
import type { MultiPolygon, Polygon, Position } from "../../worker/domain/geojson";
import { METERS_PER_FOOT } from "../../worker/domain/units";
import type { AirspaceRecord, FacilityMapRecord } from "./dataset";
import type { AirportInput } from "./formats/airports";

/** An airport with its runway centrelines (threshold to threshold) and its country. */
export interface AirportWithRunways extends AirportInput {
  country: string;
  runways: [Position, Position][];
}

/**
 * Synthetic controlled airspace around real airports, drawn the way the FAA structures it: a
 * surface area of a few nautical miles (Class B at large airports, Class D at medium ones) and a
 * UAS facility map of 30″ cells whose ceilings step 0/100/200/300/400 ft away from the runways.
 * In the UK, flight restriction zones: the aerodrome traffic zone plus 1 × 5 km runway protection
 * zones off each threshold. Every record is marked `synthetic`.
 */

const NM = 1852;
const SURFACE_RADIUS_NM = { B: 6, D: 4.3 } as const;
/** Facility-map ceilings (ft) by distance from the nearest runway (NM), the FAA's usual steps. */
const CEILING_STEPS: [number, number][] = [
  [1, 0],
  [1.5, 100],
  [2.5, 200],
  [3.5, 300],
];
const TOP_CEILING_FT = 400;
const CLASS_B_CEILING_FT = 10_000;
const CLASS_D_HEIGHT_FT = 2_500;
const FRZ_HEIGHT_FT = 2_000;
/** UK ATZ: 2 NM radius, 2.5 NM where the longest runway exceeds 1,850 m. */
const ATZ_LONG_RUNWAY_M = 1_850;
const RPZ_LENGTH_M = 5_000;
const RPZ_HALF_WIDTH_M = 500;

export function syntheticControlledAirspace(airports: AirportWithRunways[]): {
  features: AirspaceRecord[];
  facilityMaps: FacilityMapRecord[];
} {
  const features: AirspaceRecord[] = [];
  const facilityMaps: FacilityMapRecord[] = [];
  for (const airport of airports) {
    if (airport.type !== "large_airport" && airport.type !== "medium_airport") continue;
    if (airport.country === "USA") {
      const airspaceClass = airport.type === "large_airport" ? "B" : "D";
      features.push(surfaceArea(airport, airspaceClass));
      facilityMaps.push(facilityMap(airport, SURFACE_RADIUS_NM[airspaceClass] * NM));
    } else {
      features.push(flightRestrictionZone(airport));
    }
  }
  return { features, facilityMaps };
}

function surfaceArea(airport: AirportWithRunways, airspaceClass: "B" | "D"): AirspaceRecord {
  const center: Position = [airport.longitude, airport.latitude];
  const elevationFt = airport.elevationFt ?? 0;
  const ceilingFt = airspaceClass === "B" ? CLASS_B_CEILING_FT : elevationFt + CLASS_D_HEIGHT_FT;
  return {
    sourceId: `${airport.ident}-class-${airspaceClass.toLowerCase()}`,
    type: "controlled_airspace",
    name: `${airport.name.toUpperCase()} CLASS ${airspaceClass}`,
    geometry: circle(center, SURFACE_RADIUS_NM[airspaceClass] * NM),
    properties: {
      type: `class_${airspaceClass.toLowerCase()}`,
      airspace_classification: airspaceClass,
      ...(airport.icao ? { icao: airport.icao } : {}),
      airport_id: airport.localCode ?? airport.ident,
      airport_name: airport.name,
    },
    floorM: 0,
    floorCode: "AGL",
    ceilingM: round2(ceilingFt * METERS_PER_FOOT),
    ceilingCode: "MSL",
    city: airport.city,
    source: "synthetic",
  };
}

/** Cells whose centres lie within the surface area; ceilings by distance from the runways. */
function facilityMap(airport: AirportWithRunways, radiusM: number): FacilityMapRecord {
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
  const dLat = radiusM / METERS_PER_DEGREE;
  const dLng = dLat / Math.cos((airport.latitude * Math.PI) / 180);
  const cells: FacilityMapRecord["cells"] = [];
  for (
    let row = Math.floor((airport.latitude - dLat) * CELLS_PER_DEGREE);
    row <= (airport.latitude + dLat) * CELLS_PER_DEGREE;
    row++
  ) {
    for (
      let col = Math.floor((airport.longitude - dLng) * CELLS_PER_DEGREE);
      col <= (airport.longitude + dLng) * CELLS_PER_DEGREE;
      col++
    ) {
      const center = project(cellCenter({ row, col }));
      if (Math.hypot(center[0], center[1]) > radiusM) continue;
      const nearest = Math.min(...runways.map(([a, b]) => segmentDistance(center, a, b))) / NM;
      const ceilingFt = CEILING_STEPS.find(([limit]) => nearest < limit)?.[1] ?? TOP_CEILING_FT;
      cells.push({ row, col, ceilingFt });
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
