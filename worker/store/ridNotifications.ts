import { and, asc, eq, gte, lte } from "drizzle-orm";
import { ridOperatorNotifications } from "../../schema";
import type { Db } from "../env";
import type { OperatorNotification } from "../rid/operatorNotifications";

export async function insertOperatorNotifications(
  db: Db,
  testId: string,
  notifications: OperatorNotification[],
): Promise<void> {
  // D1 binds at most 100 parameters a statement: 3 per row.
  for (let i = 0; i < notifications.length; i += 30) {
    await db
      .insert(ridOperatorNotifications)
      .values(
        notifications.slice(i, i + 30).map((n) => ({ testId, observedAt: n.observedAt, message: n.message })),
      );
  }
}

export function deleteOperatorNotifications(db: Db, testId: string) {
  return db.delete(ridOperatorNotifications).where(eq(ridOperatorNotifications.testId, testId));
}

/** The notifications observed from `after` to `before` (ms, inclusive), oldest first. */
export function operatorNotificationsBetween(db: Db, after: number, before: number) {
  return db
    .select({ observedAt: ridOperatorNotifications.observedAt, message: ridOperatorNotifications.message })
    .from(ridOperatorNotifications)
    .where(
      and(gte(ridOperatorNotifications.observedAt, after), lte(ridOperatorNotifications.observedAt, before)),
    )
    .orderBy(asc(ridOperatorNotifications.observedAt))
    .limit(1000);
}
