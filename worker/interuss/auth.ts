import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv, Bindings } from "../env";
import { fromBase64url } from "../lib/hash";
import { signingKey } from "../lib/jwt";

/**
 * Bearer JWTs as InterUSS sends them to the automated-testing interfaces (and, later, F3411 network
 * Remote ID): RS256 or ES256, signed by a configured authority's keys, with a space-separated
 * `scope` claim and `aud` = this service's host name. 401 without a valid token, 403 without the
 * endpoint's scope. Not CONTRACT §3's API key or pilot tokens: the qualifier has neither.
 *
 * Keys: `INTERUSS_PUBLIC_KEYS` (a JWK Set as JSON) and/or `INTERUSS_JWKS_URL` (fetched, kept 10 min).
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
const LEEWAY_SECONDS = 60;
const JWKS_TTL_MS = 10 * 60 * 1000;

type Alg = "RS256" | "ES256";
const ALGORITHMS: Record<
  Alg,
  {
    kty: string;
    import: RsaHashedImportParams | EcKeyImportParams;
    verify: AlgorithmIdentifier | EcdsaParams;
  }
> = {
  RS256: {
    kty: "RSA",
    import: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    verify: { name: "RSASSA-PKCS1-v1_5" },
  },
  ES256: {
    kty: "EC",
    import: { name: "ECDSA", namedCurve: "P-256" },
    verify: { name: "ECDSA", hash: "SHA-256" },
  },
};

export interface TrustedKey {
  kid?: string;
  alg: Alg;
  key: CryptoKey;
  /** The issuer this key may sign for, when fixed (the development key); else the configured one. */
  issuer?: string;
}

export interface VerifyOptions {
  keys: TrustedKey[];
  /** Required `iss` for keys without their own; undefined accepts any issuer. */
  issuer?: string;
  /** Accepted audiences: `aud` (a string or an array) must name one. */
  audiences: string[];
  nowSeconds?: number;
}

export interface Principal {
  sub: string;
  iss: string | undefined;
  scopes: Set<string>;
}

export type Verified = { ok: true; principal: Principal } | { ok: false; reason: string };

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A JWK (public, RSA or P-256 EC) as a verification key; undefined for kinds this service cannot use. */
export async function importPublicJwk(
  jwk: JsonWebKey & { kid?: string; alg?: string },
): Promise<TrustedKey | undefined> {
  const alg: Alg | undefined =
    jwk.kty === "RSA" && (jwk.alg === undefined || jwk.alg === "RS256")
      ? "RS256"
      : jwk.kty === "EC" && jwk.crv === "P-256" && (jwk.alg === undefined || jwk.alg === "ES256")
        ? "ES256"
        : undefined;
  if (!alg) return undefined;
  const publicOnly: JsonWebKey =
    alg === "RS256" ? { kty: "RSA", n: jwk.n, e: jwk.e } : { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y };
  try {
    const key = await crypto.subtle.importKey("jwk", publicOnly, ALGORITHMS[alg].import, false, ["verify"]);
    return { kid: jwk.kid, alg, key };
  } catch {
    return undefined;
  }
}

/** The keys of a JWK Set's JSON text; unusable entries are left out. */
export async function keysOfJwks(text: string): Promise<TrustedKey[]> {
  const parsed = JSON.parse(text) as { keys?: unknown };
  const list = Array.isArray(parsed.keys) ? parsed.keys : [];
  const keys = await Promise.all(list.map((k) => importPublicJwk(k as JsonWebKey)));
  return keys.filter((k): k is TrustedKey => k !== undefined);
}

