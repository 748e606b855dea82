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
    // A new URL starts with a clean record: the old receiver's failures are not its own.
    .onConflictDoUpdate({
      target: conformanceWebhooks.accountId,
      set: { url, secret, updatedAt: now, failures: 0, pausedUntil: 0 },
    })
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

export interface FlightWebhook {
  accountId: string;
  url: string;
  secret: string;
  /** Consecutive failed attempts against this receiver, from any of the account's flights. */
  failures: number;
  pausedUntil: number;
}

/** The webhook of the account that owns a flight, read by the flight's Durable Object (raw D1, no drizzle instance there). */
export async function webhookOfFlight(d1: D1Database, flightId: string): Promise<FlightWebhook | null> {
  return d1
    .prepare(
      `SELECT w.account_id AS accountId, w.url AS url, w.secret AS secret, w.failures AS failures,
              w.paused_until AS pausedUntil
       FROM flights f JOIN conformance_webhooks w ON w.account_id = f.account_id WHERE f.id = ?`,
    )
    .bind(flightId)
    .first<FlightWebhook>();
}

/**
 * Claims the one attempt a failing receiver gets per pause: true for the one caller that moves
 * `paused_until` from the past to `until` (the attempt's time-out), so concurrent flights do not all
 * probe it. A receiver without failures needs no claim.
 */
export async function claimReceiverProbe(
  d1: D1Database,
  accountId: string,
  now: number,
  until: number,
): Promise<boolean> {
  const result = await d1
    .prepare(
      "UPDATE conformance_webhooks SET paused_until = ? WHERE account_id = ? AND paused_until <= ? AND failures > 0",
    )
    .bind(until, accountId, now)
    .run();
  return result.meta.changes === 1;
}

/** Records an attempt's outcome for the whole receiver: a failure pauses it for `pauseMs(failures)`. */
export async function recordReceiverOutcome(
  d1: D1Database,
  accountId: string,
  delivered: boolean,
  now: number,
  pauseMs: (failures: number) => number,
): Promise<void> {
  if (delivered) {
    await d1
      .prepare(
        "UPDATE conformance_webhooks SET failures = 0, paused_until = 0 WHERE account_id = ? AND failures > 0",
      )
      .bind(accountId)
      .run();
    return;
  }
  const row = await d1
    .prepare(
      "UPDATE conformance_webhooks SET failures = failures + 1 WHERE account_id = ? RETURNING failures",
    )
    .bind(accountId)
    .first<{ failures: number }>();
  if (!row) return;
  await d1
    .prepare("UPDATE conformance_webhooks SET paused_until = MAX(paused_until, ?) WHERE account_id = ?")
    .bind(now + pauseMs(row.failures), accountId)
    .run();
}
