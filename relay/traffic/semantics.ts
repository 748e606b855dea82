import { bearingDeg, closestApproach, type Kinematics } from "./geometry";
import { feetOf, knotsOf, METRES_PER_STATUTE_MILE, metresOfFeet } from "./units";

/**
 * What the SDKs mean by traffic (Android AirMapTraffic.java, C++ include/airmap/traffic.h) and the
 * message they read, pure: situational awareness is traffic within 10 statute miles; an alert is
 * traffic that will come within 1,000 m in the next 30 s.
 */

/** Situational awareness: within this horizontal distance… */
export const SA_RADIUS_M = 10 * METRES_PER_STATUTE_MILE;
/**
 * …and this far above or below us. Drones fly within 400 ft of the ground; manned aircraft more than
 * 3,000 ft above or below are no concern to them (and readsb reports cruising airliners for 200 miles).
 */
export const VERTICAL_BAND_M = metresOfFeet(3000);
/** An alert: the closest point of approach, in three dimensions, is nearer than this… */
export const ALERT_DISTANCE_M = 1000;
/** …within this many seconds, both flying straight on from their last reports. */
export const ALERT_HORIZON_S = 30;
/** A track not heard of for this long is gone: the SDKs drop one 30 s after its last update too. */
export const TRACK_TTL_MS = 30_000;
/** A track is published to a flight's topic at most this often, and again at once when its kind changes. */
export const REPUBLISH_MS = 1000;

export type TrafficKind = "alert" | "sa";

/** Another aircraft as the broker knows it. */
export interface Track extends Kinematics {
  /** Stable over the track's life: the flight's id, or `icao:<hex>` for a manned aircraft. */
  id: string;
  /** `properties.aircraft_id`: the flight's id, or the aircraft's call sign (its ICAO address without one). */
  aircraftId: string;
  /** `properties.aircraft_type`: "UAV" for a flight, the ADS-B type or category for a manned aircraft. */
  aircraftType: string;
}

/** What `other` is to `own` at `nowMs`: an alert, situational awareness, or nothing (null). */
export function kindOf(own: Kinematics, other: Kinematics, nowMs: number): TrafficKind | null {
  if (!withinReach(own, other, nowMs)) return null;
  const approach = closestApproach(own, other, nowMs, ALERT_HORIZON_S);
  if (Math.hypot(approach.distanceM, approach.verticalM) < ALERT_DISTANCE_M) return "alert";
  if (approach.rangeM <= SA_RADIUS_M && Math.abs(approach.verticalM) <= VERTICAL_BAND_M) return "sa";
  return null;
}

const METRES_PER_DEGREE = 111_195;

/**
 * Whether `other` may be traffic to `own` at all, without a square root or an allocation: kindOf
 * asks it first of every pair the grid offers (most are too far). Generous: farther than both could
 * have flown since their reports and in the alert horizon, beyond SA and alert reach, is nothing.
 */
export function withinReach(own: Kinematics, other: Kinematics, nowMs: number): boolean {
  const vertical = Math.abs(other.altitudeM - own.altitudeM);
  if (vertical > VERTICAL_BAND_M && vertical >= ALERT_DISTANCE_M) return false;
  const dy = (other.latitude - own.latitude) * METRES_PER_DEGREE;
  const dx = (other.longitude - own.longitude) * METRES_PER_DEGREE * Math.cos((own.latitude * Math.PI) / 180);
  const flownS =
    own.groundSpeedMs * (Math.abs(nowMs - own.recordedAt) / 1000 + ALERT_HORIZON_S) +
    other.groundSpeedMs * (Math.abs(nowMs - other.recordedAt) / 1000 + ALERT_HORIZON_S);
  const reach = (Math.max(SA_RADIUS_M, ALERT_DISTANCE_M) + flownS) * 1.01 + 100;
  return dx * dx + dy * dy <= reach * reach;
}

/** One element of the `traffic` array, exactly as the SDKs' decoders read it. */
export interface TrafficUpdate {
  id: string;
  direction: number;
  latitude: string;
  longitude: string;
  altitude: string;
  ground_speed_kts: string;
  true_heading: string;
  recorded_time: string;
  timestamp: number;
  properties: { aircraft_id: string; aircraft_type: string };
}

/**
 * The update for `track` as seen from `own`: strings where the SDKs parse strings (C++ lexical_cast,
 * hence plain decimals), feet and knots, whole degrees and knots (the Windows SDK reads them as
 * integers), `recorded_time` in whole epoch seconds, `timestamp` (when this update is made) in ms.
 */
export function trafficUpdate(own: Kinematics, track: Track, nowMs: number): TrafficUpdate {
  return {
    id: track.id,
    direction: directionOf(own, track),
    latitude: track.latitude.toFixed(7),
    longitude: track.longitude.toFixed(7),
    altitude: Math.round(feetOf(track.altitudeM)).toString(),
    ground_speed_kts: Math.round(knotsOf(track.groundSpeedMs)).toString(),
    true_heading: (Math.round(track.headingDeg) % 360).toString(),
    recorded_time: Math.floor(track.recordedAt / 1000).toString(),
    timestamp: nowMs,
    properties: { aircraft_id: track.aircraftId, aircraft_type: track.aircraftType },
  };
}

const directionOf = (own: Kinematics, track: Track) =>
  Math.round(bearingDeg(own.latitude, own.longitude, track.latitude, track.longitude)) % 360;

/**
 * A state's update as JSON around the two members that depend on who looks (`direction`) and when
 * (`timestamp`), made once per state: a state goes to every flight within 10 miles (a hundred in a
 * busy region), so the monitor joins strings rather than serialise each update again.
 */
const jsonOf = new WeakMap<Track, [string, string, string]>();

/** One message, `{"traffic": [ … ]}`: the JSON of trafficUpdate for each track, in its order. */
export function trafficMessage(own: Kinematics, tracks: Track[], nowMs: number): string {
  const items = tracks.map((track) => {
    let parts = jsonOf.get(track);
    if (parts === undefined) {
      const json = JSON.stringify({ ...trafficUpdate(own, track, 0), direction: 0 });
      const direction = json.indexOf(',"direction":0,');
      const timestamp = json.indexOf(',"timestamp":0,');
      parts = [
        json.slice(0, direction),
        json.slice(direction + ',"direction":0'.length, timestamp),
        json.slice(timestamp + ',"timestamp":0'.length),
      ];
      jsonOf.set(track, parts);
    }
    return `${parts[0]},"direction":${directionOf(own, track)}${parts[1]},"timestamp":${nowMs}${parts[2]}`;
  });
  return `{"traffic":[${items.join(",")}]}`;
}

/** The topic a flight's updates of a kind are published on (C++ rest/traffic.cpp, Swift, Android). */
export const topicOf = (kind: TrafficKind, flightId: string) =>
  kind === "alert" ? `uav/traffic/alert/${flightId}` : `uav/traffic/sa/${flightId}`;

/** The flight a topic belongs to and its kind, or null for any other topic. */
export function parseTopic(topic: string): { kind: TrafficKind; flightId: string } | null {
  const match = /^uav\/traffic\/(sa|alert)\/([^/#+]+)$/.exec(topic);
  return match ? { kind: match[1] as TrafficKind, flightId: match[2]! } : null;
}
