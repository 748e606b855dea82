import { and, asc, eq, gte, inArray, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import {
  airspaceFeatureCells,
  airspaceFeatures,
  facilityMapCells,
  facilityMaps,
  jurisdictionCells,
  jurisdictions,
} from "../../schema";
import { type AirspaceFeature, CONTROLLED_AIRSPACE, type FacilityCell } from "../domain/airspace/advisories";
import { cellRange } from "../domain/airspace/facilityGrid";
import { DRONE_HEIGHT_BAND, type HeightBand } from "../domain/airspace/heights";
import type { Jurisdiction } from "../domain/airspace/jurisdictions";
import type { Ruleset } from "../domain/airspace/rules";
import { SEARCH_LEVELS, searchRanges } from "../domain/airspace/spatialGrid";
import type { BBox, Geometry } from "../domain/geojson";
import type { Db } from "../env";
import { TtlCache } from "../lib/ttlCache";
import { type BoundRead, preparedRead, readBatch } from "./prepared";
import { keepRulesetsByIds, keptRulesetsByIds, rulesetsNamed, toRulesets } from "./rulesets";

/**
 * Spatial reads of the airspace area: features, facility-map cells and jurisdictions under a box,
 * each batch one D1 round trip. What applies where is decided in services/airspace.ts. The reads are
 * prepared once per isolate (store/prepared.ts): a box enters them as placeholders, which
 * `boxValues` fills for one box.
 */

const slot = (name: string) => sql.placeholder(name);

/** The box's edges… */
const BOX = {
  minLat: slot("minLat"),
  maxLat: slot("maxLat"),
  minLng: slot("minLng"),
  maxLng: slot("maxLng"),
};
/** …its cell range on each level of the spatial grid… */
const LEVEL_RANGES = SEARCH_LEVELS.map((level) => ({
  level,
  minX: slot(`l${level}minX`),
  maxX: slot(`l${level}maxX`),
  minY: slot(`l${level}minY`),
  maxY: slot(`l${level}maxY`),
}));
/** …and its rows and columns of facility-map cells. */
const CELL_RANGE = {
  minRow: slot("minRow"),
  maxRow: slot("maxRow"),
  minCol: slot("minCol"),
  maxCol: slot("maxCol"),
};

/** The values of the box placeholders (BOX, LEVEL_RANGES, CELL_RANGE) for `box`. */
export function boxValues(box: BBox): Record<string, number> {
  const values: Record<string, number> = { ...box, ...cellRange(box) };
  for (const r of searchRanges(box)) {
    values[`l${r.level}minX`] = r.minX;
    values[`l${r.level}maxX`] = r.maxX;
    values[`l${r.level}minY`] = r.minY;
    values[`l${r.level}maxY`] = r.maxY;
  }
  return values;
}

/** `(level = ? AND x BETWEEN ? AND ? AND y BETWEEN ? AND ?) OR …`: one index range per grid level. */
function cellsMeeting(table: { level: SQLiteColumn; x: SQLiteColumn; y: SQLiteColumn }): SQL {
  return or(
    ...LEVEL_RANGES.map((r) =>
      and(
        eq(table.level, r.level),
        sql`${table.x} BETWEEN ${r.minX} AND ${r.maxX}`,
        sql`${table.y} BETWEEN ${r.minY} AND ${r.maxY}`,
      ),
    ),
  )!;
}

/** Rows whose box meets the box. */
export function boxMeets(table: {
  minLat: SQLiteColumn;
  maxLat: SQLiteColumn;
  minLng: SQLiteColumn;
  maxLng: SQLiteColumn;
}): SQL {
  return and(
    lte(table.minLat, BOX.maxLat),
    gte(table.maxLat, BOX.minLat),
    lte(table.minLng, BOX.maxLng),
    gte(table.maxLng, BOX.minLng),
  )!;
}

export interface FeatureFilter {
  /** Only these types; every type when absent. */
  types?: string[];
  /** The time window: time-bound airspace outside it is left out. */
  start: number;
  end: number;
  /** The flight's heights: records wholly above or below them are left out. Drone heights when absent. */
  band?: HeightBand;
}

const TYPES = slot("types");
const START = slot("start");
const END = slot("end");
const BAND_LOWER = slot("bandLower");
const BAND_UPPER = slot("bandUpper");

/** The values of the filter placeholders (the types as a JSON list, or null for every type). */
export function filterValues(filter: FeatureFilter): Record<string, unknown> {
  const band = filter.band ?? DRONE_HEIGHT_BAND;
  return {
    types: filter.types ? JSON.stringify(filter.types) : null,
    start: filter.start,
    end: filter.end,
    bandLower: band.lowerM,
    bandUpper: band.upperM,
  };
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

/**
 * Airspace features whose (radius-grown) boxes meet the box, of the filter's types, in effect during
 * its window, and meeting its heights (domain/airspace/heights.ts).
 */
export function featuresMeeting(db: Db): SQL {
  const f = airspaceFeatures;
  const indexed = db
    .selectDistinct({ id: airspaceFeatureCells.featureId })
    .from(airspaceFeatureCells)
    .where(cellsMeeting(airspaceFeatureCells));
  return and(
    inArray(f.id, indexed),
    boxMeets(f),
    sql`(${TYPES} IS NULL OR ${f.type} IN (SELECT value FROM json_each(${TYPES})))`,
    or(isNull(f.effectiveStart), lte(f.effectiveStart, END)),
    or(isNull(f.effectiveEnd), gte(f.effectiveEnd, START)),
    or(isNull(f.floorAglM), lte(f.floorAglM, BAND_UPPER)),
    or(isNull(f.ceilingAglM), gte(f.ceilingAglM, BAND_LOWER)),
  )!;
}

const featuresRead = preparedRead((db) =>
  db.select(featureColumns).from(airspaceFeatures).where(featuresMeeting(db)).prepare(),
);
/** The features read for a box's values (boxValues: worked out once for all reads of a batch). */
const features = (db: Db, box: Record<string, number>, filter: FeatureFilter) =>
  featuresRead(db, { ...box, ...filterValues(filter) });

/** `row BETWEEN … AND col BETWEEN …`: the facility-map cells on the grid rows and columns under the box. */
export function cellsUnder(): SQL {
  return and(
    sql`${facilityMapCells.row} BETWEEN ${CELL_RANGE.minRow} AND ${CELL_RANGE.maxRow}`,
    sql`${facilityMapCells.col} BETWEEN ${CELL_RANGE.minCol} AND ${CELL_RANGE.maxCol}`,
  )!;
}

/**
 * Facility-map cells under the box as one JSON list of `[row, col, ceiling_ft, map id]` (a 20 km
 * status reads over a thousand cells: one value crosses from D1 rather than a row object each), and,
 * apart, the maps they belong to, so a cell does not repeat its airport's names.
 */
const cellsRead = preparedRead((db) =>
  db
    .select({
      cells: sql<string>`json_group_array(json_array(${facilityMapCells.row}, ${facilityMapCells.col},
        ${facilityMapCells.ceilingFt}, ${facilityMapCells.facilityMapId}))`.as("cells"),
    })
    .from(facilityMapCells)
    .where(cellsUnder())
    .prepare(),
);
const mapsRead = preparedRead((db) =>
  db
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
        db.selectDistinct({ id: facilityMapCells.facilityMapId }).from(facilityMapCells).where(cellsUnder()),
      ),
    )
    .prepare(),
);
function cellsAndMaps(db: Db, box: Record<string, number>) {
  return [cellsRead(db, box), mapsRead(db, box)] as const;
}

