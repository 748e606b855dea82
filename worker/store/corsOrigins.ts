import { eq } from "drizzle-orm";
import { corsOrigins } from "../../schema";
import type { SqlDb } from "./accounts";

/** The origins an account lists, sorted; empty when it has none of its own. */
export async function listCorsOrigins(db: SqlDb, accountId: string): Promise<string[]> {
  const rows = await db
    .select({ origin: corsOrigins.origin })
    .from(corsOrigins)
    .where(eq(corsOrigins.accountId, accountId))
    .orderBy(corsOrigins.origin)
    .all();
  return rows.map((r) => r.origin);
}

/** Whether any account lists `origin` (a preflight's question: it carries no key). */
export async function someAccountAllows(db: SqlDb, origin: string): Promise<boolean> {
  const row = await db
    .select({ accountId: corsOrigins.accountId })
    .from(corsOrigins)
    .where(eq(corsOrigins.origin, origin))
    .limit(1)
    .get();
  return row !== undefined;
}

/** Replaces an account's list in one batch; an empty list returns it to the service's setting. */
export async function replaceCorsOrigins(
  db: SqlDb,
  accountId: string,
  origins: readonly string[],
  now = Date.now(),
): Promise<void> {
  const clear = db.delete(corsOrigins).where(eq(corsOrigins.accountId, accountId));
  if (origins.length === 0) {
    await clear.run();
    return;
  }
  await db.batch([
    clear,
    db.insert(corsOrigins).values(origins.map((origin) => ({ accountId, origin, createdAt: now }))),
  ]);
}
