import { and, asc, eq, gte, lt, lte } from "drizzle-orm";
import { ownOperationalIntents, peerOperationalIntents, userNotifications, ussReports } from "../../schema";
import type { OperationalIntentReference } from "../dss/scdDss";
import type { OperationalIntentDetails } from "../interuss/intentDetails";
import type { SqlDb } from "./accounts";

/** Reads and writes of the F3548 USS-to-USS tables (migration 0022). */

export interface OwnIntentRecord {
  id: string;
  flightPlanId: string;
  reference: OperationalIntentReference;
  details: OperationalIntentDetails;
  endsAt: number;
}

/** Kept this long past an intent's end, as the DSS keeps its reference. */
const ENDED_KEPT_MS = 3600_000;

export async function findOwnIntent(db: SqlDb, id: string): Promise<OwnIntentRecord | null> {
  const row = await db.select().from(ownOperationalIntents).where(eq(ownOperationalIntents.id, id)).get();
  return row ? { ...row, reference: JSON.parse(row.reference), details: JSON.parse(row.details) } : null;
}

/** Keeps the intent as the DSS last accepted it, and forgets those that ended over an hour ago. */
export async function saveOwnIntent(db: SqlDb, record: OwnIntentRecord, now: number): Promise<void> {
  const values = {
    id: record.id,
    flightPlanId: record.flightPlanId,
    reference: JSON.stringify(record.reference),
    details: JSON.stringify(record.details),
    endsAt: record.endsAt,
    updatedAt: now,
  };
  await db.batch([
    db.delete(ownOperationalIntents).where(lt(ownOperationalIntents.endsAt, now - ENDED_KEPT_MS)),
    db
      .insert(ownOperationalIntents)
      .values(values)
      .onConflictDoUpdate({ target: ownOperationalIntents.id, set: values }),
  ]);
}

export async function deleteOwnIntent(db: SqlDb, id: string): Promise<void> {
  await db.delete(ownOperationalIntents).where(eq(ownOperationalIntents.id, id));
}

export interface PeerIntentRecord {
  id: string;
  manager: string;
  version: number;
  ovn: string;
  intent: unknown;
  endsAt: number;
}

export async function findPeerIntent(db: SqlDb, id: string): Promise<PeerIntentRecord | null> {
  const row = await db.select().from(peerOperationalIntents).where(eq(peerOperationalIntents.id, id)).get();
  return row ? { ...row, intent: JSON.parse(row.intent) } : null;
}

/** Keeps the peer's intent as received, and forgets those that have ended. */
export async function savePeerIntent(db: SqlDb, record: PeerIntentRecord, now: number): Promise<void> {
  const values = { ...record, intent: JSON.stringify(record.intent), receivedAt: now };
  await db.batch([
    db.delete(peerOperationalIntents).where(lt(peerOperationalIntents.endsAt, now)),
    db
      .insert(peerOperationalIntents)
      .values(values)
      .onConflictDoUpdate({ target: peerOperationalIntents.id, set: values }),
  ]);
}

export async function deletePeerIntent(db: SqlDb, id: string): Promise<void> {
  await db.delete(peerOperationalIntents).where(eq(peerOperationalIntents.id, id));
}

export async function saveUssReport(
  db: SqlDb,
  report: { id: string; reporter: string; report: unknown },
  now: number,
): Promise<void> {
  await db.insert(ussReports).values({ ...report, report: JSON.stringify(report.report), receivedAt: now });
}

export interface UserNotificationRecord {
  observedAt: number;
  conflicts: "Single" | "Multiple";
  message: string;
}

export async function addUserNotification(db: SqlDb, notification: UserNotificationRecord): Promise<void> {
  await db.insert(userNotifications).values({ id: crypto.randomUUID(), ...notification });
}

/** The notifications observed in [after, before], oldest first. */
export async function userNotificationsBetween(
  db: SqlDb,
  after: number,
  before: number,
): Promise<UserNotificationRecord[]> {
  const rows = await db
    .select()
    .from(userNotifications)
    .where(and(gte(userNotifications.observedAt, after), lte(userNotifications.observedAt, before)))
    .orderBy(asc(userNotifications.observedAt))
    .limit(1000)
    .all();
  return rows.map((r) => ({
    observedAt: r.observedAt,
    conflicts: r.conflicts as UserNotificationRecord["conflicts"],
    message: r.message,
  }));
}
