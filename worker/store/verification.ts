import { and, eq, sql } from "drizzle-orm";
import { pilots, type VerificationChannel, verificationTokens } from "../../schema";
import type { Db } from "../env";

export type IssueOutcome = { issued: number } | { limited: { oldestSendAt: number } };

/**
 * Stores a new code unless the pilot already had `maxSends` on this channel within the window.
 * The count and the insert are one statement, so concurrent sends cannot pass the limit together.
 */
export async function issueCode(
  db: Db,
  code: {
    pilotId: string;
    channel: VerificationChannel;
    destination: string;
    codeHash: string;
    expiresAt: number;
  },
  limit: { maxSends: number; windowMs: number; now: number },
): Promise<IssueOutcome> {
  const windowStart = limit.now - limit.windowMs;
  const inserted = await db.get<{ id: number } | undefined>(sql`
    INSERT INTO ${verificationTokens} (pilot_id, channel, destination, token_hash, expires_at, created_at)
    SELECT ${code.pilotId}, ${code.channel}, ${code.destination}, ${code.codeHash}, ${code.expiresAt}, ${limit.now}
    WHERE (
      SELECT count(*) FROM ${verificationTokens}
      WHERE pilot_id = ${code.pilotId} AND channel = ${code.channel} AND created_at > ${windowStart}
    ) < ${limit.maxSends}
    RETURNING id`);
  if (inserted) return { issued: inserted.id };
  const oldest = await db.get<{ oldest: number }>(sql`
    SELECT min(created_at) AS oldest FROM ${verificationTokens}
    WHERE pilot_id = ${code.pilotId} AND channel = ${code.channel} AND created_at > ${windowStart}`);
  return { limited: { oldestSendAt: oldest.oldest ?? limit.now } };
}

/** Makes a stored code unusable (its delivery failed); it still counts against the send limit. */
export async function voidCode(db: Db, id: number, now: number): Promise<void> {
  await db.update(verificationTokens).set({ consumedAt: now }).where(eq(verificationTokens.id, id));
}

/**
 * Consumes the pilot's newest code on the channel, if it is still unused, and returns it. Only the
 * newest counts (sending again replaces a code), and consuming is one conditional write, so each
 * code admits exactly one attempt even when attempts race.
 */
export async function consumeLatestCode(
  db: Db,
  pilotId: string,
  channel: VerificationChannel,
  now: number,
): Promise<{ codeHash: string; destination: string; expiresAt: number } | undefined> {
  const row = await db.get<{ token_hash: string; destination: string; expires_at: number } | undefined>(sql`
    UPDATE ${verificationTokens} SET consumed_at = ${now}
    WHERE id = (
      SELECT id FROM ${verificationTokens} WHERE pilot_id = ${pilotId} AND channel = ${channel}
      ORDER BY id DESC LIMIT 1
    ) AND consumed_at IS NULL
    RETURNING token_hash, destination, expires_at`);
  return row && { codeHash: row.token_hash, destination: row.destination, expiresAt: row.expires_at };
}

/** Marks the contact verified, only if it is still the one the code was sent to. */
export async function markVerified(
  db: Db,
  pilotId: string,
  channel: VerificationChannel,
  destination: string,
): Promise<boolean> {
  const contact = channel === "phone" ? pilots.phone : pilots.email;
  const row = await db
    .update(pilots)
    .set(channel === "phone" ? { phoneVerified: true } : { emailVerified: true })
    .where(and(eq(pilots.id, pilotId), eq(contact, destination)))
    .returning({ id: pilots.id })
    .get();
  return row !== undefined;
}
