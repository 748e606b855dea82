import { and, eq, type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn, SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import { pilots } from "../../schema";
import type { PilotStatistics } from "../domain/pilots";
import type { Db } from "../env";
import { sha256 } from "../lib/hash";
import { base62OfBytes } from "../lib/ids";
import { type BoundRead, preparedRead } from "./prepared";

export type PilotRow = typeof pilots.$inferSelect;

const pilotRead = preparedRead((db) =>
  db
    .select()
    .from(pilots)
    .where(and(eq(pilots.id, sql.placeholder("id")), eq(pilots.accountId, sql.placeholder("account"))))
    .prepare(),
);

/** The account's pilot as one read of a batch (readBatch): at most one row. */
export function pilotById(db: Db, accountId: string, pilotId: string): BoundRead<PilotRow[]> {
  return pilotRead(db, { id: pilotId, account: accountId });
}

/** The same user id under the same account is always the same pilot (CONTRACT §3). */
export async function pilotIdFor(accountId: string, userId: string): Promise<string> {
  return `pilot|${base62OfBytes(await sha256(`${accountId}\u0000${userId}`), 22)}`;
}

/** Creates the pilot on its first token; later calls change nothing. One statement. */
export async function ensurePilot(db: Db, accountId: string, userId: string, now: number): Promise<string> {
  const id = await pilotIdFor(accountId, userId);
  await insertPilot(db, { id, accountId, userId }, now);
  return id;
}

/** A new pilot row with its defaults, unless the id exists (anonymous and federated pilots alike). */
export async function insertPilot(
  db: Db,
  { id, accountId, userId }: { id: string; accountId: string; userId: string },
  now: number,
): Promise<void> {
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
}

/** The pilot of the account and, when asked, statistics from flights and aircraft: one D1 round trip. */
export async function findPilot(
  db: Db,
  accountId: string,
  pilotId: string,
  options: { statistics: boolean; now: number },
): Promise<{ pilot: PilotRow; statistics?: PilotStatistics } | null> {
  const where = and(eq(pilots.id, pilotId), eq(pilots.accountId, accountId));
  if (!options.statistics) {
    const pilot = await db.select().from(pilots).where(where).get();
    return pilot ? { pilot } : null;
  }
  const row = await db
    .select({
      pilot: pilots,
      flightTotal: pilots.flightCount,
      lastFlight: sql<
        number | null
      >`(SELECT max(f.start_time) FROM flights f WHERE f.account_id = ${accountId} AND f.pilot_id = ${pilotId} AND f.start_time <= ${options.now})`,
      aircraftTotal: sql<number>`(SELECT count(*) FROM aircraft a WHERE a.pilot_id = ${pilotId})`,
    })
    .from(pilots)
    .where(where)
    .get();
  if (!row) return null;
  return {
    pilot: row.pilot,
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

/** Profile changes a pilot may make; `undefined` leaves a field as it is, `null` clears it. */
export interface PilotChanges {
  firstName?: string | null;
  lastName?: string | null;
  username?: string;
  email?: string | null;
  phone?: string | null;
  pictureUrl?: string | null;
  /** An RFC 7396 merge patch: keys replace, `null` removes a key, nested objects merge. */
  userMetadataPatch?: Record<string, unknown>;
}

export type UpdateOutcome =
  | { updated: PilotRow }
  | { failure: "not_found" }
  | { failure: "metadata_too_large" };

/**
 * Applies the changes in one statement, so concurrent updates cannot lose each other's metadata
 * keys, and a changed phone or email clears its verification in the same write.
 */
export async function updatePilot(
  db: Db,
  accountId: string,
  pilotId: string,
  changes: PilotChanges,
  maxUserMetadataChars: number,
): Promise<UpdateOutcome> {
  const conditions = [eq(pilots.id, pilotId), eq(pilots.accountId, accountId)];
  let userMetadata: SQL | undefined;
  if (changes.userMetadataPatch !== undefined) {
    userMetadata = sql`json_patch(${pilots.userMetadata}, ${JSON.stringify(changes.userMetadataPatch)})`;
    conditions.push(sql`length(${userMetadata}) <= ${maxUserMetadataChars}`);
  }
  // Drizzle leaves out fields set to undefined.
  const set: SQLiteUpdateSetSource<typeof pilots> = {
    firstName: changes.firstName,
    lastName: changes.lastName,
    username: changes.username,
    pictureUrl: changes.pictureUrl,
    phone: changes.phone,
    phoneVerified:
      changes.phone === undefined ? undefined : keptIfSame(pilots.phone, changes.phone, pilots.phoneVerified),
    email: changes.email,
    emailVerified:
      changes.email === undefined ? undefined : keptIfSame(pilots.email, changes.email, pilots.emailVerified),
    userMetadata,
  };
  const updated = await db
    .update(pilots)
    .set(set)
    .where(and(...conditions))
    .returning()
    .get();
  if (updated) return { updated };
  const exists = await pilotExists(db, accountId, pilotId);
  return { failure: exists ? "metadata_too_large" : "not_found" };
}

// Right-hand sides of SET read the row's old values: the flag survives only an unchanged contact.
function keptIfSame(contact: AnySQLiteColumn, value: string | null, verified: AnySQLiteColumn): SQL {
  return sql`CASE WHEN ${contact} IS ${value} THEN ${verified} ELSE 0 END`;
}
