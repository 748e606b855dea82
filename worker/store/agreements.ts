import { and, asc, eq } from "drizzle-orm";
import { agreementAcceptances, agreements } from "../../schema";
import type { SqlDb } from "./accounts";

export type Agreement = typeof agreements.$inferSelect;

/** The agreements an authority asks for, by id. */
export function agreementsOfAuthority(db: SqlDb, authorityId: string): Promise<Agreement[]> {
  return db
    .select()
    .from(agreements)
    .where(eq(agreements.authorityId, authorityId))
    .orderBy(asc(agreements.id))
    .all();
}

export async function findAgreement(db: SqlDb, id: string): Promise<Agreement | null> {
  return (await db.select().from(agreements).where(eq(agreements.id, id)).get()) ?? null;
}

/** Every agreement, by authority then id (the operator's list). */
export function allAgreements(db: SqlDb): Promise<Agreement[]> {
  return db.select().from(agreements).orderBy(asc(agreements.authorityId), asc(agreements.id)).all();
}

/** Creates the agreement or replaces its version, type, title and text. */
export async function saveAgreement(
  db: SqlDb,
  agreement: Omit<Agreement, "createdAt" | "updatedAt">,
  now = Date.now(),
): Promise<void> {
  await db
    .insert(agreements)
    .values({ ...agreement, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: agreements.id,
      set: {
        authorityId: agreement.authorityId,
        version: agreement.version,
        type: agreement.type,
        title: agreement.title,
        text: agreement.text,
        updatedAt: now,
      },
    })
    .run();
}

/** Removes an agreement and every acceptance of it; false when there was none. */
export async function removeAgreement(db: SqlDb, id: string): Promise<boolean> {
  const removed = await db.delete(agreements).where(eq(agreements.id, id)).returning().all();
  return removed.length > 0;
}

/** When the pilot accepted this version of the agreement (ms), or null. */
export async function acceptanceOf(
  db: SqlDb,
  pilotId: string,
  agreementId: string,
  version: string,
): Promise<number | null> {
  const row = await db
    .select({ agreedAt: agreementAcceptances.agreedAt })
    .from(agreementAcceptances)
    .where(
      and(
        eq(agreementAcceptances.pilotId, pilotId),
        eq(agreementAcceptances.agreementId, agreementId),
        eq(agreementAcceptances.version, version),
      ),
    )
    .get();
  return row?.agreedAt ?? null;
}

/** Records the acceptance; agreeing again to the same version keeps the first date. */
export async function recordAcceptance(
  db: SqlDb,
  acceptance: { pilotId: string; agreementId: string; version: string; agreedAt: number },
  now = Date.now(),
): Promise<void> {
  await db
    .insert(agreementAcceptances)
    .values({ ...acceptance, recordedAt: now })
    .onConflictDoNothing()
    .run();
}
