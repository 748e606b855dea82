import { eq } from "drizzle-orm";
import { accounts, callbackPrefixes } from "../../schema";
import { FIRST_PARTY_ACCOUNT_ID } from "../domain/deeplink/firstParty";
import type { Db } from "../env";
import type { findLinkAccount } from "./callbacks";

export type LinkAccount = NonNullable<Awaited<ReturnType<typeof findLinkAccount>>>;

/**
 * The service's own application with its allowed callback prefixes: one query. Unlike a partner's
 * account it has no API key to revoke, so none is required; null only before migration 0008.
 */
export async function findFirstPartyAccount(db: Db): Promise<LinkAccount | null> {
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
    .where(eq(accounts.id, FIRST_PARTY_ACCOUNT_ID))
    .all();
  const first = rows[0];
  if (!first) return null;
  const { prefix: _, ...account } = first;
  return { ...account, callbackPrefixes: rows.flatMap((r) => (r.prefix === null ? [] : [r.prefix])) };
}
