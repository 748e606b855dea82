import { isoTimeOrNull } from "../../lib/time";
import { bboxOf, type Geometry, type Polygon, type Position, roundCoordinate } from "../geojson";
import { METERS_PER_FOOT } from "../units";
import { cellsTouching } from "./cellCover";
import { type Color, highestColor } from "./colors";
import { cellBox, cellCenter, type GridCellKey } from "./facilityGrid";
import { distanceFromPoint, distanceToArea, distanceToBox, metersBetweenBoxes } from "./geometry";
import type { FacilityMapOverArea } from "./laanc";
import { decodedProperties } from "./records";
import { adviseUnder, type Ruleset } from "./rules";

/** Airspace records as the store reads them, and the advisories (spec 2.5) built from them. */

export interface AirspaceFeature {
  externalId: string;
  type: string;
  name: string;
  geometry: Geometry;
  latitude: number;
  longitude: number;
  radiusM: number;
  properties: Record<string, unknown>;
  floorM: number | null;
  ceilingM: number | null;
  floorCode: string | null;
  ceilingCode: string | null;
  effectiveStart: number | null;
  effectiveEnd: number | null;
  lastUpdated: number | null;
  city: string | null;
  state: string | null;
  country: string | null;
}

export interface FacilityMap {
  airportId: string;
  icao: string | null;
  name: string;
  laanc: boolean;
  lastEdit: number | null;
  /** `synthetic` for generated maps, `faa` for imported ones. */
  source: string;
}

export interface FacilityCell extends GridCellKey {
  ceilingFt: number;
  map: FacilityMap;
}

export const CONTROLLED_AIRSPACE = "controlled_airspace";
/** The most LAANC can authorize, and the height drones may use at all: 400 ft. */
const MANUAL_AUTH_CEILING_M = 121.92;

/** Drone airspace for records without vertical limits: the surface up to 400 ft. */
const DEFAULT_EXTENTS = {
  floor_m: 0,
  ceiling_m: MANUAL_AUTH_CEILING_M,
  floor_code: "AGL",
  ceiling_code: "AGL",
};

export interface Advisory {
  id: string;
  name: string;
  last_updated: string | null;
  latitude: number;
  longitude: number;
  distance: number;
  type: string;
  city: string | null;
  state: string | null;
  country: string;
  properties: Record<string, unknown>;
  color: Color;
}

/** An advisory of the Advisory API: under which rule of which ruleset, and (v2) its vertical extents. */
export interface AreaAdvisory extends Advisory {
  rule_id: number;
  ruleset_id: string;
  requirements: { notice: { phone: string | null; digital: boolean } };
  extents?: { floor_m: number; ceiling_m: number; floor_code: string; ceiling_code: string };
}

/**
 * Whether a feature affects a flight area, and how far it is (meters, 0 when they meet). Boxes
 * farther apart than the feature's radius settle it before any exact distance is measured.
 */
function reachOf(
  feature: AirspaceFeature,
  area: Polygon,
  areaBox = bboxOf(area),
): { meets: boolean; distance: number } {
  if (metersBetweenBoxes(bboxOf(feature.geometry), areaBox) > feature.radiusM)
    return { meets: false, distance: Number.POSITIVE_INFINITY };
  const distance = distanceToArea(feature.geometry, area);
  return { meets: distance <= feature.radiusM, distance };
}

/** Cells grouped by their airport's facility map, for the LAANC decision. */
function facilityMapsOf(cells: FacilityCell[]): FacilityMapOverArea[] {
  const byAirport = new Map<string, FacilityMapOverArea>();
  for (const cell of cells) {
    let map = byAirport.get(cell.map.airportId);
    if (!map) {
      map = {
        airportId: cell.map.airportId,
        icao: cell.map.icao,
        name: cell.map.name,
        laanc: cell.map.laanc,
        ceilingsFt: [],
      };
      byAirport.set(cell.map.airportId, map);
    }
    map.ceilingsFt.push(cell.ceilingFt);
  }
  return [...byAirport.values()];
}

