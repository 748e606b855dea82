import type { Context, MiddlewareHandler } from "hono";
import { createLocalJWKSet, decodeJwt, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import type { AppEnv, Bindings } from "../env";
import { type KeySource, signingKey, verifyJwt } from "../lib/jwt";
import { configuredOrigin } from "../lib/publicOrigin";
import { RemoteKeySet } from "../lib/remoteKeySet";

/**
 * Bearer JWTs as InterUSS sends them to the automated-testing interfaces (and, later, F3411 network
 * Remote ID): RS256 or ES256, signed by a configured authority's keys, with a space-separated
 * `scope` claim and `aud` = this service's host name. 401 without a valid token, 403 without the
 * endpoint's scope. Not CONTRACT §3's API key or pilot tokens: the qualifier has neither.
 *
 * Keys: `INTERUSS_PUBLIC_KEYS` (a JWK Set as JSON) and/or `INTERUSS_JWKS_URL` (fetched, kept 10 min);
 * verification is worker/lib/jwt.ts's, on jose.
 * `INTERUSS_ISSUER`, when set, must equal `iss`. `INTERUSS_AUDIENCE` (comma list) replaces the host.
 * In development the service also trusts its own key (JWT_PRIVATE_KEY) for tokens whose `iss` is
 * DEV_ISSUER, which `npm run interuss:token` mints; pilot tokens carry another `iss` and fail.
 */

export const SCOPES = {
  geospatialMapDirect: "interuss.geospatial_map.direct_automated_test",
  geospatialMapQuery: "interuss.geospatial_map.query",
  flightPlanningDirect: "interuss.flight_planning.direct_automated_test",
  flightPlanningPlan: "interuss.flight_planning.plan",
  ridDisplayProvider: "rid.display_provider",
  ridServiceProvider: "rid.service_provider",
  ridInjection: "rid.inject_test_data",
} as const;

/** `iss` of the tokens the development key signs (tools/interussToken.ts). */
export const DEV_ISSUER = "windsock-development-interuss";
/** The interfaces say `exp` is at most one hour ahead. */
export const MAX_LIFETIME_SECONDS = 3600;
/** A fetched JWK Set is kept this long (fetched sooner for an unknown kid, at most every 30 s). */
const JWKS_TTL_MS = 10 * 60 * 1000;
const JWKS_COOLDOWN_MS = 30_000;

export interface Principal {
  sub: string;
  iss: string | undefined;
  scopes: Set<string>;
}

export type Verified = { ok: true; principal: Principal } | { ok: false; reason: string };

export interface VerifyOptions {
  sources: KeySource[];
  /** Required `iss` for sources without their own; undefined accepts any issuer. */
  issuer?: string;
  /** Accepted audiences: `aud` (a string or an array) must name one. */
  audiences: string[];
  nowSeconds?: number;
}

/** Checks signature (RS256 or ES256), issuer, audience and times; the scopes are the caller's to check. */
export async function verifyBearer(token: string, options: VerifyOptions): Promise<Verified> {
  const result = await verifyJwt(token, options.sources, {
    algorithms: ["RS256", "ES256"],
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    audiences: options.audiences,
    maxExpiresInSeconds: MAX_LIFETIME_SECONDS,
    ...(options.nowSeconds === undefined ? {} : { nowSeconds: options.nowSeconds }),
  });
  if (!result.ok) return result;
  const { sub, iss, scope } = result.claims;
  const scopes = new Set(typeof scope === "string" ? scope.split(" ").filter(Boolean) : []);
  return { ok: true, principal: { sub, iss: typeof iss === "string" ? iss : undefined, scopes } };
}

// Per isolate: jose's key sets by their configuration, so imported keys and fetched sets are reused.
const localSets = new Map<string, JWTVerifyGetKey>();
const remoteSets = new Map<string, RemoteKeySet>();

/** Every key source this deployment trusts for InterUSS tokens. */
export async function trustedSources(env: Bindings): Promise<KeySource[]> {
  const sources: KeySource[] = [];
  if (env.INTERUSS_PUBLIC_KEYS) {
    let set = localSets.get(env.INTERUSS_PUBLIC_KEYS);
    if (!set) {
      set = createLocalJWKSet(JSON.parse(env.INTERUSS_PUBLIC_KEYS) as JSONWebKeySet);
      localSets.set(env.INTERUSS_PUBLIC_KEYS, set);
    }
    sources.push({ key: set, name: "INTERUSS_PUBLIC_KEYS" });
  }
  if (env.INTERUSS_JWKS_URL) {
    let set = remoteSets.get(env.INTERUSS_JWKS_URL);
    if (!set) {
      set = new RemoteKeySet(new URL(env.INTERUSS_JWKS_URL), {
        cooldownMs: JWKS_COOLDOWN_MS,
        maxAgeMs: JWKS_TTL_MS,
        timeoutMs: 5_000,
      });
      remoteSets.set(env.INTERUSS_JWKS_URL, set);
    }
    sources.push({ key: set.getKey, name: env.INTERUSS_JWKS_URL });
  }
  if (env.ENVIRONMENT === "development" && env.JWT_PRIVATE_KEY) {
    const own = await signingKey(env.JWT_PRIVATE_KEY);
    // Only for DEV_ISSUER: a pilot token, signed by the same key, carries another `iss` and fails.
    sources.push({ key: own.publicKey, kid: own.kid, issuer: DEV_ISSUER });
  }
  return sources;
}

/**
 * `INTERUSS_AUDIENCE`'s names, else PUBLIC_URL's host name (no port, per the interfaces); the host
 * the request came to only in development. None elsewhere: no token is accepted then.
 */
export function audiencesFor(env: Bindings, requestUrl: string): string[] {
  const configured = (env.INTERUSS_AUDIENCE ?? "")
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean);
  if (configured.length > 0) return configured;
  const origin = configuredOrigin(env);
  if (origin) return [new URL(origin).hostname];
  return env.ENVIRONMENT === "development" ? [new URL(requestUrl).hostname] : [];
}

