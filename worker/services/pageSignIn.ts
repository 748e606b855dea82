import { providerUrlProblem } from "../domain/identityProvider";
import type { Bindings, Db } from "../env";
import { base64url, sha256, sha256Hex } from "../lib/hash";
import { randomBase62 } from "../lib/ids";
import { signingKey, signToken } from "../lib/jwt";
import {
  deleteExpiredSignIns,
  findIdentityProvider,
  type IdentityProvider,
  insertLinkGrant,
  insertSignInState,
  linkGrantUsable,
  redeemLinkGrant,
  takeSignInState,
} from "../store/identityProviders";
import { federatedPilot, urlPolicyOf } from "./pilotTokens";

/**
 * How the deep-link page knows who the pilot is (issue #25): never a typed user id, only a grant
 * bound to one pilot, used once. The builder puts one in the link when called with the pilot's
 * token; a sign-in at the account's provider (authorization code + PKCE, state and nonce checked)
 * ends with one.
 */

/** How long a grant in a link can be used (once). */
export const LINK_GRANT_LIFETIME_SECONDS = 15 * 60;
export const SIGN_IN_LIFETIME_MS = 10 * 60_000;
/** The in-process token the page creates the flight with: long enough for its three API calls. */
const PAGE_TOKEN_SECONDS = 120;
export const SIGNED_IN_PATH = "/create_flight/v1/signed_in";
export const SIGN_IN_PATH = "/create_flight/v1/sign_in";

/** What the page's sign-in section shows. */
export type PageSignIn =
  | { kind: "grant" }
  | { kind: "grantUsed"; providerUrl?: string }
  | { kind: "provider"; url: string; issuer: string }
  | { kind: "none" };

export async function issueLinkGrant(db: Db, accountId: string, pilotId: string, nowMs = Date.now()) {
  const grant = `wsg_${randomBase62(40)}`;
  const expiresAt = nowMs + LINK_GRANT_LIFETIME_SECONDS * 1000;
  await insertLinkGrant(db, grant, accountId, pilotId, expiresAt);
  return { grant, expiresAt };
}

/** The sign-in the page offers for this link. */
export async function pageSignIn(
  env: Bindings,
  db: Db,
  accountId: string,
  query: URLSearchParams,
): Promise<PageSignIn> {
  const grant = query.get("grant");
  const provider = await usableProvider(env, db, accountId);
  const providerUrl = provider ? signInUrl(query) : undefined;
  if (grant) {
    if (await linkGrantUsable(db, grant, accountId, Date.now())) return { kind: "grant" };
    return providerUrl ? { kind: "grantUsed", providerUrl } : { kind: "grantUsed" };
  }
  if (provider && providerUrl) return { kind: "provider", url: providerUrl, issuer: provider.issuer };
  return { kind: "none" };
}

function signInUrl(query: URLSearchParams): string {
  const linkQuery = new URLSearchParams(query);
  linkQuery.delete("grant");
  return `${SIGN_IN_PATH}?${linkQuery}`;
}

/** The account's provider when the page can send pilots to it; null otherwise. */
async function usableProvider(env: Bindings, db: Db, accountId: string): Promise<IdentityProvider | null> {
  const provider = await findIdentityProvider(db, accountId);
  if (!provider?.authorizationEndpoint || !provider.tokenEndpoint || !provider.clientId) return null;
  const policy = urlPolicyOf(env, provider);
  if (
    providerUrlProblem(provider.authorizationEndpoint, policy) ||
    providerUrlProblem(provider.tokenEndpoint, policy)
  )
    return null;
  return provider;
}

/** Uses the grant: a short-lived token of its pilot for the page's API calls, or null when spent. */
export async function redeemForToken(env: Bindings, db: Db, accountId: string, grant: string) {
  const pilotId = await redeemLinkGrant(db, grant, accountId, Date.now());
  if (!pilotId) return null;
  const iat = Math.floor(Date.now() / 1000);
  const token = await signToken(
    { iss: env.JWT_ISSUER, sub: pilotId, aud: accountId, iat, exp: iat + PAGE_TOKEN_SECONDS },
    await signingKey(env.JWT_PRIVATE_KEY),
  );
  return { pilotId, token };
}

/**
 * The cookie that binds a sign-in to the browser that started it (login CSRF: a `signed_in` URL
 * handed to another browser signs nobody in there). One per sign-in, so two tabs each finish theirs.
 */
export const signInCookieName = (state: string) => `windsock_sign_in_${state}`;

/** The browser that starts a sign-in gets `secret` in its cookie; the state row keeps its hash. */
export interface BrowserBinding {
  cookieName: string;
  secret: string;
}

