import { and, eq, isNull, or } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import type * as schema from "../../schema";
import { accounts, apiKeys } from "../../schema";
import type { Account, Db } from "../env";

/**
 * Any async drizzle database over the schema: the worker's D1, and the operator tools' (local state
 * or, through wrangler, the deployed database). The account and key functions below take either.
 */
export type SqlDb = BaseSQLiteDatabase<"async", unknown, typeof schema> &
  Pick<DrizzleD1Database<typeof schema>, "batch">;

export type NewAccount = typeof accounts.$inferInsert;
export type NewApiKey = typeof apiKeys.$inferInsert;

/** The account behind an API key hash, or null when the key is unknown or revoked. */
export async function findAccountByKeyHash(db: SqlDb, keyHash: string): Promise<Account | null> {
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

/** An account by its id or its public id (`app_…`). */
export async function findAccount(db: SqlDb, idOrPublicId: string) {
  const row = await db
    .select({ id: accounts.id, publicId: accounts.publicId, name: accounts.name })
    .from(accounts)
    .where(or(eq(accounts.id, idOrPublicId), eq(accounts.publicId, idOrPublicId)))
    .get();
  return row ?? null;
}

/** An account with its own rate limit, by its public id (`app_…`), or null. */
export async function findAccountByPublicId(db: SqlDb, publicId: string) {
  const row = await db
    .select({
      id: accounts.id,
      publicId: accounts.publicId,
      name: accounts.name,
      rateLimitPerMinute: accounts.rateLimitPerMinute,
    })
    .from(accounts)
    .where(eq(accounts.publicId, publicId))
    .get();
  return row ?? null;
}

/** Renames an account (its application's name, as pilots read it). */
export async function renameAccount(db: SqlDb, accountId: string, name: string): Promise<void> {
  await db.update(accounts).set({ name }).where(eq(accounts.id, accountId)).run();
}

/** Writes a key, and its account first when given, in one batch: never an account without its key. */
export async function insertApiKey(db: SqlDb, key: NewApiKey, account?: NewAccount): Promise<void> {
  const insertKey = db.insert(apiKeys).values(key);
  if (account) await db.batch([db.insert(accounts).values(account), insertKey]);
  else await insertKey.run();
}

/** Every key with its account, oldest first (never the key itself: only its prefix is stored). */
export function listApiKeys(db: SqlDb) {
  return db
    .select({
      keyId: apiKeys.id,
      prefix: apiKeys.prefix,
      name: apiKeys.name,
      accountId: apiKeys.accountId,
      accountName: accounts.name,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .orderBy(apiKeys.createdAt)
    .all();
}

/** Ids of the live keys whose id or prefix is `idOrPrefix` (a prefix may match several). */
export async function findLiveKeyIds(db: SqlDb, idOrPrefix: string): Promise<string[]> {
  const rows = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(or(eq(apiKeys.id, idOrPrefix), eq(apiKeys.prefix, idOrPrefix)), isNull(apiKeys.revokedAt)))
    .all();
  return rows.map((r) => r.id);
}

/** Marks one key revoked, whoever holds it (the operator's path; the holder's is `revokeApiKey`). */
export async function revokeApiKeyById(db: SqlDb, keyId: string, now: number): Promise<void> {
  await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .run();
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