type RowOf<R> = R extends (...args: never[]) => BoundRead<(infer Row)[]> ? Row : never;
type CellRow = RowOf<typeof cellsRead>;
type MapRow = RowOf<typeof mapsRead>;

function toCells(rows: CellRow[], mapRows: MapRow[]): FacilityCell[] {
  const maps = new Map<number, FacilityCell["map"]>();
  for (const { id, ...map } of mapRows) maps.set(id, map);
  const listed = rows[0] ? (JSON.parse(rows[0].cells) as [number, number, number, number][]) : [];
  const cells: FacilityCell[] = [];
  for (const [row, col, ceilingFt, mapId] of listed) {
    const map = maps.get(mapId);
    if (map) cells.push({ row, col, ceilingFt, map });
  }
  return cells;
}

/** Jurisdictions whose boxes meet the box, as an id subquery. */
export function jurisdictionIdsMeeting(db: Db) {
  return db
    .selectDistinct({ id: jurisdictionCells.jurisdictionId })
    .from(jurisdictionCells)
    .where(cellsMeeting(jurisdictionCells));
}

/**
 * Jurisdictions whose boxes meet the box. Parents come without their geometry: they hold whatever
 * their children hold, and a country's coastline is the costliest thing to read and test.
 */
const jurisdictionsRead = preparedRead((db) =>
  db
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
    .where(and(inArray(jurisdictions.id, jurisdictionIdsMeeting(db)), boxMeets(jurisdictions)))
    .orderBy(asc(jurisdictions.id))
    .prepare(),
);
const jurisdictionsUnder = (db: Db, box: BBox) => jurisdictionsRead(db, boxValues(box));

