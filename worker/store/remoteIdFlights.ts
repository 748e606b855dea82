/**
 * The flights network Remote ID reports (worker/services/remoteId.ts): every account's, public or
 * not, whose window holds the moment or which hold an open telemetry session and have not ended.
 * Their positions live in each flight's Durable Object, not here.
 */

export interface RemoteIdFlightRow {
  id: string;
  latitude: number;
  longitude: number;
  startTime: number;
  endTime: number;
}

interface Row {
  id: string;
  latitude: number;
  longitude: number;
  start_time: number;
  end_time: number;
}

const toFlight = (r: Row): RemoteIdFlightRow => ({
  id: r.id,
  latitude: r.latitude,
  longitude: r.longitude,
  startTime: r.start_time,
  endTime: r.end_time,
});

/** Flights live at `now`, at most `limit`, most recently started first. */
export async function liveFlights(db: D1Database, now: number, limit: number): Promise<RemoteIdFlightRow[]> {
  const { results } = await db
    .prepare(
      `SELECT id, latitude, longitude, start_time, end_time FROM flights
       WHERE end_time >= ?1 AND (start_time <= ?1
         OR id IN (SELECT flight_id FROM telemetry_sessions WHERE closed_at IS NULL))
       ORDER BY start_time DESC LIMIT ?2`,
    )
    .bind(now, limit)
    .all<Row>();
  return results.map(toFlight);
}

/** Any account's flight by id. */
export async function remoteIdFlight(db: D1Database, id: string): Promise<RemoteIdFlightRow | null> {
  const row = await db
    .prepare("SELECT id, latitude, longitude, start_time, end_time FROM flights WHERE id = ?")
    .bind(id)
    .first<Row>();
  return row ? toFlight(row) : null;
}