/** Checks signature, algorithm, issuer, audience and times; the scopes are the caller's to check. */
export async function verifyBearer(token: string, options: VerifyOptions): Promise<Verified> {
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, reason: "malformed token" };
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  let header: { alg?: unknown; kid?: unknown };
  let claims: Record<string, unknown>;
  let signature: Uint8Array<ArrayBuffer>;
  try {
    header = JSON.parse(decoder.decode(fromBase64url(headerPart)));
    claims = JSON.parse(decoder.decode(fromBase64url(payloadPart)));
    signature = fromBase64url(signaturePart);
  } catch {
    return { ok: false, reason: "malformed token" };
  }
  if (typeof claims !== "object" || claims === null) return { ok: false, reason: "malformed token" };
  // Only the two algorithms the authorities use: `none` and HMAC with a public key are refused here.
  if (header.alg !== "RS256" && header.alg !== "ES256")
    return { ok: false, reason: "unsupported token algorithm" };
  const alg = header.alg;
  const candidates = options.keys.filter(
    (k) => k.alg === alg && (typeof header.kid !== "string" || k.kid === undefined || k.kid === header.kid),
  );
  if (candidates.length === 0) return { ok: false, reason: "unknown signing key" };
  const signed = encoder.encode(`${headerPart}.${payloadPart}`);
  let signer: TrustedKey | undefined;
  for (const candidate of candidates) {
    if (await crypto.subtle.verify(ALGORITHMS[alg].verify, candidate.key, signature, signed)) {
      signer = candidate;
      break;
    }
  }
  if (!signer) return { ok: false, reason: "bad token signature" };

  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const { iss, sub, aud, exp, nbf, iat, scope } = claims;
  if (typeof sub !== "string" || typeof exp !== "number" || !Number.isFinite(exp))
    return { ok: false, reason: "token lacks sub or exp" };
  const issuer = signer.issuer ?? options.issuer;
  if (issuer !== undefined && iss !== issuer) return { ok: false, reason: "token from another issuer" };
  const audiences = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
  if (!audiences.some((a) => options.audiences.includes(a as string)))
    return { ok: false, reason: `token audience is not ${options.audiences.join(" or ")}` };
  if (exp <= now) return { ok: false, reason: "token expired" };
  if (exp > now + MAX_LIFETIME_SECONDS + LEEWAY_SECONDS)
    return { ok: false, reason: "token expires more than an hour ahead" };
  if (typeof nbf === "number" && nbf > now + LEEWAY_SECONDS)
    return { ok: false, reason: "token not valid yet (nbf)" };
  if (typeof iat === "number" && iat > now + LEEWAY_SECONDS)
    return { ok: false, reason: "token issued in the future" };
  const scopes = new Set(typeof scope === "string" ? scope.split(" ").filter(Boolean) : []);
  return { ok: true, principal: { sub, iss: typeof iss === "string" ? iss : undefined, scopes } };
}

// Per isolate: the configured keys by their source text, the JWKS URL's keys with their fetch time.
const configuredKeys = new Map<string, Promise<TrustedKey[]>>();
const fetchedKeys = new Map<string, { at: number; keys: Promise<TrustedKey[]> }>();

async function jwksFromUrl(url: string): Promise<TrustedKey[]> {
  const cached = fetchedKeys.get(url);
  if (cached && Date.now() - cached.at < JWKS_TTL_MS) return cached.keys;
  const keys = (async () => {
    const res = await fetch(url, { headers: { Accept: "application/json" } });
    if (!res.ok) throw new Error(`JWKS ${url} answered ${res.status}`);
    return keysOfJwks(await res.text());
  })();
  fetchedKeys.set(url, { at: Date.now(), keys });
  // A failed fetch is not kept: the next request tries again.
  keys.catch(() => fetchedKeys.delete(url));
  return keys;
}

/** Every key this deployment trusts for InterUSS tokens. */
export async function trustedKeys(env: Bindings): Promise<TrustedKey[]> {
  const keys: TrustedKey[] = [];
  if (env.INTERUSS_PUBLIC_KEYS) {
    let configured = configuredKeys.get(env.INTERUSS_PUBLIC_KEYS);
    if (!configured) {
      configured = keysOfJwks(env.INTERUSS_PUBLIC_KEYS);
      configuredKeys.set(env.INTERUSS_PUBLIC_KEYS, configured);
    }
    keys.push(...(await configured));
  }
  if (env.INTERUSS_JWKS_URL) {
    try {
      keys.push(...(await jwksFromUrl(env.INTERUSS_JWKS_URL)));
    } catch (err) {
      console.error(JSON.stringify({ level: "error", msg: "InterUSS JWKS unavailable", error: String(err) }));
    }
  }
  if (env.ENVIRONMENT === "development" && env.JWT_PRIVATE_KEY) {
    const own = await signingKey(env.JWT_PRIVATE_KEY);
    keys.push({ kid: own.kid, alg: "ES256", key: own.publicKey, issuer: DEV_ISSUER });
  }
  return keys;
}

/** `INTERUSS_AUDIENCE`'s names, else the host name the request came to (no port, per the interfaces). */
export function audiencesFor(env: Bindings, requestUrl: string): string[] {
  const configured = (env.INTERUSS_AUDIENCE ?? "")
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean);
  return configured.length > 0 ? configured : [new URL(requestUrl).hostname];
}

function refuse(c: Context, status: 401 | 403, message: string) {
  if (status === 401)
    c.header("WWW-Authenticate", `Bearer error="invalid_token", error_description="${message}"`);
  else c.header("WWW-Authenticate", `Bearer error="insufficient_scope", error_description="${message}"`);
  return c.json({ message }, status);
}

/**
 * Middleware for one endpoint: a valid bearer token carrying `scope`. The principal is kept as
 * `interussClient` (its `sub`) for the handlers.
 */
export function requireScope(scope: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("Authorization") ?? "";
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) return refuse(c, 401, "Bearer access token required in the Authorization header");
    const result = await verifyBearer(match[1]!, {
      keys: await trustedKeys(c.env),
      issuer: c.env.INTERUSS_ISSUER || undefined,
      audiences: audiencesFor(c.env, c.req.url),
    });
    if (!result.ok) return refuse(c, 401, result.reason);
    if (!result.principal.scopes.has(scope)) return refuse(c, 403, `token lacks the scope ${scope}`);
    await next();
  };
}
