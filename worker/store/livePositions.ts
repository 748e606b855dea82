import type { CellRange, CellReport } from "../rid/liveIndex";

/**
 * The live-position index (schema/remoteId.ts `live_positions`): written by each flight's Durable
 * Object, read by network Remote ID for a view. Only reads and writes; the rules are in
 * worker/rid/liveIndex.ts.
 */

/**
 * Writes a flight's rows (newer times win) and deletes every row older than `expiredBefore`, in one
 * batch. A flight that has ended or is gone gets no row: the insert selects its flight row first,
 * so a record racing an end or a delete leaves nothing behind (ending and deleting remove the rows).
 */
export async function writeLivePositions(
  db: D1Database,
  flightId: string,
  reports: CellReport[],
  now: number,
  expiredBefore: number,
): Promise<void> {
  const upsert = db.prepare(
    `INSERT INTO live_positions (flight_id, cell_y, cell_x, latitude, longitude, reported_at)
     SELECT id, ?2, ?3, ?4, ?5, ?6 FROM flights WHERE id = ?1 AND end_time >= ?7
     ON CONFLICT (flight_id, cell_y, cell_x) DO UPDATE SET
       latitude = excluded.latitude, longitude = excluded.longitude, reported_at = excluded.reported_at
     WHERE excluded.reported_at > live_positions.reported_at`,
  );
  await db.batch([
    ...reports.map((r) =>
      upsert.bind(flightId, r.cell.y, r.cell.x, r.latitude, r.longitude, r.reportedAt, now),
    ),
    db.prepare("DELETE FROM live_positions WHERE reported_at < ?").bind(expiredBefore),
  ]);
}

/**
 * Flights live at `now` (not ended; started, or holding an open telemetry session, as
 * remoteIdFlights.ts counts them) with a row in the cells since `since`: at most `limit` ids.
 */
export async function flightsReportingIn(
  db: D1Database,
  cells: CellRange,
  since: number,
  now: number,
  limit: number,
): Promise<string[]> {
  // cell_y IN (…) with cell_x BETWEEN reads each row of cells as one range of live_positions_cell.
  const ys = cells.ys.map((_, i) => `?${i + 6}`).join(", ");
  const { results } = await db
    .prepare(
      `SELECT DISTINCT p.flight_id AS id FROM live_positions p JOIN flights f ON f.id = p.flight_id
       WHERE p.cell_y IN (${ys}) AND p.cell_x BETWEEN ?1 AND ?2 AND p.reported_at >= ?3
         AND f.end_time >= ?4 AND (f.start_time <= ?4
           OR EXISTS (SELECT 1 FROM telemetry_sessions s WHERE s.flight_id = f.id AND s.closed_at IS NULL))
       LIMIT ?5`,
    )
    .bind(cells.minX, cells.maxX, since, now, limit, ...cells.ys)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

/** Removes a flight's rows (its telemetry was erased). */
export async function deleteLivePositions(db: D1Database, flightId: string): Promise<void> {
  await db.prepare("DELETE FROM live_positions WHERE flight_id = ?").bind(flightId).run();
}

/** The flight's latest indexed position (rows live about two minutes), or null. */
export async function latestLivePosition(
  db: D1Database,
  flightId: string,
): Promise<{ latitude: number; longitude: number; reportedAt: number } | null> {
  return db
    .prepare(
      `SELECT latitude, longitude, reported_at AS reportedAt FROM live_positions
       WHERE flight_id = ? ORDER BY reported_at DESC LIMIT 1`,
    )
    .bind(flightId)
    .first();
}
