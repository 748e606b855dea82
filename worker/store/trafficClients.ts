import type { Db } from "../env";

/** What the traffic broker's admission needs of a flight, in one read (services/trafficClients.ts). */
export interface TrafficFlight {
  accountId: string;
  pilotId: string;
  endTime: number;
  /** Whether the flight's application still has a key that is not revoked. */
  applicationLive: boolean;
}

export async function findTrafficFlight(db: Db, flightId: string): Promise<TrafficFlight | null> {
  const row = await db.$client
    .prepare(
      `SELECT f.account_id AS accountId, f.pilot_id AS pilotId, f.end_time AS endTime,
         EXISTS (SELECT 1 FROM api_keys k WHERE k.account_id = f.account_id AND k.revoked_at IS NULL) AS live
       FROM flights f WHERE f.id = ?`,
    )
    .bind(flightId)
    .first<{ accountId: string; pilotId: string; endTime: number; live: number }>();
  return row
    ? {
        accountId: row.accountId,
        pilotId: row.pilotId,
        endTime: row.endTime,
        applicationLive: row.live === 1,
      }
    : null;
}
