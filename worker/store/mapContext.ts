import { and, eq, gte, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import {
  airspaceFeatureCells,
  airspaceFeatures,
  facilityMapCells,
  facilityMaps,
  jurisdictionCells,
  jurisdictions,
} from "../../schema";
import { cellRange } from "../domain/airspace/facilityGrid";
import { searchRanges } from "../domain/airspace/spatialGrid";
import type { BBox } from "../domain/geojson";
import type { MapContext } from "../domain/map/layers";
import type { Db } from "../env";

export type { MapContext };

/** A map never draws more facility-map cells than this; a wider view leaves them out. */
export const MAX_FACILITY_CELLS = 1500;
/** Nor more airports: the largest ones first, heliports last. */
const MAX_AIRPORTS = 40;

const POINT_TYPES = ["airport", "heliport"];

function boxMeets(
  t: { minLat: SQLiteColumn; maxLat: SQLiteColumn; minLng: SQLiteColumn; maxLng: SQLiteColumn },
  box: BBox,
) {
  return and(
    lte(t.minLat, box.maxLat),
    gte(t.maxLat, box.minLat),
    lte(t.minLng, box.maxLng),
    gte(t.maxLng, box.minLng),
  );
}

function cellsMeeting(t: { level: SQLiteColumn; x: SQLiteColumn; y: SQLiteColumn }, box: BBox) {
  return or(
    ...searchRanges(box).map((r) =>
      and(
        eq(t.level, r.level),
        sql`${t.x} BETWEEN ${r.minX} AND ${r.maxX}`,
        sql`${t.y} BETWEEN ${r.minY} AND ${r.maxY}`,
      ),
    ),
  );
}

/** The map's context inside `box`, with time-bound airspace only when in effect during [start, end]. */
export async function mapContext(db: Db, box: BBox, start: number, end: number): Promise<MapContext> {
  const j = jurisdictions;
  const f = airspaceFeatures;
  const range = cellRange(box);
  const [boundaryRows, featureRows, cellRows] = await Promise.all([
    db
      .select({ name: j.name, region: j.region, geometry: j.geometry })
      .from(j)
      .where(
        and(
          inArray(
            j.id,
            db
              .selectDistinct({ id: jurisdictionCells.jurisdictionId })
              .from(jurisdictionCells)
              .where(cellsMeeting(jurisdictionCells, box)),
          ),
          boxMeets(j, box),
          inArray(j.region, ["federal", "state", "county"]),
        ),
      ),
    db
      .select({
        id: f.externalId,
        type: f.type,
        name: f.name,
        geometry: f.geometry,
        latitude: f.latitude,
        longitude: f.longitude,
        properties: f.properties,
      })
      .from(f)
      .where(
        and(
          inArray(
            f.id,
            db
              .selectDistinct({ id: airspaceFeatureCells.featureId })
              .from(airspaceFeatureCells)
              .where(cellsMeeting(airspaceFeatureCells, box)),
          ),
          boxMeets(f, box),
          or(isNull(f.effectiveStart), lte(f.effectiveStart, end)),
          or(isNull(f.effectiveEnd), gte(f.effectiveEnd, start)),
        ),
      ),
    db
      .select({
        row: facilityMapCells.row,
        col: facilityMapCells.col,
        ceilingFt: facilityMapCells.ceilingFt,
        airportId: facilityMaps.airportId,
      })
      .from(facilityMapCells)
      .innerJoin(facilityMaps, eq(facilityMaps.id, facilityMapCells.facilityMapId))
      .where(
        and(
          sql`${facilityMapCells.row} BETWEEN ${range.minRow} AND ${range.maxRow}`,
          sql`${facilityMapCells.col} BETWEEN ${range.minCol} AND ${range.maxCol}`,
        ),
      )
      .limit(MAX_FACILITY_CELLS + 1),
  ]);
  // A state's outline already draws the coast and the border; the country's is only for places without states.
  const hasStates = boundaryRows.some((b) => b.region !== "federal");
  const airports = featureRows
    .filter((r) => POINT_TYPES.includes(r.type))
    .sort((a, b) => rank(a) - rank(b))
    .slice(0, MAX_AIRPORTS)
    .map((r) => {
      const p = r.properties as Record<string, unknown>;
      const code = [p.iata, p.faa, p.icao, p.ident].find(
        (c): c is string => typeof c === "string" && c !== "",
      );
      return {
        id: r.id,
        type: r.type as "airport" | "heliport",
        name: r.name,
        ...(code ? { code } : {}),
        latitude: r.latitude,
        longitude: r.longitude,
      };
    });
  return {
    boundaries: boundaryRows.filter((b) => !hasStates || b.region !== "federal"),
    airports,
    areas: featureRows
      .filter((r) => r.geometry.type === "Polygon" || r.geometry.type === "MultiPolygon")
      .map((r) => ({ id: r.id, type: r.type, name: r.name, geometry: r.geometry })),
    facilityCells: cellRows.length > MAX_FACILITY_CELLS ? [] : cellRows,
  };
}

/** Large airports before small ones, heliports last, so the cap keeps the ones a pilot knows. */
function rank(r: { type: string; properties: unknown }): number {
  if (r.type === "heliport") return 9;
  const kind = (r.properties as Record<string, unknown>).type;
  return kind === "large_airport" ? 0 : kind === "medium_airport" ? 1 : kind === "small_airport" ? 2 : 3;
}
