import { recordTimeProblem, timeWindowText } from "../../proto/recordTime";
import { sampleElevations } from "../domain/elevation/sampling";
import { flightState } from "../domain/flightState";
import { ellipsoidToEgm96 } from "../domain/geoid";
import { bboxOf, type Polygon } from "../domain/geojson";
import type { MapContext } from "../domain/map/layers";
import type { Frame } from "../domain/map/view";
import type { Bindings, Db } from "../env";
import { badRequest, forbidden, notFound } from "../lib/errors";
import { newId } from "../lib/ids";
import { parseTime } from "../lib/time";
import { chunkLoader, coverage } from "../store/elevationTiles";
import { type FlightRow, findFlight } from "../store/flights";
import { mapContext } from "../store/mapContext";
import { type TelemetryRecord, telemetryOf } from "../telemetry/flightTelemetry";
import { basemapConfig, mapStreets } from "./basemap";
import type { ElevationSource } from "./elevation";
import { mapBasemap, mapTerrain } from "./mapTerrain";

/** Live flights: telemetry posted over HTTP, monitoring switched in development, the live page's ground. */

/** ASTM F3411-22a RIDAircraftState: the fields this service reads (checked by the route's schema). */
export interface PostedState {
  timestamp: { value: string };
  position: {
    lat: number;
    lng: number;
    alt: number;
    accuracy_h?: string;
    height?: { distance: number; reference: string };
  };
  track: number;
  speed: number;
  vertical_speed: number;
}

/** ASTM accuracy_h codes as meters (the bound of each class); unknown as 0. */
const HORIZONTAL_ACCURACY: Record<string, number> = {
  HA10NMPlus: 18_520,
  HA10NM: 18_520,
  HA4NM: 7408,
  HA2NM: 3704,
  HA1NM: 1852,
  HA05NM: 926,
  HA03NM: 555.6,
  HA01NM: 185.2,
  HA005NM: 92.6,
  HA30m: 30,
  HA10m: 10,
  HA3m: 3,
  HA1m: 1,
};

/**
 * Stores the pilot's posted states as Position and Speed records. Another pilot's public flight is
 * 403, a flight the caller cannot read 404; a state dated outside the flight is 400 naming it.
 */
export async function recordPostedStates(
  env: Bindings,
  db: Db,
  caller: { accountId: string; pilotId: string | undefined },
  flightId: string,
  states: PostedState[],
) {
  const flight = await findFlight(db, caller.accountId, flightId);
  if (!flight || (!flight.public && flight.pilotId !== caller.pilotId)) throw notFound("Flight");
  if (flight.pilotId !== caller.pilotId) throw forbidden("Only the flight's pilot may send its telemetry");
  const now = Date.now();
  // The flight is the session: states may be dated from its start (or now, if earlier) to its end
  // (or now, if later; states ahead of their time are served once it has come). A state dated 1970
  // or 9999 would raise conformance events (and webhooks) with that date.
  const opened = Math.min(flight.startTime, now);
  const until = Math.max(flight.endTime, now);
  const absurd = states.findIndex(
    (state) => recordTimeProblem(parseTime(state.timestamp.value)!, opened, until) !== undefined,
  );
  if (absurd >= 0)
    throw badRequest(
      `states.${absurd}.timestamp.value`,
      `must lie ${timeWindowText("the flight's start", "its end or now, whichever is later")}`,
    );
  // One session id per post: its states are its serials, so a post is stored whole or (as a repeat) not at all.
  const sessionId = newId("session");
  const records: TelemetryRecord[] = [];
  states.forEach((state, i) => {
    const timestamp = parseTime(state.timestamp.value)!;
    const { lat, lng, alt } = state.position;
    const height = state.position.height;
    records.push({
      sessionId,
      datagram: `state ${i}`,
      serial: i,
      index: 0,
      type: "position",
      timestamp,
      receivedAt: now,
      fields: {
        latitude: lat,
        longitude: lng,
        altitude_agl: height && height.reference === "GroundLevel" ? height.distance : 0,
        altitude_msl: Math.round(ellipsoidToEgm96(lat, lng, alt) * 100) / 100,
        horizontal_accuracy: HORIZONTAL_ACCURACY[state.position.accuracy_h ?? ""] ?? 0,
      },
    });
    if (state.track > 360 || state.speed >= 255) return;
    const radians = (state.track * Math.PI) / 180;
    records.push({
      sessionId,
      datagram: `state ${i}`,
      serial: i,
      index: 1,
      type: "speed",
      timestamp,
      receivedAt: now,
      fields: {
        velocity_x: round3(state.speed * Math.cos(radians)),
        velocity_y: round3(state.speed * Math.sin(radians)),
        velocity_z: state.vertical_speed >= 63 ? 0 : -state.vertical_speed,
      },
    });
  });
  return telemetryOf(env, flight.id).ingest(records);
}

/** Switches the flight's conformance monitoring (development only); 404 for a flight not the account's. */
export async function setFlightMonitoring(
  env: Bindings,
  db: Db,
  accountId: string,
  flightId: string,
  enabled: boolean,
): Promise<void> {
  const flight = await findFlight(db, accountId, flightId);
  if (!flight) throw notFound("Flight");
  await telemetryOf(env, flight.id).setMonitoring(enabled);
}

/** What the live page shows beside the flight: its state now, the terrain profile's grid, the map's context in `frame`. */
export async function livePageData(
  env: Bindings,
  db: Db,
  source: ElevationSource,
  flight: FlightRow,
  frame: Frame,
) {
  const terrain = await terrainGrid(source, flight.geometry);
  const [context, mapGround, streets] = await Promise.all([
    mapContext(db, frame.box, flight.startTime, flight.endTime),
    mapTerrain(source.bucket, frame, source.waitUntil),
    mapStreets(env, frame),
  ]);
  const map: MapContext = {
    ...context,
    terrain: mapGround,
    streets,
    basemap: mapBasemap(env),
    vectorBasemap: basemapConfig(env) !== undefined,
  };
  return { state: flightState(flight, Date.now()), terrain, map };
}

/** Ground below the area and around it, for the page's terrain profile: a 48×48 grid from our tiles. */
async function terrainGrid(source: ElevationSource, area: Polygon) {
  const box = bboxOf(area);
  const padLat = Math.max((box.maxLat - box.minLat) * 0.5, 0.002);
  const padLng = Math.max((box.maxLng - box.minLng) * 0.5, 0.002);
  const grid = {
    south: box.minLat - padLat,
    north: box.maxLat + padLat,
    west: box.minLng - padLng,
    east: box.maxLng + padLng,
    rows: 48,
    cols: 48,
  };
  const lats: number[] = [];
  const lngs: number[] = [];
  for (let r = 0; r < grid.rows; r++) {
    for (let col = 0; col < grid.cols; col++) {
      lats.push(grid.south + ((grid.north - grid.south) * r) / (grid.rows - 1));
      lngs.push(grid.west + ((grid.east - grid.west) * col) / (grid.cols - 1));
    }
  }
  const cover = await coverage(source.bucket, source.waitUntil);
  const values = await sampleElevations(cover, lats, lngs, "bilinear", chunkLoader(source.bucket));
  return values.some((v) => v !== null) ? { ...grid, values } : null;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
