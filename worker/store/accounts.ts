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
