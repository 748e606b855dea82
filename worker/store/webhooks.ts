import { eq } from "drizzle-orm";
import { conformanceWebhooks } from "../../schema";
import type { Db } from "../env";

export interface Webhook {
  url: string;
  secret: string;
  createdAt: number;
  updatedAt: number;
}

export async function findWebhook(db: Db, accountId: string): Promise<Webhook | null> {
  const row = await db
    .select({
      url: conformanceWebhooks.url,
      secret: conformanceWebhooks.secret,
      createdAt: conformanceWebhooks.createdAt,
      updatedAt: conformanceWebhooks.updatedAt,
    })
    .from(conformanceWebhooks)
    .where(eq(conformanceWebhooks.accountId, accountId))
    .get();
  return row ?? null;
}

/** Registers or replaces the account's webhook; a replacement keeps its first registration time. */
export async function putWebhook(
  db: Db,
  accountId: string,
  url: string,
  secret: string,
  now: number,
): Promise<Webhook> {
  const row = await db
    .insert(conformanceWebhooks)
    .values({ accountId, url, secret, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: conformanceWebhooks.accountId, set: { url, secret, updatedAt: now } })
    .returning()
    .get();
  return { url: row.url, secret: row.secret, createdAt: row.createdAt, updatedAt: row.updatedAt };
}

/** Removes the account's webhook; false when it had none. */
export async function deleteWebhook(db: Db, accountId: string): Promise<boolean> {
  const rows = await db
    .delete(conformanceWebhooks)
    .where(eq(conformanceWebhooks.accountId, accountId))
    .returning({ accountId: conformanceWebhooks.accountId })
    .all();
  return rows.length > 0;
}

/** The webhook of the account that owns a flight, read by the flight's Durable Object (raw D1, no drizzle instance there). */
export async function webhookOfFlight(
  d1: D1Database,
  flightId: string,
): Promise<{ accountId: string; url: string; secret: string } | null> {
  return d1
    .prepare(
      `SELECT w.account_id AS accountId, w.url AS url, w.secret AS secret
       FROM flights f JOIN conformance_webhooks w ON w.account_id = f.account_id WHERE f.id = ?`,
    )
    .bind(flightId)
    .first<{ accountId: string; url: string; secret: string }>();
}
