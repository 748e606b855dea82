import { and, asc, eq, exists, isNull } from "drizzle-orm";
import { accounts, apiKeys, callbackPrefixes } from "../../schema";
import type { Db } from "../env";

export interface CallbackPrefix {
  url: string;
  created_at: string;
}

export async function listCallbackPrefixes(db: Db, accountId: string): Promise<CallbackPrefix[]> {
  const rows = await db
    .select({ url: callbackPrefixes.url, createdAt: callbackPrefixes.createdAt })
    .from(callbackPrefixes)
    .where(eq(callbackPrefixes.accountId, accountId))
    .orderBy(asc(callbackPrefixes.createdAt), asc(callbackPrefixes.url))
    .all();
  return rows.map((r) => ({ url: r.url, created_at: new Date(r.createdAt).toISOString() }));
}

/** Registers a normalized prefix; registering it again keeps the first registration. */
export async function addCallbackPrefix(db: Db, accountId: string, url: string, now: number): Promise<void> {
  await db.insert(callbackPrefixes).values({ accountId, url, createdAt: now }).onConflictDoNothing().run();
}

/** The live account a deep link names by its public `client_id`, with its callback prefixes: one query. */
export async function findLinkAccount(
  db: Db,
  clientId: string,
): Promise<{
  id: string;
  publicId: string;
  name: string;
  rateLimitPerMinute: number | null;
  callbackPrefixes: string[];
} | null> {
  const rows = await db
    .select({
      id: accounts.id,
      publicId: accounts.publicId,
      name: accounts.name,
      rateLimitPerMinute: accounts.rateLimitPerMinute,
      prefix: callbackPrefixes.url,
    })
    .from(accounts)
    .leftJoin(callbackPrefixes, eq(callbackPrefixes.accountId, accounts.id))
    .where(
      and(
        eq(accounts.publicId, clientId),
        // An application whose keys are all revoked is switched off: its links stop working too.
        exists(
          db
            .select({ id: apiKeys.id })
            .from(apiKeys)
            .where(and(eq(apiKeys.accountId, accounts.id), isNull(apiKeys.revokedAt))),
        ),
      ),
    )
    .all();
  const first = rows[0];
  if (!first) return null;
  const prefixes = rows.flatMap((r) => (r.prefix === null ? [] : [r.prefix]));
  return {
    id: first.id,
    publicId: first.publicId,
    name: first.name,
    rateLimitPerMinute: first.rateLimitPerMinute,
    callbackPrefixes: prefixes,
  };
}
