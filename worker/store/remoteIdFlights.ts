/**
 * A flight as network Remote ID's details read it (worker/services/remoteId.ts), any account's,
 * public or not. Which flights are live near a view is livePositions.ts's; their positions live in
 * each flight's Durable Object.
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

/** Any account's flight by id. */
export async function remoteIdFlight(db: D1Database, id: string): Promise<RemoteIdFlightRow | null> {
  const row = await db
    .prepare("SELECT id, latitude, longitude, start_time, end_time FROM flights WHERE id = ?")
    .bind(id)
    .first<Row>();
  return row ? toFlight(row) : null;
}