function toJurisdictions(rows: RowOf<typeof jurisdictionsRead>[]): Jurisdiction[] {
  return rows.map((r) => ({
    ...r,
    geometry: r.geometry === null ? null : (JSON.parse(r.geometry) as Geometry),
  }));
}

/**
 * Everything an advisory query needs, in one round trip: the chosen rulesets, the features around
 * the area in effect during the window, and the facility-map cells under it.
 */
export async function advisoryInputs<Also = undefined>(
  db: Db,
  box: BBox,
  rulesetIds: string[],
  window: { start: number; end: number; band?: HeightBand },
  /** One more read of the caller's in the same batch (a plan's pilot): one D1 call, not two. */
  also?: BoundRead<Also>,
): Promise<{
  rulesets: Ruleset[];
  features: AirspaceFeature[];
  cells: FacilityCell[];
  also: Also | undefined;
}> {
  const values = boxValues(box);
  // Rulesets this isolate keeps (store/rulesets.ts, 60 s) are not read again: their rules are the
  // largest part of the batch's answer.
  const kept = rulesetIds.length === 0 ? [] : keptRulesetsByIds(rulesetIds);
  const reads = [features(db, values, window), ...cellsAndMaps(db, values)] as const;
  const rulesetRead = kept ? [] : [rulesetsNamed(db, { ids: JSON.stringify(rulesetIds) })];
  const rows = await readBatch(db, [...reads, ...rulesetRead, ...(also ? [also] : [])]);
  const [featureRows, cells, maps] = rows;
  const rest: unknown[] = rows.slice(3);
  const rulesets =
    kept ?? keepRulesetsByIds(rulesetIds, toRulesets(rest.shift() as Parameters<typeof toRulesets>[0]));
  return {
    rulesets,
    features: featureRows,
    cells: toCells(cells, maps),
    also: also ? (rest.shift() as Also) : undefined,
  };
}

/**
 * What deciding a point's status reads: candidate jurisdictions at the point, features and cells
 * around it (the rulesets of the jurisdictions are rulesetsOfJurisdictions', kept per isolate).
 */
export async function pointInputs(
  db: Db,
  at: BBox,
  around: BBox,
  filter: FeatureFilter,
): Promise<{
  jurisdictions: Jurisdiction[];
  features: AirspaceFeature[];
  cells: FacilityCell[];
}> {
  const withCells = !filter.types || filter.types.includes(CONTROLLED_AIRSPACE);
  const values = boxValues(around);
  const [candidates, [featureRows, cells, maps]] = await Promise.all([
    jurisdictionsAround(db, at),
    withCells
      ? readBatch(db, [features(db, values, filter), ...cellsAndMaps(db, values)])
      : readBatch(db, [features(db, values, filter)]).then(
          ([rows]) => [rows, [], []] as [typeof rows, [], []],
        ),
  ]);
  return { jurisdictions: candidates, features: featureRows, cells: toCells(cells, maps) };
}

/**
 * Jurisdictions change only when an operator loads boundaries: each isolate keeps the candidates of
 * JURISDICTION_CELL_DEGREES cells for JURISDICTIONS_KEPT_MS (a reload shows within 10 minutes), at
 * most MAX_CACHED_JURISDICTION_CELLS cells, so a pilot's reads and writes near one place read none.
 */
