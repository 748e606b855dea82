import { z } from "zod";

/**
 * The traffic broker's contract with the worker (relay/traffic/, docs/traffic.md), both ways behind
 * the relay credential. The worker validates with these schemas; the broker imports only the types.
 */

/**
 * POST /internal/v1/traffic/clients: may this MQTT client monitor this flight? The client's CONNECT
 * names the flight (username) and carries a pilot token (password). 200 with TrafficClient when the
 * token is the flight's own pilot's and the flight has not ended; 401, 403 or 404 (JSend fail, its
 * message saying why) when not.
 */
export const TrafficClientRequest = z.object({
  flight_id: z.string().min(1).max(64),
  token: z.string().min(1).max(16_384),
});
export type TrafficClientRequest = z.infer<typeof TrafficClientRequest>;

export const TrafficClient = z.object({
  flight_id: z.string(),
  pilot_id: z.string(),
  ends_at: z.number().describe("when the flight ends, ms since the epoch"),
  token_expires_at: z.number().describe("when the token expires, ms since the epoch"),
});
export type TrafficClient = z.infer<typeof TrafficClient>;

/** A flight's latest position, as the worker pushes it to the broker (POST <TRAFFIC_FEED_URL>/v1/positions). */
export interface FlightPosition {
  flight_id: string;
  latitude: number;
  longitude: number;
  /** Metres above mean sea level. */
  altitude_m: number;
  ground_speed_ms: number;
  /** Degrees from true north, of the velocity (or of the nose while hovering). */
  heading_deg: number;
  /** When it was measured, ms since the epoch. */
  recorded_at: number;
}

export interface PositionPost {
  positions: FlightPosition[];
}

/** The broker's feed path, under TRAFFIC_FEED_URL. */
export const POSITIONS_PATH = "/v1/positions";
