import { and, eq, sql } from "drizzle-orm";
import { pilots } from "../../schema";
import type { Db } from "../env";
import { sha256 } from "../lib/hash";
import { base62OfBytes } from "../lib/ids";

export type PilotRow = typeof pilots.$inferSelect;

export interface PilotStatistics {
  flight: { total: number; last_flight_time: number | null };
  aircraft: { total: number };
}

/** The same user id under the same account is always the same pilot (CONTRACT §3). */
export async function pilotIdFor(accountId: string, userId: string): Promise<string> {
  return `pilot|${base62OfBytes(await sha256(`${accountId}\u0000${userId}`), 22)}`;
}

/** Creates the pilot on its first token; later calls change nothing. One statement. */
export async function ensurePilot(db: Db, accountId: string, userId: string, now: number): Promise<string> {
  const id = await pilotIdFor(accountId, userId);
  await db
    .insert(pilots)
    .values({
      id,
      accountId,
      userId,
      username: `pilot_${id.slice(-8)}`,
      userMetadata: {},
      appMetadata: {},
      phoneVerified: false,
      emailVerified: false,
      createdAt: now,
    })
    .onConflictDoNothing()
    .run();
  return id;
}

/** The pilot and, when asked, statistics computed from flights and aircraft: one D1 round trip. */
export async function findPilot(
  db: Db,
  accountId: string,
  pilotId: string,
  now: number,
): Promise<(PilotRow & { statistics: PilotStatistics }) | null> {
  const row = await db
    .select({
      pilot: pilots,
      flightTotal: sql<number>`(SELECT count(*) FROM flights f WHERE f.pilot_id = ${pilots.id})`,
      lastFlight: sql<
        number | null
      >`(SELECT max(f.start_time) FROM flights f WHERE f.pilot_id = ${pilots.id} AND f.start_time <= ${now})`,
      aircraftTotal: sql<number>`(SELECT count(*) FROM aircraft a WHERE a.pilot_id = ${pilots.id})`,
    })
    .from(pilots)
    .where(and(eq(pilots.id, pilotId), eq(pilots.accountId, accountId)))
    .get();
  if (!row) return null;
  return {
    ...row.pilot,
    statistics: {
      flight: { total: Number(row.flightTotal), last_flight_time: row.lastFlight },
      aircraft: { total: Number(row.aircraftTotal) },
    },
  };
}

export async function pilotExists(db: Db, accountId: string, pilotId: string): Promise<boolean> {
  const row = await db
    .select({ id: pilots.id })
    .from(pilots)
    .where(and(eq(pilots.id, pilotId), eq(pilots.accountId, accountId)))
    .get();
  return row !== undefined;
}

export async function updatePilot(db: Db, pilotId: string, changes: Partial<PilotRow>): Promise<PilotRow> {
  const row = await db.update(pilots).set(changes).where(eq(pilots.id, pilotId)).returning().get();
  if (!row) throw new Error(`pilot ${pilotId} vanished during update`);
  return row;
}
