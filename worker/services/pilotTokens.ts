import { decodeJwt, type JWTVerifyGetKey } from "jose";
import {
  federatedUserId,
  JWKS_MAX_AGE_MS,
  JWKS_REFETCH_COOLDOWN_MS,
  PROVIDER_ALGORITHMS,
  providerUrlProblem,
} from "../domain/identityProvider";
import type { Bindings, Db } from "../env";
import { unauthorized } from "../lib/errors";
import { signingKey, verifyJwt, verifyToken } from "../lib/jwt";
import { RemoteKeySet } from "../lib/remoteKeySet";
import { TtlCache } from "../lib/ttlCache";
import {
  ensureFederatedPilot,
  federatedPilotId,
  findIdentityProvider,
  type IdentityProvider,
} from "../store/identityProviders";

/** A pilot token's pilot, and when the token expires (UNIX seconds): live access stops then. */
export interface PilotOfToken {
  pilotId: string;
  expiresAt: number;
  /**
   * A provider's token: its `sub`, which the SDKs take for the pilot's id (Android AirMap.java
   * `jwt.getSubject()`, Swift AuthService.swift 201–205); routes taking a pilot id read it as this pilot.
   */
  subject?: string;
}

/** How long an isolate trusts an account's provider setting: a change applies within this. */
export const PROVIDER_CACHE_MS = 10_000;
const providers = new TtlCache<IdentityProvider | null>(10_000);
/** Federated pilots already written in this isolate: no D1 write per request. */
const ensuredPilots = new TtlCache<true>(10_000);
/** One remote key set per JWKS URL and isolate: one fetch at a time, at most one per cooldown. */
const keySets = new Map<string, RemoteKeySet>();

/**
 * The pilot of a bearer token for the account: one of this service's own tokens (ES256, our issuer,
 * `aud` the account), or one of the account's own OpenID Connect provider, which maps to a stable
 * pilot per account, issuer and user. Anything else is a 401 that says why.
 */
export async function pilotOfBearer(
  env: Bindings,
  db: Db,
  token: string,
  accountId: string,
): Promise<PilotOfToken> {
  const issuer = unverifiedIssuer(token);
  if (issuer === undefined || issuer === env.JWT_ISSUER) {
    const result = await verifyToken(token, await signingKey(env.JWT_PRIVATE_KEY), env.JWT_ISSUER);
    if (!result.ok) throw unauthorized(`Invalid token: ${result.reason}`);
    if (result.claims.aud !== accountId) throw unauthorized("Invalid token: issued to another application");
    return { pilotId: result.claims.sub, expiresAt: result.claims.exp };
  }
  const provider = await providerOf(db, accountId);
  if (!provider || provider.issuer !== issuer)
    throw unauthorized(`Invalid token: this application does not trust the issuer ${JSON.stringify(issuer)}`);
  return federatedPilot(env, db, token, provider);
}

/**
 * The pilot of one of the provider's tokens: signature by its published keys (RS256 or ES256),
 * its issuer and audience, `exp` and `nbf` (CLOCK_LEEWAY_SECONDS of skew on `nbf` and `iat`), and,
 * for an ID token from a sign-in this service started, the `nonce` it sent.
 */
export async function federatedPilot(
  env: Bindings,
  db: Db,
  token: string,
  provider: IdentityProvider,
  expectedNonce?: string,
): Promise<PilotOfToken> {
  const result = await verifyJwt(
    token,
    [{ key: keySetOf(env, provider), issuer: provider.issuer, name: provider.jwksUrl }],
    { algorithms: [...PROVIDER_ALGORITHMS], audiences: [provider.audience] },
  );
  if (!result.ok) throw unauthorized(`Invalid token: ${result.reason}`);
  if (expectedNonce !== undefined && result.claims.nonce !== expectedNonce)
    throw unauthorized("Invalid token: its nonce is not the one this sign-in sent");
  const user = result.claims[provider.userClaim];
  if (typeof user !== "string" || user === "")
    throw unauthorized(`Invalid token: it lacks the ${provider.userClaim} claim that names the user`);
  const userId = federatedUserId(provider.issuer, user);
  const cacheKey = `${provider.accountId}\u0000${userId}`;
  const pilotId = await ensureFederatedPilotOnce(db, provider.accountId, userId, cacheKey);
  const subject = typeof result.claims.sub === "string" && result.claims.sub ? result.claims.sub : undefined;
  return { pilotId, expiresAt: result.claims.exp, ...(subject ? { subject } : {}) };
}

async function ensureFederatedPilotOnce(db: Db, accountId: string, userId: string, cacheKey: string) {
  if (ensuredPilots.has(cacheKey)) return federatedPilotId(accountId, userId);
  const pilotId = await ensureFederatedPilot(db, accountId, userId, Date.now());
  ensuredPilots.set(cacheKey, true, 60_000);
  return pilotId;
}

/** The account's provider, read from D1 at most once per PROVIDER_CACHE_MS per isolate. */
export async function providerOf(db: Db, accountId: string): Promise<IdentityProvider | null> {
  if (providers.has(accountId)) return providers.get(accountId) ?? null;
  const provider = await findIdentityProvider(db, accountId);
  providers.set(accountId, provider, PROVIDER_CACHE_MS);
  return provider;
}

/** Drops cached provider settings; tests call it after changing one behind the worker's back. */
export function clearProviderCache(): void {
  providers.clear();
}

/** Whether a provider's URLs may be called from here: loopback only for a development provider. */
export function urlPolicyOf(env: Bindings, provider: Pick<IdentityProvider, "allowLoopback">) {
  return { allowLoopback: provider.allowLoopback && env.ENVIRONMENT === "development" };
}

function keySetOf(env: Bindings, provider: IdentityProvider): JWTVerifyGetKey {
  const problem = providerUrlProblem(provider.jwksUrl, urlPolicyOf(env, provider));
  if (problem) throw unauthorized(`Invalid token: the provider's JWKS URL ${problem}`);
  let keySet = keySets.get(provider.jwksUrl);
  if (!keySet) {
    keySet = new RemoteKeySet(new URL(provider.jwksUrl), {
      cooldownMs: JWKS_REFETCH_COOLDOWN_MS,
      maxAgeMs: JWKS_MAX_AGE_MS,
      timeoutMs: 5_000,
    });
    keySets.set(provider.jwksUrl, keySet);
  }
  return keySet.getKey;
}

function unverifiedIssuer(token: string): string | undefined {
  try {
    const { iss } = decodeJwt(token);
    return typeof iss === "string" ? iss : undefined;
  } catch {
    return undefined;
  }
}
