import { and, eq, inArray } from "drizzle-orm";
import { airspaceFeatures, facilityMapCells, facilityMaps, jurisdictions } from "../../schema";
import type { BBox } from "../domain/geojson";
import type { MapContext } from "../domain/map/layers";
import type { Db } from "../env";
import { boxMeets, cellsUnder, featuresMeeting, jurisdictionIdsMeeting } from "./airspace";

export type { MapContext };

/** A map never draws more facility-map cells than this; a wider view leaves them out. */
export const MAX_FACILITY_CELLS = 1500;
/** Nor more airports: the largest ones first, heliports last. */
const MAX_AIRPORTS = 40;

const POINT_TYPES = ["airport", "heliport"];

/** The map's context inside `box`, with time-bound airspace only when in effect during [start, end]. */
export async function mapContext(db: Db, box: BBox, start: number, end: number): Promise<MapContext> {
  const j = jurisdictions;
  const f = airspaceFeatures;
  const [boundaryRows, featureRows, cellRows] = await Promise.all([
    db
      .select({ name: j.name, region: j.region, geometry: j.geometry })
      .from(j)
      .where(
        and(
          inArray(j.id, jurisdictionIdsMeeting(db, box)),
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
      .where(featuresMeeting(db, box, { start, end })),
    db
      .select({
        row: facilityMapCells.row,
        col: facilityMapCells.col,
        ceilingFt: facilityMapCells.ceilingFt,
        airportId: facilityMaps.airportId,
      })
      .from(facilityMapCells)
      .innerJoin(facilityMaps, eq(facilityMaps.id, facilityMapCells.facilityMapId))
      .where(cellsUnder(box))
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