/**
 * What LAANC looks at over a flight area: each airport's facility-map cells under it, and the
 * controlled airspace it meets that no facility map covers.
 */
export function laancOverArea(
  area: Polygon,
  features: AirspaceFeature[],
  cells: FacilityCell[],
): { facilityMaps: FacilityMapOverArea[]; uncoveredAirspace: string[] } {
  const cellsUnderArea = cellsTouching(area, cells);
  const uncoveredAirspace = features
    .filter(
      (f) =>
        f.type === CONTROLLED_AIRSPACE &&
        reachOf(f, area).meets &&
        cellsTouching(f.geometry, cellsUnderArea).length === 0,
    )
    .map((f) => f.name);
  return { facilityMaps: facilityMapsOf(cellsUnderArea), uncoveredAirspace };
}

/** spec 2.5 LAANC properties of controlled airspace, from the cells under the area (lowest governs). */
function laancProperties(cells: FacilityCell[]): Record<string, unknown> {
  if (cells.length === 0) return { laanc: false, authorization: false };
  const lowest = cells.reduce((a, b) => (b.ceilingFt < a.ceilingFt ? b : a));
  const laanc = cells.every((c) => c.map.laanc);
  return {
    laanc,
    authorization: laanc && lowest.ceilingFt > 0,
    ceiling: lowest.ceilingFt,
    airport_id: lowest.map.airportId,
    airport_name: lowest.map.name,
    ...(lowest.map.icao ? { icao: lowest.map.icao } : {}),
    last_edit_date: isoTimeOrNull(lowest.map.lastEdit),
    auto_auth_floor_m_agl: 0,
    auto_auth_ceiling_m_agl: round2(lowest.ceilingFt * METERS_PER_FOOT),
    manual_auth_ceiling_m_agl: MANUAL_AUTH_CEILING_M,
    // The ceilings come from the facility map: `synthetic` when it is generated, whatever the airspace's source.
    facility_map_source: lowest.map.source,
  };
}

export interface AdvisoryQuery {
  area: Polygon;
  features: AirspaceFeature[];
  cells: FacilityCell[];
  rulesets: Ruleset[];
  withExtents: boolean;
}

/**
 * The Advisory API: each feature that meets the area and falls under a rule of a chosen ruleset,
 * listed once under the ruleset that colors it most restrictively; the response color is the highest.
 */
export function adviseArea(query: AdvisoryQuery): { color: Color; advisories: AreaAdvisory[] } {
  const cellsUnderArea = cellsTouching(query.area, query.cells);
  const areaBox = bboxOf(query.area);
  const advisories: AreaAdvisory[] = [];
  for (const feature of query.features) {
    const reach = reachOf(feature, query.area, areaBox);
    if (!reach.meets) continue;
    const properties = withLaanc(feature, cellsUnderArea);
    let chosen: { ruleId: number; color: Color; rulesetId: string } | undefined;
    for (const ruleset of query.rulesets) {
      const advice = adviseUnder(ruleset, { type: feature.type, properties });
      if (advice && (!chosen || highestColor([chosen.color, advice.color]) !== chosen.color))
        chosen = { ...advice, rulesetId: ruleset.id };
    }
    if (!chosen) continue;
    advisories.push({
      ...baseAdvisory(feature, reach.distance, properties, chosen.color),
      rule_id: chosen.ruleId,
      ruleset_id: chosen.rulesetId,
      requirements: {
        notice: { phone: stringOrNull(properties.phone), digital: properties.authorization === true },
      },
      ...(query.withExtents ? { extents: extentsOf(feature) } : {}),
    });
  }
  sortAdvisories(advisories);
  return { color: highestColor(advisories.map((a) => a.color)), advisories };
}

