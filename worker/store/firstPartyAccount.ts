import { eq } from "drizzle-orm";
import { accounts } from "../../schema";
import { FIRST_PARTY_ACCOUNT_ID } from "../domain/deeplink/firstParty";
import type { Db } from "../env";
import { type LinkAccount, linkAccountWhere } from "./callbacks";

export type { LinkAccount };

/**
 * The service's own application with its allowed callback prefixes: one query. Unlike a partner's
 * account it has no API key to revoke, so none is required; null only before migration 0008.
 */
export function findFirstPartyAccount(db: Db): Promise<LinkAccount | null> {
  return linkAccountWhere(db, eq(accounts.id, FIRST_PARTY_ACCOUNT_ID));
}
