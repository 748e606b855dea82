import type { Account, Bindings, Db } from "../env";
import { TtlCache } from "../lib/ttlCache";
import { findAccountByPublicId } from "../store/accounts";
import { findAccountsByProviderClientId } from "../store/identityProviders";

/**
 * The application of an SDK sign-in that carries no API key (issue #35): the C++ SDK's SSO requester
 * posts /oauth/ro and /delegation without one (platform-sdk src/airmap/rest/client.cpp,
 * `requesters.sso`), and the Swift SDK's OpenID discovery asks the realm without one. What they send
 * instead names the application: the realm (an application's public id), the `client_id` of the
 * application's client at its identity provider, or else the deployment's SDK_LOGIN_APPLICATION.
 */

export type LoginApplication =
  | { ok: true; account: Account }
  | { ok: false; status: 400 | 401; error: string; description: string };

/**
 * The rate-limit bucket of an application's keyless sign-ins: its own per-minute limit, as a key of
 * the application gets, counted apart from its keys.
 */
export const KEYLESS_LOGIN_BUCKET = "sdk-login:";

const LOOKUP_CACHE_MS = 10_000;
const lookups = new TtlCache<LoginApplication>(10_000);

const asAccount = (row: Omit<Account, "keyId">): Account => ({
  ...row,
  keyId: `${KEYLESS_LOGIN_BUCKET}${row.id}`,
});

/** The application named by what the SDK sent, or why none is (in the OAuth words the SDKs show). */
export async function loginApplication(
  env: Pick<Bindings, "SDK_LOGIN_APPLICATION">,
  db: Db,
  sent: { clientId?: string; realm?: string },
): Promise<LoginApplication> {
  const cacheKey = JSON.stringify([
    sent.clientId ?? null,
    sent.realm ?? null,
    env.SDK_LOGIN_APPLICATION ?? null,
  ]);
  const cached = lookups.get(cacheKey);
  if (cached) return cached;
  const found = await lookUp(env, db, sent);
  lookups.set(cacheKey, found, LOOKUP_CACHE_MS);
  return found;
}

async function lookUp(
  env: Pick<Bindings, "SDK_LOGIN_APPLICATION">,
  db: Db,
  sent: { clientId?: string; realm?: string },
): Promise<LoginApplication> {
  if (sent.realm) {
    const named = await findAccountByPublicId(db, sent.realm);
    if (named) return { ok: true, account: asAccount(named) };
  }
  const fallback = env.SDK_LOGIN_APPLICATION?.trim() || undefined;
  if (sent.clientId) {
    const matches = await findAccountsByProviderClientId(db, sent.clientId);
    if (matches.length === 1) return { ok: true, account: asAccount(matches[0]!) };
    if (matches.length > 1) {
      // Several applications share the client id: only the deployment's default can pick among them.
      const chosen = fallback ? await findAccountByPublicId(db, fallback) : null;
      const shared = chosen && (await findAccountsByProviderClientId(db, sent.clientId, 1_000));
      if (chosen && shared?.some((a) => a.id === chosen.id)) return { ok: true, account: asAccount(chosen) };
      return {
        ok: false,
        status: 400,
        error: "invalid_client",
        description: `client_id ${sent.clientId} is the client of several applications here: send the application's X-API-Key`,
      };
    }
    return {
      ok: false,
      status: 401,
      error: "invalid_client",
      description: `client_id ${sent.clientId} is no application's client here: send the client id its operator set with npm run pilots:provider, or the application's X-API-Key`,
    };
  }
  if (fallback) {
    const chosen = await findAccountByPublicId(db, fallback);
    if (chosen) return { ok: true, account: asAccount(chosen) };
  }
  return {
    ok: false,
    status: 401,
    error: "invalid_client",
    description:
      "No application is named: send client_id (the application's client at its identity provider) or X-API-Key",
  };
}

/** Drops remembered look-ups; tests call it after changing providers behind the worker's back. */
export function clearLoginApplications(): void {
  lookups.clear();
}
