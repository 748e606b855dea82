import { base64url, fromBase64url, sha256 } from "./hash";

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

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JsonWebKey & { kid: string; alg: string; use: string };
}

const ES256 = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGN = { name: "ECDSA", hash: "SHA-256" } as const;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

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
  const jwk = JSON.parse(privateJwkJson) as JsonWebKey;
  if (jwk.kty !== "EC" || jwk.crv !== "P-256" || !jwk.d)
    throw new Error("JWT_PRIVATE_KEY is not a P-256 private JWK");
  const publicOnly = { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y };
  const kid = await thumbprint(publicOnly);
  const privateKey = await crypto.subtle.importKey("jwk", { ...jwk, key_ops: ["sign"] }, ES256, false, [
    "sign",
  ]);
  const publicKey = await crypto.subtle.importKey("jwk", publicOnly, ES256, true, ["verify"]);
  return { kid, privateKey, publicKey, publicJwk: { ...publicOnly, kid, alg: "ES256", use: "sig" } };
}

/** RFC 7638 thumbprint: the key id that names this key in the token header and the JWKS. */
async function thumbprint(jwk: { crv: string; kty: string; x?: string; y?: string }): Promise<string> {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return base64url(await sha256(canonical));
}

export async function signToken(claims: TokenClaims, key: SigningKey): Promise<string> {
  const header = base64url(encoder.encode(JSON.stringify({ alg: "ES256", typ: "JWT", kid: key.kid })));
  const payload = base64url(encoder.encode(JSON.stringify(claims)));
  const signature = await crypto.subtle.sign(SIGN, key.privateKey, encoder.encode(`${header}.${payload}`));
  return `${header}.${payload}.${base64url(new Uint8Array(signature))}`;
}

export type VerifyResult = { ok: true; claims: TokenClaims } | { ok: false; reason: string };

/**
 * Accepts only ES256 tokens signed by our key for `issuer`, unexpired, issued and valid from now
 * (within the leeway), living at most 24 h; anything else is a reason.
 */
export async function verifyToken(
  token: string,
  key: SigningKey,
  issuer: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<VerifyResult> {
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, reason: "malformed token" };
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  let header: { alg?: unknown; kid?: unknown };
  let claims: Partial<TokenClaims>;
  let signature: Uint8Array<ArrayBuffer>;
  try {
    header = JSON.parse(decoder.decode(fromBase64url(headerPart)));
    claims = JSON.parse(decoder.decode(fromBase64url(payloadPart)));
    signature = fromBase64url(signaturePart);
  } catch {
    return { ok: false, reason: "malformed token" };
  }
  // The algorithm is fixed by us, never taken from the token: this refuses `none` and HS256 confusion.
  if (header.alg !== "ES256") return { ok: false, reason: "unsupported token algorithm" };
  if (header.kid !== key.kid) return { ok: false, reason: "unknown signing key" };
  if (signature.length !== 64) return { ok: false, reason: "bad token signature" };
  const valid = await crypto.subtle.verify(
    SIGN,
    key.publicKey,
    signature,
    encoder.encode(`${headerPart}.${payloadPart}`),
  );
  if (!valid) return { ok: false, reason: "bad token signature" };
  if (typeof claims !== "object" || claims === null) return { ok: false, reason: "malformed token" };
  const { iss, sub, aud, iat, exp, nbf } = claims as Partial<TokenClaims> & { nbf?: unknown };
  if (
    typeof sub !== "string" ||
    typeof aud !== "string" ||
    typeof exp !== "number" ||
    typeof iat !== "number" ||
    !Number.isFinite(exp) ||
    !Number.isFinite(iat) ||
    (nbf !== undefined && (typeof nbf !== "number" || !Number.isFinite(nbf)))
  ) {
    return { ok: false, reason: "token lacks required claims" };
  }
  if (iss !== issuer) return { ok: false, reason: "token from another issuer" };
  if (exp <= nowSeconds) return { ok: false, reason: "token expired" };
  // A token from the future, or one living longer than we issue, was not minted by this service's rules.
  if (iat > nowSeconds + CLOCK_LEEWAY_SECONDS)
    return { ok: false, reason: "token issued in the future (iat)" };
  if (typeof nbf === "number" && nbf > nowSeconds + CLOCK_LEEWAY_SECONDS)
    return { ok: false, reason: "token not valid yet (nbf)" };
  if (exp - iat > MAX_TOKEN_LIFETIME_SECONDS) return { ok: false, reason: "token lifetime over 24 hours" };
  return { ok: true, claims: { iss, sub, aud, iat, exp } };
}
