import { and, eq, isNull } from "drizzle-orm";
import { apiKeys } from "../../schema";
import { FIRST_PARTY_PUBLIC_ID } from "../domain/deeplink/firstParty";
import type { Db } from "../env";
import { TtlCache } from "../lib/ttlCache";
import { findLinkAccount } from "../store/callbacks";
import { findFirstPartyAccount } from "../store/firstPartyAccount";

/**
 * Revocation and expiry reach live access (issue #25): tickets and open streams are bound to the
 * API key that opened them (and the pilot token's expiry). A revoked key stops them within
 * LIVE_REVOCATION_MS: the flight's Durable Object checks its streams' keys every LIVE_CHECK_MS
 * (telemetry/liveFeed.ts), and an isolate trusts a key's state for at most KEY_STATE_CACHE_MS, so
 * the two add up to less than the documented 10 s.
 */
export const LIVE_REVOCATION_MS = 10_000;
export const LIVE_CHECK_MS = 5_000;
const KEY_STATE_CACHE_MS = 4_000;

const keyStates = new TtlCache<boolean>(10_000);

const PAGE_KEY = "page|";

/**
 * The deep-link page calls the API in its application's name without a key of its own: this id
 * stands for it, and what it opened lives as long as the application does (its links likewise).
 */
export const pageKeyId = (publicId: string) => `${PAGE_KEY}${publicId}`;

/** Whether the key (by id) is stored and not revoked; read from D1 at most every 4 s per isolate. */
export async function keyStillLive(db: Db, keyId: string): Promise<boolean> {
  const cached = keyStates.get(keyId);
  if (cached !== undefined) return cached;
  const live = keyId.startsWith(PAGE_KEY)
    ? await applicationLive(db, keyId.slice(PAGE_KEY.length))
    : (await db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
        .get()) !== undefined;
  keyStates.set(keyId, live, KEY_STATE_CACHE_MS);
  return live;
}

/** The service's own application always; a partner's while one of its keys is live. */
async function applicationLive(db: Db, publicId: string): Promise<boolean> {
  const account =
    publicId === FIRST_PARTY_PUBLIC_ID
      ? await findFirstPartyAccount(db)
      : await findLinkAccount(db, publicId);
  return account !== null;
}

/** The isolate that revokes a key stops its tickets and streams at their next check. */
export function forgetKeyState(keyId: string): void {
  keyStates.delete(keyId);
}
