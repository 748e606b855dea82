import { pointStatus } from "../domain/airspace/advisories";
import { bboxOf } from "../domain/geojson";
import { type MapContext, mapLayers } from "../domain/map/layers";
import { fitFrame, project } from "../domain/map/view";
import type { Bindings, Db } from "../env";
import { activePublicFlights, type FlightRow } from "../store/flights";
import { mapContext } from "../store/mapContext";
import { statusInputs } from "./airspace";
import { basemapConfig, mapStreets } from "./basemap";
import type { ElevationSource } from "./elevation";
import { flightBriefing } from "./evaluation";
import { mapBasemap, mapImageSources, mapTerrain } from "./mapTerrain";
import { systemStatus } from "./systemStatus";

/** What the front page (`/`) says: who runs this copy, how it is, and the public flights under way. */
export async function frontPage(env: Bindings, db: Db, host: string) {
  const now = Date.now();
  const [status, flights] = await Promise.all([systemStatus(db, env), activePublicFlights(db, now, 20)]);
  return { operator: env.OPERATOR_NAME?.trim() || host, status, flights };
}

/** The airspace map's view: its center and how many kilometers it spans across. */
export interface MapView {
  latitude: number;
  longitude: number;
  spanKm: number;
}

export const MAP_SPAN_KM = { min: 0.5, max: 16, initial: 4 } as const;

/**
 * The airspace map at `view`: the shared map (ground, airspace in its advisory colors, facility-map
 * ceilings, airports) drawn for the next hour, colored as a flight there would be told.
 */
export async function airspaceMapAt(env: Bindings, db: Db, source: ElevationSource, view: MapView) {
  const halfLat = view.spanKm / 2 / 111.32 / 1.4;
  const halfLng = view.spanKm / 2 / (111.32 * Math.cos((view.latitude * Math.PI) / 180));
  const box = {
    minLat: view.latitude - halfLat,
    maxLat: view.latitude + halfLat,
    minLng: view.longitude - halfLng,
    maxLng: view.longitude + halfLng,
  };
  const frame = fitFrame(box, { width: 900, aspect: 0.7, padding: 0, minSpanM: 400 });
  const now = Date.now();
  const window = { start: now, end: now + 3_600_000 };
  const center: [number, number] = [view.longitude, view.latitude];
  const buffer = (view.spanKm * 1000) / 2;
  const [context, ground, inputs, streets] = await Promise.all([
    mapContext(db, frame.box, window.start, window.end),
    mapTerrain(source.bucket, frame, source.waitUntil),
    statusInputs(db, center, buffer, window),
    mapStreets(env, frame),
  ]);
  const status = pointStatus({ point: center, buffer, ...inputs, includeCells: false });
  const colors = new Map(status.advisories.map((a) => [a.id, a.color]));
  const map: MapContext = {
    ...context,
    terrain: ground,
    streets,
    basemap: mapBasemap(env),
    vectorBasemap: basemapConfig(env) !== undefined,
  };
  return {
    layers: mapLayers(frame, map, colors, "metric"),
    frame,
    imageSources: mapImageSources(mapBasemap(env)),
    vectorBasemap: map.vectorBasemap === true,
  };
}

/**
 * The briefing page's content: the flight's briefing now, and its area on the shared map (the
 * ground, the airspace around in the briefing's advisory colors, facility-map ceilings), drawn
 * without scripts (no vector basemap).
 */
export async function briefingWithMap(env: Bindings, db: Db, source: ElevationSource, flight: FlightRow) {
  const briefing = await flightBriefing(db, flight, Date.now());
  const colors = new Map(briefing.advisories.map((a) => [a.id, a.color as string]));
  const frame = fitFrame(bboxOf(flight.geometry), { width: 640, aspect: 0.6, padding: 0.6, minSpanM: 1500 });
  const [context, ground, streets] = await Promise.all([
    mapContext(db, frame.box, flight.startTime, flight.endTime),
    mapTerrain(source.bucket, frame, source.waitUntil),
    mapStreets(env, frame),
  ]);
  const map: MapContext = {
    ...context,
    terrain: ground,
    streets,
    basemap: mapBasemap(env),
    vectorBasemap: false,
  };
  const area = flight.geometry.coordinates
    .map(
      (ring) =>
        `${ring.map((p, i) => `${i === 0 ? "M" : "L"}${project(frame, p).x} ${project(frame, p).y}`).join(" ")} Z`,
    )
    .join(" ");
  return {
    briefing,
    layers: mapLayers(frame, map, colors, "metric"),
    area,
    imageSources: mapImageSources(mapBasemap(env)),
  };
}