export interface StatusQuery {
  point: Position;
  buffer: number;
  features: AirspaceFeature[];
  cells: FacilityCell[];
  /** The rulesets that color the advisories: the default selection where the point is. */
  rulesets: Ruleset[];
  /** Whether controlled airspace was asked for: only then are facility-map cells listed. */
  includeCells: boolean;
}

/**
 * The older status query: everything within `buffer` meters of the point, controlled airspace split
 * into its facility-map cells; `max_safe_distance` is the distance to the nearest listed advisory.
 */
export function pointStatus(query: StatusQuery): {
  max_safe_distance: number;
  advisory_color: Color;
  advisories: Advisory[];
} {
  const advisories: Advisory[] = [];
  const colorOf = (type: string, properties: Record<string, unknown>): Color => {
    const colors = query.rulesets.flatMap((r) => adviseUnder(r, { type, properties })?.color ?? []);
    return colors.length > 0 ? highestColor(colors) : "yellow";
  };
  const near = query.features
    .map((feature) => ({ feature, distance: distanceFromPoint(feature.geometry, query.point) }))
    .filter(({ feature, distance }) => distance <= query.buffer + feature.radiusM);
  const cellDistance = cellDistances(query.point, query.buffer);
  const cellsNear = query.includeCells ? query.cells.filter((cell) => cellDistance.within(cell)) : [];
  const cellAdvisory = cellAdvisories(colorOf);
  const listedCells = new Set<FacilityCell>();
  for (const { feature, distance } of near) {
    if (feature.type === CONTROLLED_AIRSPACE) {
      const inside = cellsTouching(feature.geometry, cellsNear).filter((c) => !listedCells.has(c));
      if (inside.length > 0) {
        for (const cell of inside) {
          listedCells.add(cell);
          advisories.push(cellAdvisory(cell, feature, cellDistance.of(cell)));
        }
        continue;
      }
    }
    advisories.push(
      baseAdvisory(feature, distance, feature.properties, colorOf(feature.type, feature.properties)),
    );
  }
  for (const cell of cellsNear)
    if (!listedCells.has(cell)) advisories.push(cellAdvisory(cell, undefined, cellDistance.of(cell)));
  sortAdvisories(advisories);
  const nearest = advisories.length > 0 ? Math.min(...advisories.map((a) => a.distance)) : query.buffer;
  return {
    max_safe_distance: nearest,
    advisory_color: highestColor(advisories.map((a) => a.color)),
    advisories,
  };
}

/**
 * Meters from a point to facility-map cells, measured exactly (as distanceFromPoint does) only for
 * cells that are listed or that a flat estimate cannot place inside or outside the buffer.
 */
export function cellDistances(point: Position, buffer: number) {
  const exact = new Map<GridCellKey, number>();
  const of = (cell: GridCellKey): number => entry(exact, cell, () => distanceToBox(cellBox(cell), point));
  const kx = Math.cos((point[1] * Math.PI) / 180);
  const flatEstimate = Math.abs(point[1]) < 70;
  const within = (cell: GridCellKey): boolean => {
    if (flatEstimate) {
      const box = cellBox(cell);
      const dx = Math.max(0, box.minLng - point[0], point[0] - box.maxLng) * kx;
      const dy = Math.max(0, box.minLat - point[1], point[1] - box.maxLat);
      const estimate = Math.hypot(dx, dy) * 111_195;
      if (estimate > buffer * 1.03 + 30) return false;
      if (estimate < buffer * 0.97 - 30) return true;
    }
    return of(cell) <= buffer;
  };
  return { of, within };
}

/**
 * The advisory of one facility-map cell, under its airspace when it lies in one. Cells under the same
 * airspace, on the same map and with the same ceiling have the same properties and color: each pair
 * is made once per answer and shared (a 20 km status lists about 900 cells over a few dozen
 * ceilings; building and coloring each cell's properties was a fifth of its time). Nothing changes
 * an advisory's properties after.
 */
