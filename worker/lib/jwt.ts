import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  errors,
  importJWK,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
  SignJWT,
} from "jose";

/**
 * The one home of JSON Web Tokens, on `jose`: the pilot tokens this service issues and checks (ES256,
 * CONTRACT §3) and the bearer tokens of other authorities (worker/interuss/auth.ts: RS256 or ES256
 * from a JWK Set). jose checks the signature, the algorithm allow-list and the standard claims; the
 * rules jose has no option for (a strict `exp`, `iat` not ahead, a maximum lifetime) are `verifyJwt`'s.
 */

/** Claims of the access tokens this service issues (CONTRACT §3). */
export interface TokenClaims {
  iss: string;
  sub: string;
  aud: string;
  iat: number;
  exp: number;
}

export const TOKEN_LIFETIME_SECONDS = 24 * 60 * 60;
/** The longest lifetime (`exp - iat`) a presented token may claim. */
export const MAX_TOKEN_LIFETIME_SECONDS = TOKEN_LIFETIME_SECONDS;
/** Clock skew forgiven on `iat` and `nbf`: a token minted a moment ahead of our clock still works. */
export const CLOCK_LEEWAY_SECONDS = 60;

export type Algorithm = "RS256" | "ES256";

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK & { kid: string; alg: "ES256"; use: "sig" };
}

// Imported once per isolate: key import costs more than a signature check.
const signingKeys = new Map<string, Promise<SigningKey>>();

export function signingKey(privateJwkJson: string): Promise<SigningKey> {
  let key = signingKeys.get(privateJwkJson);
  if (!key) {
    key = importSigningKey(privateJwkJson);
    signingKeys.set(privateJwkJson, key);
  }
  return key;
}

async function importSigningKey(privateJwkJson: string): Promise<SigningKey> {
  const jwk = JSON.parse(privateJwkJson) as JWK;
  if (jwk.kty !== "EC" || jwk.crv !== "P-256" || !jwk.d)
    throw new Error("JWT_PRIVATE_KEY is not a P-256 private JWK");
  const publicOnly: JWK = { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y };
  // RFC 7638 thumbprint: the key id that names this key in the token header and the JWKS.
  const kid = await calculateJwkThumbprint(publicOnly, "sha256");
  const privateKey = (await importJWK({ ...jwk, key_ops: ["sign"] }, "ES256", {
    extractable: false,
  })) as CryptoKey;
  const publicKey = (await importJWK(publicOnly, "ES256")) as CryptoKey;
  return { kid, privateKey, publicKey, publicJwk: { ...publicOnly, kid, alg: "ES256", use: "sig" } };
}

/** An ES256 token with this key's kid; the caller chooses the claims (tests choose bad ones too). */
export function signToken(claims: TokenClaims, key: SigningKey): Promise<string> {
  return new SignJWT(claims as unknown as JWTPayload)
    .setProtectedHeader({ alg: "ES256", typ: "JWT", kid: key.kid })
    .sign(key.privateKey);
}

/**
 * Keys a token may be signed with: one key (then the header's kid must be `kid`), or a JWK Set
 * (jose's `createLocalJWKSet`/`createRemoteJWKSet`) that picks keys by the header's kid and alg.
 */
export interface KeySource {
  key: CryptoKey | JWTVerifyGetKey;
  kid?: string;
  /** The `iss` tokens of these keys must carry, when fixed for them; else `VerifyRules.issuer`. */
  issuer?: string;
  /** Said in logs when a remote set cannot be read. */
  name?: string;
}

export interface VerifyRules {
  algorithms: Algorithm[];
  /** Required `iss` for sources without their own; undefined accepts any issuer. */
  issuer?: string;
  /** Accepted audiences: `aud` (a string or an array) must name one; undefined skips the check. */
  audiences?: string[];
  /** Claims that must be present; `sub` and `exp` always are. */
  required?: ("iat" | "aud" | "iss")[];
  /** The longest `exp - iat` (needs `iat` required) … */
  maxLifetimeSeconds?: number;
  /** … or the furthest `exp` may lie ahead of now. */
  maxExpiresInSeconds?: number;
  nowSeconds?: number;
}

export type Verified =
  | { ok: true; claims: JWTPayload & { sub: string; exp: number } }
  | { ok: false; reason: string };

/**
 * Checks a compact JWS token against the sources in turn. The algorithm comes from `rules`, never from
 * the token alone: `none` and HMAC keyed with a public key are refused before any key is tried.
 */
