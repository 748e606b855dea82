import { and, eq, gt, isNull, lte, sql } from "drizzle-orm";
import { accounts, identityProviders, pilotLinkGrants, signInLinks, signInStates } from "../../schema";
import type { Db } from "../env";
import { sha256, sha256Hex } from "../lib/hash";
import { base62OfBytes } from "../lib/ids";
import type { SqlDb } from "./accounts";
import { insertPilot } from "./pilots";

export type IdentityProvider = typeof identityProviders.$inferSelect;
export type NewIdentityProvider = Omit<IdentityProvider, "createdAt" | "updatedAt">;

export async function findIdentityProvider(db: SqlDb, accountId: string): Promise<IdentityProvider | null> {
  return (
    (await db.select().from(identityProviders).where(eq(identityProviders.accountId, accountId)).get()) ??
    null
  );
}

/** The applications that sign pilots in at a provider client with this id (one, as a rule). */
export async function findAccountsByProviderClientId(db: SqlDb, clientId: string, limit = 2) {
  return db
    .select({
      id: accounts.id,
      publicId: accounts.publicId,
      name: accounts.name,
      rateLimitPerMinute: accounts.rateLimitPerMinute,
    })
    .from(identityProviders)
    .innerJoin(accounts, eq(accounts.id, identityProviders.accountId))
    .where(eq(identityProviders.clientId, clientId))
    .limit(limit)
    .all();
}

/** Sets (or replaces) the account's provider. */
export async function saveIdentityProvider(
  db: SqlDb,
  provider: NewIdentityProvider,
  now: number,
): Promise<void> {
  await db
    .insert(identityProviders)
    .values({ ...provider, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: identityProviders.accountId, set: { ...provider, updatedAt: now } })
    .run();
}

export async function removeIdentityProvider(db: SqlDb, accountId: string): Promise<boolean> {
  const removed = await db
    .delete(identityProviders)
    .where(eq(identityProviders.accountId, accountId))
    .returning({ accountId: identityProviders.accountId })
    .get();
  return removed !== undefined;
}

export function listIdentityProviders(db: SqlDb) {
  return db.select().from(identityProviders).all();
}

/**
 * A federated user's pilot: the same provider user under the same account is always the same pilot.
 * Hashed apart from anonymous pilots (store/pilots.ts `pilotIdFor`), so no user id names one.
 */
export async function federatedPilotId(accountId: string, userId: string): Promise<string> {
  return `pilot|${base62OfBytes(await sha256(`federated\u0000${accountId}\u0000${userId}`), 22)}`;
}

export async function ensureFederatedPilot(
  db: Db,
  accountId: string,
  userId: string,
  now: number,
): Promise<string> {
  const id = await federatedPilotId(accountId, userId);
  await insertPilot(db, { id, accountId, userId }, now);
  return id;
}

/** Keeps a deep-link grant (its hash) for one pilot until `expiresAt`. */
export async function insertLinkGrant(
  db: Db,
  grant: string,
  accountId: string,
  pilotId: string,
  expiresAt: number,
): Promise<void> {
  await db
    .insert(pilotLinkGrants)
    .values({ grantHash: await sha256Hex(grant), accountId, pilotId, expiresAt })
    .run();
}

/** Uses the grant once: its pilot when it is the account's, unused and unexpired; null otherwise. */
export async function redeemLinkGrant(
  db: Db,
  grant: string,
  accountId: string,
  now: number,
): Promise<string | null> {
  const row = await db
    .update(pilotLinkGrants)
    .set({ usedAt: now })
    .where(
      and(
        eq(pilotLinkGrants.grantHash, await sha256Hex(grant)),
        eq(pilotLinkGrants.accountId, accountId),
        isNull(pilotLinkGrants.usedAt),
        gt(pilotLinkGrants.expiresAt, now),
      ),
    )
    .returning({ pilotId: pilotLinkGrants.pilotId })
    .get();
  return row?.pilotId ?? null;
}

/** Whether the grant is still usable (the page shows the form only then); reads, does not use it. */
export async function linkGrantUsable(
  db: Db,
  grant: string,
  accountId: string,
  now: number,
): Promise<boolean> {
  const row = await db
    .select({ pilotId: pilotLinkGrants.pilotId })
    .from(pilotLinkGrants)
    .where(
      and(
        eq(pilotLinkGrants.grantHash, await sha256Hex(grant)),
        eq(pilotLinkGrants.accountId, accountId),
        isNull(pilotLinkGrants.usedAt),
        gt(pilotLinkGrants.expiresAt, now),
      ),
    )
    .get();
  return row !== undefined;
}

export type SignInState = typeof signInStates.$inferSelect;

/** A sign-in in progress, and its link's query (kept once per link, as long as its last sign-in). */
export async function insertSignInState(
  db: Db,
  state: Omit<SignInState, "linkHash">,
  linkQuery: string,
): Promise<void> {
  const linkHash = await sha256Hex(linkQuery);
  await db.batch([
    db
      .insert(signInLinks)
      .values({ linkHash, linkQuery, expiresAt: state.expiresAt })
      .onConflictDoUpdate({
        target: signInLinks.linkHash,
        set: { expiresAt: sql`max(${signInLinks.expiresAt}, excluded.expires_at)` },
      }),
    db.insert(signInStates).values({ ...state, linkHash }),
  ]);
}

/**
 * Takes the sign-in once (its row is deleted): the state and its link's query when unexpired; null for
 * a replay, a forgery or an expired one.
 */
export async function takeSignInState(
  db: Db,
  state: string,
  now: number,
): Promise<(SignInState & { linkQuery: string }) | null> {
  const taken = await db.delete(signInStates).where(eq(signInStates.state, state)).returning().get();
  if (!taken || taken.expiresAt <= now) return null;
  const link = await db
    .select({ linkQuery: signInLinks.linkQuery })
    .from(signInLinks)
    .where(eq(signInLinks.linkHash, taken.linkHash))
    .get();
  return link ? { ...taken, linkQuery: link.linkQuery } : null;
}

/** Deletes expired sign-ins, their links and expired grants (the Cron Trigger); the rows deleted. */
export async function deleteExpiredSignIns(db: Db, now: number): Promise<number> {
  const results = await db.batch([
    db.delete(signInStates).where(lte(signInStates.expiresAt, now)),
    db.delete(signInLinks).where(lte(signInLinks.expiresAt, now)),
    db.delete(pilotLinkGrants).where(lte(pilotLinkGrants.expiresAt, now)),
  ]);
  return results.reduce((sum, r) => sum + (r.meta.changes ?? 0), 0);
}