function cellAdvisories(colorOf: (type: string, properties: Record<string, unknown>) => Color) {
  type Look = { properties: Record<string, unknown>; color: Color };
  const looks = new Map<AirspaceFeature | undefined, Map<FacilityMap, Map<number, Look>>>();
  const lookOf = (cell: FacilityCell, airspace: AirspaceFeature | undefined): Look => {
    const byCeiling = entry(
      entry(looks, airspace, () => new Map()),
      cell.map,
      () => new Map(),
    );
    return entry(byCeiling, cell.ceilingFt, () => {
      const properties = {
        ...(airspace ? airspace.properties : {}),
        ...(airspace?.properties.airspace_classification
          ? { airspace_class: String(airspace.properties.airspace_classification).toLowerCase() }
          : {}),
        ...laancProperties([cell]),
        source: cell.map.source,
      };
      // Decoded once per look (records.ts), so that the answer's withDecodedProperties copies no cell.
      return {
        properties: decodedProperties(CONTROLLED_AIRSPACE, properties),
        color: colorOf(CONTROLLED_AIRSPACE, properties),
      };
    });
  };
  return (cell: FacilityCell, airspace: AirspaceFeature | undefined, distance: number): Advisory => {
    const [longitude, latitude] = cellCenter(cell);
    const { properties, color } = lookOf(cell, airspace);
    return {
      id: `facility_map:${cell.map.airportId}:${cell.row}:${cell.col}`,
      name: airspace?.name ?? `${cell.map.name} facility map`,
      last_updated: isoTimeOrNull(cell.map.lastEdit),
      latitude: roundCoordinate(latitude),
      longitude: roundCoordinate(longitude),
      distance: Math.round(distance),
      type: CONTROLLED_AIRSPACE,
      city: airspace?.city ?? null,
      state: airspace?.state ?? null,
      country: airspace?.country ?? "USA",
      properties,
      color,
    };
  };
}

/** The map's value at `key`, made and kept there first if it has none. */
function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

function withLaanc(feature: AirspaceFeature, cellsUnderArea: FacilityCell[]): Record<string, unknown> {
  const timeBound = {
    ...(feature.effectiveStart !== null ? { effective_start: isoTimeOrNull(feature.effectiveStart) } : {}),
    ...(feature.effectiveEnd !== null ? { effective_end: isoTimeOrNull(feature.effectiveEnd) } : {}),
  };
  if (feature.type !== CONTROLLED_AIRSPACE) return { ...feature.properties, ...timeBound };
  return {
    ...feature.properties,
    ...timeBound,
    ...laancProperties(cellsTouching(feature.geometry, cellsUnderArea)),
  };
}

function baseAdvisory(
  feature: AirspaceFeature,
  distance: number,
  properties: Record<string, unknown>,
  color: Color,
): Advisory {
  return {
    id: feature.externalId,
    name: feature.name,
    last_updated: isoTimeOrNull(feature.lastUpdated),
    latitude: feature.latitude,
    longitude: feature.longitude,
    distance: Math.round(distance),
    type: feature.type,
    city: feature.city,
    state: feature.state,
    country: feature.country ?? "",
    properties,
    color,
  };
}

function extentsOf(feature: AirspaceFeature): NonNullable<AreaAdvisory["extents"]> {
  if (feature.floorM === null && feature.ceilingM === null) return { ...DEFAULT_EXTENTS };
  return {
    floor_m: feature.floorM ?? 0,
    ceiling_m: feature.ceilingM ?? DEFAULT_EXTENTS.ceiling_m,
    floor_code: feature.floorCode ?? "AGL",
    ceiling_code: feature.ceilingCode ?? "AGL",
  };
}

/** localeCompare's own order, with its collator made once instead of per comparison. */
const collator = new Intl.Collator();
const compareText = (a: string, b: string) => (a === b ? 0 : collator.compare(a, b));

function sortAdvisories(advisories: Advisory[]) {
  advisories.sort(
    (a, b) => a.distance - b.distance || compareText(a.name, b.name) || compareText(a.id, b.id),
  );
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