export async function verifyJwt(token: string, sources: KeySource[], rules: VerifyRules): Promise<Verified> {
  let header: { alg?: unknown; kid?: unknown };
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return { ok: false, reason: "malformed token" };
  }
  if (token.split(".").length !== 3) return { ok: false, reason: "malformed token" };
  if (!rules.algorithms.includes(header.alg as Algorithm))
    return { ok: false, reason: "unsupported token algorithm" };

  let signatureFailed = false;
  for (const source of sources) {
    if (source.kid !== undefined && header.kid !== source.kid) continue;
    const keys: (CryptoKey | JWTVerifyGetKey)[] = [source.key];
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const options = joseOptions(source, rules);
      try {
        const { payload } =
          typeof key === "function"
            ? await jwtVerify(token, key, options)
            : await jwtVerify(token, key, options);
        return checkTimes(payload, rules);
      } catch (err) {
        if (err instanceof errors.JWKSMultipleMatchingKeys) {
          // Several keys of a set share kid and alg: try each.
          for await (const key of err) keys.push(key);
        } else if (err instanceof errors.JWSSignatureVerificationFailed) {
          signatureFailed = true;
        } else if (err instanceof errors.JWKSNoMatchingKey) {
          // Not this source's key.
        } else if (typeof source.key === "function" && unavailable(err)) {
          // A remote set that cannot be read now: the other sources may still hold the key.
          console.error(
            JSON.stringify({
              level: "error",
              msg: "JWK Set unavailable",
              source: source.name,
              error: String(err),
            }),
          );
        } else {
          return { ok: false, reason: reasonOf(err, rules) };
        }
      }
    }
  }
  return { ok: false, reason: signatureFailed ? "bad token signature" : "unknown signing key" };
}

function joseOptions(source: KeySource, rules: VerifyRules) {
  const issuer = source.issuer ?? rules.issuer;
  return {
    algorithms: rules.algorithms,
    ...(issuer === undefined ? {} : { issuer }),
    ...(rules.audiences === undefined ? {} : { audience: rules.audiences }),
    requiredClaims: ["sub", "exp", ...(rules.required ?? [])],
    // jose forgives this on `nbf` (and `exp`, which checkTimes then holds strictly).
    clockTolerance: CLOCK_LEEWAY_SECONDS,
    ...(rules.nowSeconds === undefined ? {} : { currentDate: new Date(rules.nowSeconds * 1000) }),
  };
}

/** The rules jose leaves to us: `exp` strictly ahead, `iat` not ahead, the lifetime bounded. */
function checkTimes(payload: JWTPayload, rules: VerifyRules): Verified {
  const now = rules.nowSeconds ?? Math.floor(Date.now() / 1000);
  const { sub, exp, iat, aud } = payload;
  if (
    typeof sub !== "string" ||
    typeof exp !== "number" ||
    !Number.isFinite(exp) ||
    (iat !== undefined && !Number.isFinite(iat)) ||
    (rules.required?.includes("aud") && typeof aud !== "string")
  )
    return { ok: false, reason: "token lacks required claims" };
  if (exp <= now) return { ok: false, reason: "token expired" };
  // A token from the future, or one living longer than allowed, was not minted by the issuer's rules.
  if (iat !== undefined && iat > now + CLOCK_LEEWAY_SECONDS)
    return { ok: false, reason: "token issued in the future (iat)" };
  if (rules.maxLifetimeSeconds !== undefined && iat !== undefined && exp - iat > rules.maxLifetimeSeconds)
    return { ok: false, reason: `token lifetime over ${rules.maxLifetimeSeconds / 3600} hours` };
  if (rules.maxExpiresInSeconds !== undefined && exp > now + rules.maxExpiresInSeconds + CLOCK_LEEWAY_SECONDS)
    return { ok: false, reason: `token expires more than ${rules.maxExpiresInSeconds} seconds ahead` };
  return { ok: true, claims: { ...payload, sub, exp } };
}

function reasonOf(err: unknown, rules: VerifyRules): string {
  if (err instanceof errors.JWTExpired) return "token expired";
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === "missing" || err.reason === "invalid") return "token lacks required claims";
    if (err.claim === "nbf") return "token not valid yet (nbf)";
    if (err.claim === "iss") return "token from another issuer";
    if (err.claim === "aud") return `token audience is not ${rules.audiences?.join(" or ")}`;
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return "unsupported token algorithm";
  return "malformed token";
}

/** A JWK Set fetch that failed: timeout, network, a non-200 answer or no key set in it. */
function unavailable(err: unknown): boolean {
  return (
    err instanceof errors.JWKSTimeout ||
    err instanceof errors.JWKSInvalid ||
    (err instanceof TypeError && !(err instanceof errors.JOSEError)) ||
    (err instanceof errors.JOSEError && err.code === "ERR_JOSE_GENERIC")
  );
}

/**
 * Accepts only ES256 tokens signed by our key for `issuer`, unexpired, issued and valid from now
 * (within the leeway), living at most 24 h; anything else is a reason.
 */
export async function verifyToken(
  token: string,
  key: SigningKey,
  issuer: string,
  nowSeconds?: number,
): Promise<{ ok: true; claims: TokenClaims } | { ok: false; reason: string }> {
  const result = await verifyJwt(token, [{ key: key.publicKey, kid: key.kid }], {
    algorithms: ["ES256"],
    issuer,
    required: ["iat", "aud", "iss"],
    maxLifetimeSeconds: MAX_TOKEN_LIFETIME_SECONDS,
    ...(nowSeconds === undefined ? {} : { nowSeconds }),
  });
  if (!result.ok) return result;
  const { iss, sub, aud, iat, exp } = result.claims;
  return { ok: true, claims: { iss: iss as string, sub, aud: aud as string, iat: iat as number, exp } };
}