function refuse(c: Context, status: 401 | 403, message: string) {
  if (status === 401)
    c.header("WWW-Authenticate", `Bearer error="invalid_token", error_description="${message}"`);
  else c.header("WWW-Authenticate", `Bearer error="insufficient_scope", error_description="${message}"`);
  return c.json({ message }, status);
}

/**
 * Middleware for one endpoint: a valid bearer token carrying `scope`, or one of the `alternatives`
 * the interface also allows for it.
 */
export function requireScope(scope: string, ...alternatives: string[]): MiddlewareHandler<AppEnv> {
  const accepted = [scope, ...alternatives];
  return async (c, next) => {
    const header = c.req.header("Authorization") ?? "";
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) return refuse(c, 401, "Bearer access token required in the Authorization header");
    const audiences = audiencesFor(c.env, c.req.url);
    if (audiences.length === 0)
      return refuse(
        c,
        401,
        "the service's audience is not configured: the operator must set PUBLIC_URL or INTERUSS_AUDIENCE",
      );
    const result = await verifyBearer(match[1]!, {
      sources: await trustedSources(c.env),
      issuer: c.env.INTERUSS_ISSUER || undefined,
      audiences,
    });
    if (!result.ok) return refuse(c, 401, result.reason);
    if (!accepted.some((s) => result.principal.scopes.has(s)))
      return refuse(c, 403, `token lacks the scope ${accepted.join(" or ")}`);
    await next();
  };
}

/** The caller of an endpoint behind requireScope (which has verified its token): `sub` and scopes. */
export function callerOf(c: Context): { sub: string; scopes: string[] } {
  const token = (c.req.header("Authorization") ?? "").replace(/^Bearer\s+/i, "");
  const { sub, scope } = decodeJwt(token);
  return {
    sub: String(sub ?? ""),
    scopes: typeof scope === "string" ? scope.split(" ").filter(Boolean) : [],
  };
}
