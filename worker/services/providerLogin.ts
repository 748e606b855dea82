import {
  type Grant,
  grantForm,
  PROVIDER_ALGORITHMS,
  type ProviderAnswer,
  providerUrlProblem,
  sdkTokens,
} from "../domain/identityProvider";
import { type LoginKeys, LoginThrottle } from "../domain/loginThrottle";
import type { Bindings, Db } from "../env";
import { TtlCache } from "../lib/ttlCache";
import { findIdentityProvider, type IdentityProvider } from "../store/identityProviders";
import { urlPolicyOf } from "./pilotTokens";

const TOKEN_ENDPOINT_TIMEOUT_MS = 10_000;

/** What an operator sets so that the SDK login routes work; named in the 4xx when it is missing. */
export const PROVIDER_SETTING =
  "npm run pilots:provider -- set --account <id> --issuer <url> --discovery-url <url> --audience <aud> --client-id <id>";

/** Password guessing held back per user name and per client address (domain/loginThrottle.ts). */
const throttle = new LoginThrottle();

/** Sign-in outcomes per application since the isolate started (GET /system/v1/sign_in_metrics). */
export interface SignInCounts {
  attempts: number;
  succeeded: number;
  /** The provider refused the credentials or the refresh token. */
  failed: number;
  /** Refused here, by the back-off, before the provider was asked. */
  throttled: number;
}
const counts = new Map<string, SignInCounts>();

export function signInCounts(accountId: string): SignInCounts {
  return { ...(counts.get(accountId) ?? { attempts: 0, succeeded: 0, failed: 0, throttled: 0 }) };
}

function count(accountId: string, outcome: keyof Omit<SignInCounts, "attempts">): void {
  const current = counts.get(accountId) ?? { attempts: 0, succeeded: 0, failed: 0, throttled: 0 };
  current.attempts += 1;
  current[outcome] += 1;
  counts.set(accountId, current);
}

/**
 * A sign-in as the SDK login routes make it: held back while the user name or the address is backing
 * off (the same answer for every name, known to the provider or not), otherwise passed to the
 * provider, its refusals counted and logged (never the password, nor the name).
 */
export async function signIn(
  env: Bindings,
  db: Db,
  accountId: string,
  grant: Grant,
  tokenType: "bearer" | "Bearer",
  address: string,
  now = Date.now(),
): Promise<ProviderAnswer> {
  const keys: LoginKeys = {
    address,
    ...(grant.grantType === "password"
      ? { user: `${accountId}\u0000${grant.username.trim().toLowerCase()}` }
      : {}),
  };
  const waitMs = throttle.begin(keys, now);
  if (waitMs > 0) {
    count(accountId, "throttled");
    const seconds = Math.ceil(waitMs / 1000);
    return {
      ok: false,
      status: 429,
      error: "too_many_attempts",
      description: `Too many failed sign-ins: try again in ${seconds} s`,
      retryAfterSeconds: seconds,
    };
  }
  const answer = await exchangeGrant(env, db, accountId, grant, tokenType);
  if (answer.ok) {
    throttle.succeeded(keys);
    count(accountId, "succeeded");
  } else if (answer.error === "invalid_grant") {
    count(accountId, "failed");
    console.warn(
      JSON.stringify({ level: "warn", msg: "sign-in refused", account: accountId, grant: grant.grantType }),
    );
  } else {
    throttle.unjudged(keys);
  }
  return answer;
}

/**
 * Passes a grant to the account's provider's token endpoint and answers in the SDKs' shape. The
 * password travels only in that one request: it is never logged, stored or put in an error.
 */
export async function exchangeGrant(
  env: Bindings,
  db: Db,
  accountId: string,
  grant: Grant,
  tokenType: "bearer" | "Bearer",
): Promise<ProviderAnswer> {
  // Read fresh, not from the token cache: an operator who just set the provider signs in at once.
  const provider = await findIdentityProvider(db, accountId);
  const unusable = unusableProvider(env, provider);
  if (unusable) return { ok: false, status: 400, error: "unauthorized_client", description: unusable };
  const { tokenEndpoint, clientId, clientSecret } = provider as IdentityProvider & {
    tokenEndpoint: string;
    clientId: string;
  };
  let response: Response;
  try {
    response = await fetch(tokenEndpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: grantForm(grant, clientId, clientSecret),
      redirect: "manual",
      signal: AbortSignal.timeout(TOKEN_ENDPOINT_TIMEOUT_MS),
    });
  } catch (err) {
    // The error names the endpoint and the failure, never the form (which holds the password).
    console.error(
      JSON.stringify({
        level: "error",
        msg: "identity provider unreachable",
        endpoint: tokenEndpoint,
        error: String(err),
      }),
    );
    return {
      ok: false,
      status: 502,
      error: "temporarily_unavailable",
      description: "the identity provider could not be reached; try again",
    };
  }
  const body = await response.json().catch(() => null);
  return sdkTokens(response.status, body, tokenType);
}

/** Why the account's provider cannot take a grant (naming the setting), or null when it can. */
function unusableProvider(env: Bindings, provider: IdentityProvider | null): string | null {
  if (!provider)
    return `This application has no identity provider for its pilots: the operator sets one with ${PROVIDER_SETTING}`;
  if (!provider.tokenEndpoint)
    return "The application's identity provider has no token endpoint: set --token-endpoint (or --discovery-url) with npm run pilots:provider";
  if (!provider.clientId)
    return "The application's identity provider has no client id: set --client-id with npm run pilots:provider";
  const problem = providerUrlProblem(provider.tokenEndpoint, urlPolicyOf(env, provider));
  if (problem) return `The identity provider's token endpoint ${problem}`;
  return null;
}

