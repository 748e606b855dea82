import { and, eq, inArray } from "drizzle-orm";
import { airspaceFeatures, facilityMapCells, facilityMaps, jurisdictions } from "../../schema";
import { SYNTHETIC } from "../domain/airspace/synthetic";
import type { BBox } from "../domain/geojson";
import type { MapContext } from "../domain/map/layers";
import type { Db } from "../env";
import {
  boxMeets,
  boxValues,
  cellsUnder,
  featuresMeeting,
  filterValues,
  jurisdictionIdsMeeting,
} from "./airspace";
import { preparedRead, readBatch } from "./prepared";

export type { MapContext };

/** A map never draws more facility-map cells than this; a wider view leaves them out. */
export const MAX_FACILITY_CELLS = 1500;
/** Nor more airports: the largest ones first, heliports last. */
const MAX_AIRPORTS = 40;

const POINT_TYPES = ["airport", "heliport"];

const boundariesRead = preparedRead((db) =>
  db
    .select({ name: jurisdictions.name, region: jurisdictions.region, geometry: jurisdictions.geometry })
    .from(jurisdictions)
    .where(
      and(
        inArray(jurisdictions.id, jurisdictionIdsMeeting(db)),
        boxMeets(jurisdictions),
        inArray(jurisdictions.region, ["federal", "state", "county"]),
      ),
    )
    .prepare(),
);
const featuresRead = preparedRead((db) => {
  const f = airspaceFeatures;
  return db
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
    .where(featuresMeeting(db))
    .prepare();
});
const cellsRead = preparedRead((db) =>
  db
    .select({
      row: facilityMapCells.row,
      col: facilityMapCells.col,
      ceilingFt: facilityMapCells.ceilingFt,
      airportId: facilityMaps.airportId,
      source: facilityMaps.source,
    })
    .from(facilityMapCells)
    .innerJoin(facilityMaps, eq(facilityMaps.id, facilityMapCells.facilityMapId))
    .where(cellsUnder())
    .limit(MAX_FACILITY_CELLS + 1)
    .prepare(),
);

/** The map's context inside `box`, with time-bound airspace only when in effect during [start, end]. */
export async function mapContext(db: Db, box: BBox, start: number, end: number): Promise<MapContext> {
  const values = boxValues(box);
  const [boundaryRows, featureRows, cellRows] = await readBatch(db, [
    boundariesRead(db, values),
    featuresRead(db, { ...values, ...filterValues({ start, end }) }),
    cellsRead(db, values),
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
      .map((r) => ({
        id: r.id,
        type: r.type,
        name: r.name,
        geometry: r.geometry,
        synthetic: (r.properties as Record<string, unknown>).source === SYNTHETIC,
      })),
    facilityCells:
      cellRows.length > MAX_FACILITY_CELLS
        ? []
        : cellRows.map(({ source, ...cell }) => ({ ...cell, synthetic: source === SYNTHETIC })),
  };
}

/** Large airports before small ones, heliports last, so the cap keeps the ones a pilot knows. */
function rank(r: { type: string; properties: unknown }): number {
  if (r.type === "heliport") return 9;
  const kind = (r.properties as Record<string, unknown>).type;
  return kind === "large_airport" ? 0 : kind === "medium_airport" ? 1 : kind === "small_airport" ? 2 : 3;
}
