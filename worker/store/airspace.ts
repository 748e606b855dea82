import booleanIntersects from "@turf/boolean-intersects";
import { and, asc, eq, gte, inArray, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type * as GeoJSON from "geojson";
import {
  airspaceFeatureCells,
  airspaceFeatures,
  facilityMapCells,
  facilityMaps,
  flightFeatures,
  jurisdictionCells,
  jurisdictions,
  rules,
  rulesets,
} from "../../schema";
import {
  type AirspaceFeature,
  CONTROLLED_AIRSPACE,
  type FacilityCell,
  laancOverArea,
} from "../domain/airspace/advisories";
import { cellRange } from "../domain/airspace/facilityGrid";
import { containsPoint, pointDistance } from "../domain/airspace/geometry";
import {
  holdingJurisdictions,
  type Jurisdiction,
  type Place,
  placeOf,
} from "../domain/airspace/jurisdictions";
import { type Authorization, decideLaanc } from "../domain/airspace/laanc";
import {
  type Condition,
  defaultSelection,
  type FlightFeature,
  LAANC_TYPE,
  type Ruleset,
  type Trigger,
} from "../domain/airspace/rules";
import { expandBox, searchRanges } from "../domain/airspace/spatialGrid";
import {
  type BBox,
  bboxOf,
  type Geometry,
  type MultiPolygon,
  type Point,
  type Polygon,
  type Position,
} from "../domain/geojson";
import { polygonsMeet } from "../domain/geometry/polygonsMeet";
import type { Db } from "../env";

/** Spatial and rule queries of the airspace area. */

/** `(level = ? AND x BETWEEN ? AND ? AND y BETWEEN ? AND ?) OR …`: one index range per grid level. */
function cellsMeeting(table: { level: SQLiteColumn; x: SQLiteColumn; y: SQLiteColumn }, box: BBox): SQL {
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

function boxMeets(
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

/** Airspace features whose (radius-grown) boxes meet `box` and that are in effect during the window. */
function featuresQuery(db: Db, box: BBox, filter: FeatureFilter) {
  const f = airspaceFeatures;
  const indexed = db
    .selectDistinct({ id: airspaceFeatureCells.featureId })
    .from(airspaceFeatureCells)
    .where(cellsMeeting(airspaceFeatureCells, box));
  return db
    .select(featureColumns)
    .from(f)
    .where(
      and(
        inArray(f.id, indexed),
        boxMeets(f, box),
        filter.types ? inArray(f.type, filter.types) : undefined,
        or(isNull(f.effectiveStart), lte(f.effectiveStart, filter.end)),
        or(isNull(f.effectiveEnd), gte(f.effectiveEnd, filter.start)),
      ),
    );
}

/** `row BETWEEN … AND col BETWEEN …`: the facility-map cells on the grid rows and columns under `box`. */
function cellsUnder(box: BBox): SQL {
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
function jurisdictionIdsMeeting(db: Db, box: BBox) {
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

type RulesetFilter = { ids: string[] } | { jurisdictionIds: number[] } | { jurisdictionsMeeting: BBox };

function rulesetsQuery(db: Db, where: RulesetFilter) {
  const filter =
    "ids" in where
      ? inArray(rulesets.id, where.ids)
      : "jurisdictionIds" in where
        ? inArray(rulesets.jurisdictionId, where.jurisdictionIds)
        : inArray(rulesets.jurisdictionId, jurisdictionIdsMeeting(db, where.jurisdictionsMeeting));
  // Aliased columns: rows of a D1 batch come back as objects, where same-named columns would collide.
  return db
    .select({
      id: rulesets.id,
      name: rulesets.name,
      shortName: rulesets.shortName,
      description: rulesets.description,
      selectionType: rulesets.selectionType,
      isDefault: rulesets.isDefault,
      airspaceTypes: rulesets.airspaceTypes,
      jurisdictionId: sql<number>`${jurisdictions.id}`.as("jurisdiction_id"),
      jurisdictionName: sql<string>`${jurisdictions.name}`.as("jurisdiction_name"),
      jurisdictionRegion: sql<string>`${jurisdictions.region}`.as("jurisdiction_region"),
      ruleId: sql<number | null>`${rules.id}`.as("rule_id"),
      ruleShortText: sql<string>`${rules.shortText}`.as("rule_short_text"),
      ruleDescription: sql<string>`${rules.description}`.as("rule_description"),
      ruleDisplayOrder: sql<number | null>`${rules.displayOrder}`.as("rule_display_order"),
      ruleFlightFeatures: sql<string>`${rules.flightFeatures}`.as("rule_flight_features"),
      ruleCondition: sql<string | null>`${rules.condition}`.as("rule_condition"),
      ruleTriggers: sql<string>`${rules.triggers}`.as("rule_triggers"),
    })
    .from(rulesets)
    .innerJoin(jurisdictions, eq(jurisdictions.id, rulesets.jurisdictionId))
    .leftJoin(rules, eq(rules.rulesetId, rulesets.id))
    .where(filter)
    .orderBy(asc(rulesets.displayOrder), asc(rules.displayOrder), asc(rules.id));
}

function toRulesets(rows: Awaited<ReturnType<typeof rulesetsQuery>>): Ruleset[] {
  const byId = new Map<string, Ruleset>();
  for (const row of rows) {
    let entry = byId.get(row.id);
    if (!entry) {
      entry = {
        id: row.id,
        name: row.name,
        short_name: row.shortName,
        description: row.description,
        selection_type: row.selectionType,
        default: row.isDefault,
        jurisdiction: { id: row.jurisdictionId, name: row.jurisdictionName, region: row.jurisdictionRegion },
        airspace_types: row.airspaceTypes,
        rules: [],
      };
      byId.set(row.id, entry);
    }
    if (row.ruleId !== null) {
      entry.rules.push({
        id: row.ruleId,
        short_text: row.ruleShortText,
        description: row.ruleDescription,
        display_order: row.ruleDisplayOrder,
        flight_features: JSON.parse(row.ruleFlightFeatures) as string[],
        condition: row.ruleCondition === null ? null : (JSON.parse(row.ruleCondition) as Condition),
        triggers: JSON.parse(row.ruleTriggers) as Trigger[],
      });
    }
  }
  return [...byId.values()];
}

/** Rulesets with their rules and jurisdiction; by id, or of the given jurisdictions. */
async function loadRulesets(
  db: Db,
  where: { ids: string[] } | { jurisdictionIds: number[] },
): Promise<Ruleset[]> {
  if (("ids" in where ? where.ids : where.jurisdictionIds).length === 0) return [];
  return toRulesets(await rulesetsQuery(db, where));
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
    rulesetsQuery(db, { ids: rulesetIds }),
    featuresQuery(db, box, window),
    ...cellsQueries(db, box),
  ]);
  return { rulesets: toRulesets(rulesetRows), features, cells: toCells(cells, maps) };
}

/** The ids among `ids` that name no ruleset (plans and advisory queries refuse them). */
export async function unknownRulesetIds(db: Db, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const known = await db.select({ id: rulesets.id }).from(rulesets).where(inArray(rulesets.id, ids));
  const knownIds = new Set(known.map((r) => r.id));
  return [...new Set(ids)].filter((id) => !knownIds.has(id));
}

export async function flightFeatureDefinitions(db: Db, names: string[]): Promise<Map<string, FlightFeature>> {
  if (names.length === 0) return new Map();
  const rows = await db.select().from(flightFeatures).where(inArray(flightFeatures.name, names));
  return new Map(
    rows.map((r) => [
      r.name,
      {
        flight_feature: r.name,
        description: r.description,
        input_type: r.inputType,
        measurement_type: r.measurementType,
        measurement_unit: r.measurementUnit,
      },
    ]),
  );
}

/** The rulesets that apply to an area or point: those of every jurisdiction it meets. */
export async function rulesetsFor(db: Db, geometry: Polygon | Point): Promise<Ruleset[]> {
  const candidates = toJurisdictions(await jurisdictionsQuery(db, bboxOf(geometry)));
  // polygonsMeet, not turf's n·m booleanIntersects: a plan area may have 10,000 positions.
  const meeting = holdingJurisdictions(candidates, (g) =>
    geometry.type === "Polygon" && (g.type === "Polygon" || g.type === "MultiPolygon")
      ? polygonsMeet(geometry, g)
      : booleanIntersects(geometry as GeoJSON.Geometry, g as GeoJSON.Geometry),
  );
  return loadRulesets(db, { jurisdictionIds: meeting.map((j) => j.id) });
}

/**
 * Everything the status query needs, in one round trip: the features and cells within `buffer` of
 * the point, and the default selection of the rulesets that apply there (which color the advisories).
 */
export async function statusInputs(
  db: Db,
  point: Position,
  buffer: number,
  filter: FeatureFilter,
): Promise<{ rulesets: Ruleset[]; features: AirspaceFeature[]; cells: FacilityCell[] }> {
  const at = { minLat: point[1], maxLat: point[1], minLng: point[0], maxLng: point[0] };
  const around = expandBox(at, buffer);
  const withCells = !filter.types || filter.types.includes(CONTROLLED_AIRSPACE);
  const common = [
    jurisdictionsQuery(db, at),
    rulesetsQuery(db, { jurisdictionsMeeting: at }),
    featuresQuery(db, around, filter),
  ] as const;
  const [candidates, rulesetRows, features, cells, maps] = withCells
    ? await db.batch([...common, ...cellsQueries(db, around)])
    : [...(await db.batch(common)), [], []];
  const here = new Set(
    holdingJurisdictions(toJurisdictions(candidates), (g) => isArea(g) && containsPoint(g, point)).map(
      (j) => j.id,
    ),
  );
  const applicable = toRulesets(rulesetRows).filter((r) => here.has(r.jurisdiction.id));
  return { rulesets: defaultSelection(applicable), features, cells: toCells(cells, maps) };
}

/** How far from a point an airport's town still names the place, when no city boundary is loaded. */
const TOWN_RADIUS_M = 5_000;

/**
 * `{city, state, country}` of a point, for flights: state and country from the boundaries, the city
 * from a city boundary or else the town of the nearest airport or heliport within 5 km.
 */
export async function locatePoint(db: Db, latitude: number, longitude: number): Promise<Place> {
  const point: Position = [longitude, latitude];
  const box = { minLat: latitude, maxLat: latitude, minLng: longitude, maxLng: longitude };
  const now = Date.now();
  const [candidates, airports] = await db.batch([
    jurisdictionsQuery(db, box),
    featuresQuery(db, expandBox(box, TOWN_RADIUS_M), {
      types: ["airport", "heliport"],
      start: now,
      end: now,
    }),
  ]);
  const place = placeOf(point, toJurisdictions(candidates));
  if (place.city) return place;
  const towns = airports
    .filter((a) => a.city)
    .map((a) => ({ city: a.city, distance: pointDistance(point, [a.longitude, a.latitude]) }))
    .filter((a) => a.distance <= TOWN_RADIUS_M)
    .sort((a, b) => a.distance - b.distance);
  return { ...place, city: towns[0]?.city ?? null };
}

export interface PlanForAuthorization {
  area: Polygon;
  maxAltitudeAgl: number;
  /** The plan's ruleset ids; when empty, the default selection where the plan is. */
  rulesets: string[];
  startTime: number;
  endTime: number;
}

/** The LAANC authorizations (spec 2.6) a plan needs, decided by CONTRACT §7. */
export async function authorizationsForPlan(
  db: Db,
  plan: PlanForAuthorization,
  now = Date.now(),
): Promise<Authorization[]> {
  const chosen =
    plan.rulesets.length > 0
      ? await loadRulesets(db, { ids: plan.rulesets })
      : defaultSelection(await rulesetsFor(db, plan.area));
  if (!chosen.some((r) => r.airspace_types.includes(LAANC_TYPE))) return [];
  const box = bboxOf(plan.area);
  const window = { types: [CONTROLLED_AIRSPACE], start: plan.startTime, end: plan.endTime };
  const [features, cells, maps] = await db.batch([featuresQuery(db, box, window), ...cellsQueries(db, box)]);
  return decideLaanc({
    maxAltitudeAgl: plan.maxAltitudeAgl,
    startTime: plan.startTime,
    now,
    rulesets: chosen,
    ...laancOverArea(plan.area, features, toCells(cells, maps)),
  });
}

const isArea = (g: Geometry): g is Polygon | MultiPolygon =>
  g.type === "Polygon" || g.type === "MultiPolygon";
