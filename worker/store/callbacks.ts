import { and, asc, eq, exists, isNull, type SQL } from "drizzle-orm";
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

/** An application a deep link may name, with the callback prefixes its links may return to. */
export interface LinkAccount {
  id: string;
  publicId: string;
  name: string;
  rateLimitPerMinute: number | null;
  callbackPrefixes: string[];
}

/** The live account a deep link names by its public `client_id`, with its callback prefixes: one query. */
export function findLinkAccount(db: Db, clientId: string): Promise<LinkAccount | null> {
  return linkAccountWhere(
    db,
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
  );
}

/** The account that `which` picks, with its callback prefixes folded from the joined rows: one query. */
export async function linkAccountWhere(db: Db, which: SQL | undefined): Promise<LinkAccount | null> {
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
    .where(which)
    .all();
  const first = rows[0];
  if (!first) return null;
  const { prefix: _, ...account } = first;
  return { ...account, callbackPrefixes: rows.flatMap((r) => (r.prefix === null ? [] : [r.prefix])) };
}