const JURISDICTION_CELL_DEGREES = 0.5;
const JURISDICTIONS_KEPT_MS = 10 * 60_000;
const MAX_CACHED_JURISDICTION_CELLS = 512;
/** A box over more cells than this is read as it is, not cell by cell. */
const MAX_JURISDICTION_CELLS_PER_BOX = 4;
const jurisdictionCellCache = new TtlCache<Jurisdiction[]>(MAX_CACHED_JURISDICTION_CELLS);

/** The grid cells a box lies in, each as its own box and key. */
function jurisdictionCellsOf(box: BBox): { key: string; box: BBox }[] {
  const step = JURISDICTION_CELL_DEGREES;
  const cells: { key: string; box: BBox }[] = [];
  for (let y = Math.floor(box.minLat / step); y <= Math.floor(box.maxLat / step); y++)
    for (let x = Math.floor(box.minLng / step); x <= Math.floor(box.maxLng / step); x++)
      cells.push({
        key: `${x},${y}`,
        box: { minLng: x * step, minLat: y * step, maxLng: (x + 1) * step, maxLat: (y + 1) * step },
      });
  return cells;
}

/**
 * Jurisdictions whose boxes meet `box` (candidates: whether their shapes do is the caller's test);
 * near a place an isolate has seen, those of its cells (a superset), without reading D1.
 */
export async function jurisdictionsAround(db: Db, box: BBox, now = Date.now()): Promise<Jurisdiction[]> {
  const cells = jurisdictionCellsOf(box);
  if (cells.length > MAX_JURISDICTION_CELLS_PER_BOX) {
    const [rows] = await readBatch(db, [jurisdictionsUnder(db, box)]);
    return toJurisdictions(rows);
  }
  const missing = cells.filter((cell) => !jurisdictionCellCache.has(cell.key, now));
  const fresh = new Map<string, Jurisdiction[]>();
  if (missing.length > 0) {
    const read = await readBatch(
      db,
      missing.map((cell) => jurisdictionsUnder(db, cell.box)),
    );
    // An empty cell (open sea, or boundaries not loaded yet) is read again next time.
    missing.forEach((cell, i) => {
      const found = toJurisdictions(read[i]!);
      fresh.set(cell.key, found);
      if (found.length > 0) jurisdictionCellCache.set(cell.key, found, JURISDICTIONS_KEPT_MS, now);
    });
  }
  const byId = new Map<number, Jurisdiction>();
  for (const cell of cells)
    for (const j of fresh.get(cell.key) ?? jurisdictionCellCache.get(cell.key, now) ?? []) byId.set(j.id, j);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/** Forgets the kept jurisdictions: after a boundary load in the same isolate (tests). */
export function forgetJurisdictions(): void {
  jurisdictionCellCache.clear();
}

/** Jurisdictions whose boxes hold a point, and the features of `types` in effect now around it. */
export async function placeInputs(
  db: Db,
  at: BBox,
  around: BBox,
  filter: FeatureFilter,
): Promise<{ jurisdictions: Jurisdiction[]; features: AirspaceFeature[] }> {
  const [candidates, [featureRows]] = await Promise.all([
    jurisdictionsAround(db, at),
    readBatch(db, [features(db, boxValues(around), filter)]),
  ]);
  return { jurisdictions: candidates, features: featureRows };
}

/** The features (by the filter) whose reach meets `box`. */
export async function featuresAround(db: Db, box: BBox, filter: FeatureFilter): Promise<AirspaceFeature[]> {
  const [rows] = await readBatch(db, [features(db, boxValues(box), filter)]);
  return rows;
}

/** The features (by the filter) and facility-map cells under `box`, in one round trip. */
export async function featuresAndCells(
  db: Db,
  box: BBox,
  filter: FeatureFilter,
): Promise<{ features: AirspaceFeature[]; cells: FacilityCell[] }> {
  const values = boxValues(box);
  const [featureRows, cells, maps] = await readBatch(db, [
    features(db, values, filter),
    ...cellsAndMaps(db, values),
  ]);
  return { features: featureRows, cells: toCells(cells, maps) };
}