/**
 * Starts the authorization code flow at the account's provider: state, nonce and the PKCE verifier
 * are kept (single use, 10 minutes) with the hash of the browser's cookie; the answer is where to
 * send the browser and the cookie to give it.
 */
export async function startProviderSignIn(
  env: Bindings,
  db: Db,
  accountId: string,
  linkQuery: URLSearchParams,
  origin: string,
): Promise<{ ok: true; redirect: string; browser: BrowserBinding } | { ok: false; problem: string }> {
  const provider = await usableProvider(env, db, accountId);
  if (!provider)
    return { ok: false, problem: "this application has no identity provider its pilots can sign in with" };
  const state = randomBase62(32);
  const nonce = randomBase62(32);
  const codeVerifier = randomBase62(64);
  const browser = { cookieName: signInCookieName(state), secret: randomBase62(32) };
  const query = new URLSearchParams(linkQuery);
  query.delete("grant");
  await insertSignInState(
    db,
    {
      state,
      accountId,
      nonce,
      codeVerifier,
      browserHash: await sha256Hex(browser.secret),
      expiresAt: Date.now() + SIGN_IN_LIFETIME_MS,
    },
    query.toString(),
  );
  const url = new URL(provider.authorizationEndpoint!);
  url.searchParams.set("client_id", provider.clientId!);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", "openid");
  url.searchParams.set("redirect_uri", `${origin}${SIGNED_IN_PATH}`);
  url.searchParams.set("state", state);
  url.searchParams.set("nonce", nonce);
  url.searchParams.set("code_challenge", base64url(await sha256(codeVerifier)));
  url.searchParams.set("code_challenge_method", "S256");
  return { ok: true, redirect: url.href, browser };
}

/**
 * Ends the sign-in: the state taken once, in the browser that started it (its cookie's secret), the
 * code exchanged with its verifier, the ID token checked (keys, issuer, audience, expiry, nonce); the
 * answer is the link's page with a grant for the pilot.
 */
export async function finishProviderSignIn(
  env: Bindings,
  db: Db,
  params: { state?: string; code?: string; error?: string; errorDescription?: string },
  origin: string,
  browserSecret: string | undefined,
): Promise<{ ok: true; redirect: string } | { ok: false; problem: string }> {
  if (!params.state) return { ok: false, problem: "the provider's answer has no state" };
  const signIn = await takeSignInState(db, params.state, Date.now());
  if (!signIn) return { ok: false, problem: "this sign-in is unknown, used or expired: open the link again" };
  if (!browserSecret || (await sha256Hex(browserSecret)) !== signIn.browserHash)
    return {
      ok: false,
      problem:
        "this sign-in was started in another browser, so it signs nobody in here: open the link again in this browser",
    };
  if (params.error)
    return {
      ok: false,
      problem: `the identity provider refused: ${params.errorDescription ?? params.error}`,
    };
  if (!params.code) return { ok: false, problem: "the provider's answer has no code" };
  const provider = await usableProvider(env, db, signIn.accountId);
  if (!provider) return { ok: false, problem: "this application's identity provider is no longer set" };
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code: params.code,
    redirect_uri: `${origin}${SIGNED_IN_PATH}`,
    client_id: provider.clientId!,
    code_verifier: signIn.codeVerifier,
  });
  if (provider.clientSecret) form.set("client_secret", provider.clientSecret);
  const response = await fetch(provider.tokenEndpoint!, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: form,
    redirect: "manual",
    signal: AbortSignal.timeout(10_000),
  }).catch(() => null);
  const body = (await response?.json().catch(() => null)) as Record<string, unknown> | null;
  if (!response?.ok || typeof body?.id_token !== "string")
    return {
      ok: false,
      problem: `the identity provider did not sign the pilot in: ${String(body?.error_description ?? body?.error ?? response?.status ?? "unreachable")}`,
    };
  let pilotId: string;
  try {
    pilotId = (await federatedPilot(env, db, body.id_token, provider, signIn.nonce)).pilotId;
  } catch (err) {
    return { ok: false, problem: err instanceof Error ? err.message : String(err) };
  }
  const { grant } = await issueLinkGrant(db, signIn.accountId, pilotId);
  const back = new URLSearchParams(signIn.linkQuery);
  back.set("grant", grant);
  return { ok: true, redirect: `/create_flight/v1/?${back}` };
}

/** Expired sign-ins in progress, their links and expired grants, deleted (the Cron Trigger). */
export function forgetExpiredSignIns(db: Db, nowMs = Date.now()): Promise<number> {
  return deleteExpiredSignIns(db, nowMs);
}
