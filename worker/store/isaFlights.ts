import type { PlannedArea } from "../rid/liveIsa";

/**
 * What an Identification Service Area of a live flight is drawn from (worker/telemetry/isaOutbox.ts):
 * the flight's take-off point, the box of its area (buffer included), its ceiling and its end.
 */

export interface IsaFlightRow extends PlannedArea {
  id: string;
}

interface Row {
  id: string;
  latitude: number;
  longitude: number;
  min_lat: number;
  min_lng: number;
  max_lat: number;
  max_lng: number;
  max_altitude: number;
  end_time: number;
}

/** Any account's flight by id; null once deleted. */
export async function isaFlight(db: D1Database, id: string): Promise<IsaFlightRow | null> {
  const row = await db
    .prepare(
      `SELECT id, latitude, longitude, min_lat, min_lng, max_lat, max_lng, max_altitude, end_time
       FROM flights WHERE id = ?`,
    )
    .bind(id)
    .first<Row>();
  return row
    ? {
        id: row.id,
        latitude: row.latitude,
        longitude: row.longitude,
        minLat: row.min_lat,
        minLng: row.min_lng,
        maxLat: row.max_lat,
        maxLng: row.max_lng,
        maxAltitude: row.max_altitude,
        endTime: row.end_time,
      }
    : null;
}
