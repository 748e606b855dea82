import { and, eq, inArray, isNull } from "drizzle-orm";
import { telemetrySessions } from "../../schema";
import type { Db } from "../env";

/** D1 binds at most 100 parameters per statement. */
const D1_MAX_PARAMS = 100;

export type TelemetrySessionRow = typeof telemetrySessions.$inferSelect;

/** Opens a session and closes the flight's previous one, atomically (one D1 batch). */
export async function openSession(db: Db, session: TelemetrySessionRow): Promise<void> {
  await db.batch([
    closeStatement(db, session.flightId, session.openedAt),
    db.insert(telemetrySessions).values(session),
  ]);
}

/** Closes the flight's open session, if any. The flight `end` route calls this too. */
export async function closeSessions(db: Db, flightId: string, now: number): Promise<void> {
  await closeStatement(db, flightId, now);
}

/** The statement that closes the flight's open session: for a batch with other writes. */
export function closeStatement(db: Db, flightId: string, now: number) {
  return db
    .update(telemetrySessions)
    .set({ closedAt: now })
    .where(and(eq(telemetrySessions.flightId, flightId), isNull(telemetrySessions.closedAt)));
}

export async function findOpenSession(db: Db, flightId: string): Promise<TelemetrySessionRow | null> {
  const row = await db
    .select()
    .from(telemetrySessions)
    .where(and(eq(telemetrySessions.flightId, flightId), isNull(telemetrySessions.closedAt)))
    .get();
  return row ?? null;
}

/** Sessions by id, in chunks that respect D1's bound-parameter limit. */
export async function findSessions(db: Db, ids: string[]): Promise<Map<string, TelemetrySessionRow>> {
  const found = new Map<string, TelemetrySessionRow>();
  for (let i = 0; i < ids.length; i += D1_MAX_PARAMS) {
    const rows = await db
      .select()
      .from(telemetrySessions)
      .where(inArray(telemetrySessions.id, ids.slice(i, i + D1_MAX_PARAMS)));
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}
