import { and, eq, isNull } from "drizzle-orm";
import { accounts, apiKeys } from "../../schema";
import type { Account, Db } from "../env";

/** The account behind an API key hash, or null when the key is unknown or revoked. */
export async function findAccountByKeyHash(db: Db, keyHash: string): Promise<Account | null> {
  const row = await db
    .select({
      id: accounts.id,
      publicId: accounts.publicId,
      name: accounts.name,
      rateLimitPerMinute: accounts.rateLimitPerMinute,
      keyId: apiKeys.id,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .get();
  return row ?? null;
}

/**
 * Revokes one live key of the account; the hash of the key revoked (for the isolate's cache), or
 * null when the account holds no such live key.
 */
export async function revokeApiKey(
  db: Db,
  accountId: string,
  keyId: string,
  now: number,
): Promise<{ keyHash: string; revokedAt: number } | null> {
  const row = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
    .returning({ keyHash: apiKeys.keyHash })
    .get();
  return row ? { keyHash: row.keyHash, revokedAt: now } : null;
}