const DISCOVERY_CACHE_MS = 60_000;
const discoveries = new TtlCache<Record<string, unknown>>(1_000);

/**
 * The OpenID discovery document of the application's provider, for an SDK that discovers it at this
 * service's realm (the Swift SDK's issuer is `https://auth.<domain>/realms/airmap/`, Constants.swift
 * 89, and AppAuth reads `<issuer>.well-known/openid-configuration`): the provider's own document,
 * so the SDK signs in at the provider and checks its tokens' issuer against the provider's. Built
 * from the stored endpoints when the provider was set without a discovery URL. Null when the
 * application has no usable provider; a 502 problem when it cannot be read.
 */
export async function providerDiscovery(
  env: Bindings,
  db: Db,
  accountId: string,
): Promise<
  { ok: true; document: Record<string, unknown> } | { ok: false; status: 400 | 502; description: string }
> {
  const provider = await findIdentityProvider(db, accountId);
  if (!provider)
    return {
      ok: false,
      status: 400,
      description: `This application has no identity provider for its pilots: the operator sets one with ${PROVIDER_SETTING}`,
    };
  const cached = discoveries.get(provider.issuer);
  if (cached) return { ok: true, document: cached };
  let document: Record<string, unknown>;
  if (provider.discoveryUrl) {
    const problem = providerUrlProblem(provider.discoveryUrl, urlPolicyOf(env, provider));
    if (problem) return { ok: false, status: 502, description: `The provider's discovery URL ${problem}` };
    try {
      const response = await fetch(provider.discoveryUrl, {
        headers: { accept: "application/json" },
        redirect: "manual",
        signal: AbortSignal.timeout(TOKEN_ENDPOINT_TIMEOUT_MS),
      });
      const body = await response.json().catch(() => null);
      if (response.status !== 200 || typeof body !== "object" || body === null || Array.isArray(body))
        return {
          ok: false,
          status: 502,
          description: `the identity provider's discovery answered ${response.status}`,
        };
      document = body as Record<string, unknown>;
    } catch {
      return { ok: false, status: 502, description: "the identity provider could not be reached; try again" };
    }
  } else {
    document = {
      issuer: provider.issuer,
      jwks_uri: provider.jwksUrl,
      ...(provider.authorizationEndpoint ? { authorization_endpoint: provider.authorizationEndpoint } : {}),
      ...(provider.tokenEndpoint ? { token_endpoint: provider.tokenEndpoint } : {}),
      response_types_supported: ["code"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: [...PROVIDER_ALGORITHMS],
    };
  }
  discoveries.set(provider.issuer, document, DISCOVERY_CACHE_MS);
  return { ok: true, document };
}

/**
 * Signs a pilot out as the Swift SDK's logout asks (OpenIdClient.swift 32–42: the refresh token and
 * client id, form-encoded, to `<issuer>protocol/openid-connect/logout`): the refresh token is revoked
 * at the provider's RFC 7009 revocation endpoint with the application's client, so it renews nothing
 * more. A provider that publishes no revocation endpoint cannot be asked: the token then lapses at
 * its own expiry (`revoked: false`), and the SDK forgets it either way.
 */
export async function signOut(
  env: Bindings,
  db: Db,
  accountId: string,
  refreshToken: string,
): Promise<
  { ok: true; revoked: boolean } | { ok: false; status: 400 | 502; error: string; description: string }
> {
  const provider = await findIdentityProvider(db, accountId);
  const unusable = unusableProvider(env, provider);
  if (unusable) return { ok: false, status: 400, error: "unauthorized_client", description: unusable };
  const discovery = await providerDiscovery(env, db, accountId);
  if (!discovery.ok)
    return {
      ok: false,
      status: discovery.status,
      error: "temporarily_unavailable",
      description: discovery.description,
    };
  const endpoint = discovery.document.revocation_endpoint;
  if (typeof endpoint !== "string") return { ok: true, revoked: false };
  const { clientId, clientSecret } = provider as IdentityProvider & { clientId: string };
  const problem = providerUrlProblem(endpoint, urlPolicyOf(env, provider!));
  if (problem)
    return {
      ok: false,
      status: 502,
      error: "temporarily_unavailable",
      description: `The provider's revocation endpoint ${problem}`,
    };
  const form = new URLSearchParams({
    token: refreshToken,
    token_type_hint: "refresh_token",
    client_id: clientId,
  });
  if (clientSecret) form.set("client_secret", clientSecret);
  try {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form,
      redirect: "manual",
      signal: AbortSignal.timeout(TOKEN_ENDPOINT_TIMEOUT_MS),
    });
    await response.body?.cancel();
    // RFC 7009 §2.2: 200 also for a token that was already invalid; anything else is the provider's failure.
    if (response.status !== 200)
      return {
        ok: false,
        status: 502,
        error: "temporarily_unavailable",
        description: `the identity provider's revocation endpoint answered ${response.status}`,
      };
  } catch {
    return {
      ok: false,
      status: 502,
      error: "temporarily_unavailable",
      description: "the identity provider could not be reached; try again",
    };
  }
  return { ok: true, revoked: true };
}
