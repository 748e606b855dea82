import { and, asc, eq, gte, inArray, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import {
  airspaceFeatureCells,
  airspaceFeatures,
  facilityMapCells,
  facilityMaps,
  jurisdictionCells,
  jurisdictions,
  rulesets,
} from "../../schema";
import { type AirspaceFeature, CONTROLLED_AIRSPACE, type FacilityCell } from "../domain/airspace/advisories";
import { cellRange } from "../domain/airspace/facilityGrid";
import type { Jurisdiction } from "../domain/airspace/jurisdictions";
import type { Ruleset } from "../domain/airspace/rules";
import { searchRanges } from "../domain/airspace/spatialGrid";
import type { BBox, Geometry } from "../domain/geojson";
import type { Db } from "../env";
import { rulesetsQuery, toRulesets } from "./rulesets";

/**
 * Spatial reads of the airspace area: features, facility-map cells and jurisdictions under a box,
 * each batch one D1 round trip. What applies where is decided in services/airspace.ts.
 */

/** `(level = ? AND x BETWEEN ? AND ? AND y BETWEEN ? AND ?) OR …`: one index range per grid level. */
export function cellsMeeting(
  table: { level: SQLiteColumn; x: SQLiteColumn; y: SQLiteColumn },
  box: BBox,
): SQL {
  return or(
    ...searchRanges(box).map((r) =>
      and(
        eq(table.level, r.level),
        sql`${table.x} BETWEEN ${r.minX} AND ${r.maxX}`,
        sql`${table.y} BETWEEN ${r.minY} AND ${r.maxY}`,
      ),
    ),
  )!;
}

export function boxMeets(
  table: { minLat: SQLiteColumn; maxLat: SQLiteColumn; minLng: SQLiteColumn; maxLng: SQLiteColumn },
  box: BBox,
): SQL {
  return and(
    lte(table.minLat, box.maxLat),
    gte(table.maxLat, box.minLat),
    lte(table.minLng, box.maxLng),
    gte(table.maxLng, box.minLng),
  )!;
}

export interface FeatureFilter {
  /** Only these types; every type when absent. */
  types?: string[];
  /** The time window: time-bound airspace outside it is left out. */
  start: number;
  end: number;
}

/** The columns every airspace feature read selects: advisories, status and records alike. */
export const featureColumns = {
  externalId: airspaceFeatures.externalId,
  type: airspaceFeatures.type,
  name: airspaceFeatures.name,
  geometry: airspaceFeatures.geometry,
  latitude: airspaceFeatures.latitude,
  longitude: airspaceFeatures.longitude,
  radiusM: airspaceFeatures.radiusM,
  properties: airspaceFeatures.properties,
  floorM: airspaceFeatures.floorM,
  ceilingM: airspaceFeatures.ceilingM,
  floorCode: airspaceFeatures.floorCode,
  ceilingCode: airspaceFeatures.ceilingCode,
  effectiveStart: airspaceFeatures.effectiveStart,
  effectiveEnd: airspaceFeatures.effectiveEnd,
  lastUpdated: airspaceFeatures.lastUpdated,
  city: airspaceFeatures.city,
  state: airspaceFeatures.state,
  country: airspaceFeatures.country,
};

/** Airspace features whose (radius-grown) boxes meet `box`, of the filter's types, in effect during its window. */
export function featuresMeeting(db: Db, box: BBox, filter: FeatureFilter): SQL {
  const f = airspaceFeatures;
  const indexed = db
    .selectDistinct({ id: airspaceFeatureCells.featureId })
    .from(airspaceFeatureCells)
    .where(cellsMeeting(airspaceFeatureCells, box));
  return and(
    inArray(f.id, indexed),
    boxMeets(f, box),
    filter.types ? inArray(f.type, filter.types) : undefined,
    or(isNull(f.effectiveStart), lte(f.effectiveStart, filter.end)),
    or(isNull(f.effectiveEnd), gte(f.effectiveEnd, filter.start)),
  )!;
}

/** The features meeting `box` by the filter, with every column a feature read selects. */
export function featuresQuery(db: Db, box: BBox, filter: FeatureFilter) {
  return db
    .select(featureColumns)
    .from(airspaceFeatures)
    .where(featuresMeeting(db, box, filter));
}

/** `row BETWEEN … AND col BETWEEN …`: the facility-map cells on the grid rows and columns under `box`. */
export function cellsUnder(box: BBox): SQL {
  const range = cellRange(box);
  return and(
    sql`${facilityMapCells.row} BETWEEN ${range.minRow} AND ${range.maxRow}`,
    sql`${facilityMapCells.col} BETWEEN ${range.minCol} AND ${range.maxCol}`,
  )!;
}

/**
 * Facility-map cells under `box` and, apart, the maps they belong to: a cell row carries four
 * numbers instead of repeating its airport's names, which a wide area lists thousands of times.
 */
function cellsQueries(db: Db, box: BBox) {
  const cells = db
    .select({
      row: facilityMapCells.row,
      col: facilityMapCells.col,
      ceilingFt: facilityMapCells.ceilingFt,
      mapId: facilityMapCells.facilityMapId,
    })
    .from(facilityMapCells)
    .where(cellsUnder(box));
  const maps = db
    .select({
      id: facilityMaps.id,
      airportId: facilityMaps.airportId,
      icao: facilityMaps.icao,
      name: facilityMaps.name,
      laanc: facilityMaps.laanc,
      lastEdit: facilityMaps.lastEdit,
      source: facilityMaps.source,
    })
    .from(facilityMaps)
    .where(
      inArray(
        facilityMaps.id,
        db
          .selectDistinct({ id: facilityMapCells.facilityMapId })
          .from(facilityMapCells)
          .where(cellsUnder(box)),
      ),
    );
  return [cells, maps] as const;
}

type CellRow = Awaited<ReturnType<typeof cellsQueries>[0]>[number];
type MapRow = Awaited<ReturnType<typeof cellsQueries>[1]>[number];

function toCells(rows: CellRow[], mapRows: MapRow[]): FacilityCell[] {
  const maps = new Map<number, FacilityCell["map"]>();
  for (const { id, ...map } of mapRows) maps.set(id, map);
  const cells: FacilityCell[] = [];
  for (const r of rows) {
    const map = maps.get(r.mapId);
    if (map) cells.push({ row: r.row, col: r.col, ceilingFt: r.ceilingFt, map });
  }
  return cells;
}

/** Jurisdictions whose boxes meet `box`, as an id subquery. */
export function jurisdictionIdsMeeting(db: Db, box: BBox) {
  return db
    .selectDistinct({ id: jurisdictionCells.jurisdictionId })
    .from(jurisdictionCells)
    .where(cellsMeeting(jurisdictionCells, box));
}

/**
 * Jurisdictions whose boxes meet `box`. Parents come without their geometry: they hold whatever
 * their children hold, and a country's coastline is the costliest thing to read and test.
 */
function jurisdictionsQuery(db: Db, box: BBox) {
  return db
    .select({
      id: jurisdictions.id,
      name: jurisdictions.name,
      region: jurisdictions.region,
      country: jurisdictions.country,
      parentId: jurisdictions.parentId,
      geometry: sql<string | null>`CASE WHEN EXISTS (SELECT 1 FROM jurisdictions AS children
        WHERE children.parent_id = jurisdictions.id) THEN NULL ELSE jurisdictions.geometry END`.as(
        "leaf_geometry",
      ),
    })
    .from(jurisdictions)
    .where(and(inArray(jurisdictions.id, jurisdictionIdsMeeting(db, box)), boxMeets(jurisdictions, box)))
    .orderBy(asc(jurisdictions.id));
}

function toJurisdictions(rows: Awaited<ReturnType<typeof jurisdictionsQuery>>): Jurisdiction[] {
  return rows.map((r) => ({
    ...r,
    geometry: r.geometry === null ? null : (JSON.parse(r.geometry) as Geometry),
  }));
}

/**
 * Everything an advisory query needs, in one round trip: the chosen rulesets, the features around
 * the area in effect during the window, and the facility-map cells under it.
 */
export async function advisoryInputs(
  db: Db,
  box: BBox,
  rulesetIds: string[],
  window: { start: number; end: number },
): Promise<{ rulesets: Ruleset[]; features: AirspaceFeature[]; cells: FacilityCell[] }> {
  const [rulesetRows, features, cells, maps] = await db.batch([
    rulesetsQuery(db, inArray(rulesets.id, rulesetIds)),
    featuresQuery(db, box, window),
    ...cellsQueries(db, box),
  ]);
  return { rulesets: toRulesets(rulesetRows), features, cells: toCells(cells, maps) };
}

/** What deciding a point's status reads: candidates and their rulesets at the point, features and cells around it. */
export async function pointInputs(
  db: Db,
  at: BBox,
  around: BBox,
  filter: FeatureFilter,
): Promise<{
  jurisdictions: Jurisdiction[];
  rulesets: Ruleset[];
  features: AirspaceFeature[];
  cells: FacilityCell[];
}> {
  const withCells = !filter.types || filter.types.includes(CONTROLLED_AIRSPACE);
  const common = [
    jurisdictionsQuery(db, at),
    rulesetsQuery(db, inArray(rulesets.jurisdictionId, jurisdictionIdsMeeting(db, at))),
    featuresQuery(db, around, filter),
  ] as const;
  const [candidates, rulesetRows, features, cells, maps] = withCells
    ? await db.batch([...common, ...cellsQueries(db, around)])
    : [...(await db.batch(common)), [], []];
  return {
    jurisdictions: toJurisdictions(candidates),
    rulesets: toRulesets(rulesetRows),
    features,
    cells: toCells(cells, maps),
  };
}

/** Jurisdictions whose boxes meet `box` (candidates: whether their shapes do is the caller's test). */
export async function jurisdictionsAround(db: Db, box: BBox): Promise<Jurisdiction[]> {
  return toJurisdictions(await jurisdictionsQuery(db, box));
}

/** Jurisdictions whose boxes hold a point, and the features of `types` in effect now around it. */
export async function placeInputs(
  db: Db,
  at: BBox,
  around: BBox,
  filter: FeatureFilter,
): Promise<{ jurisdictions: Jurisdiction[]; features: AirspaceFeature[] }> {
  const [candidates, features] = await db.batch([
    jurisdictionsQuery(db, at),
    featuresQuery(db, around, filter),
  ]);
  return { jurisdictions: toJurisdictions(candidates), features };
}

/** The features (by the filter) and facility-map cells under `box`, in one round trip. */
export async function featuresAndCells(
  db: Db,
  box: BBox,
  filter: FeatureFilter,
): Promise<{ features: AirspaceFeature[]; cells: FacilityCell[] }> {
  const [features, cells, maps] = await db.batch([featuresQuery(db, box, filter), ...cellsQueries(db, box)]);
  return { features, cells: toCells(cells, maps) };
}
