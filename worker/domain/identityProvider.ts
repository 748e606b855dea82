import { outboundUrlProblem } from "./outboundUrl";

/**
 * Federated pilots (issue #25): an account's own OpenID Connect provider. Pure rules: which provider
 * URLs may be called, how the SDKs' login bodies become grants for the provider's token endpoint, and
 * how the provider's answer becomes the shapes the SDKs' decoders read.
 */

/** Algorithms a provider's tokens may be signed with; `none` and HMAC are never accepted. */
export const PROVIDER_ALGORITHMS = ["RS256", "ES256"] as const;
/** An unknown `kid` refetches the provider's keys at most this often (per provider and isolate). */
export const JWKS_REFETCH_COOLDOWN_MS = 10_000;
/** Keys are read again after this long even when every kid is known. */
export const JWKS_MAX_AGE_MS = 10 * 60_000;

/** Where a provider may live, once its URLs are checked. */
export interface UrlPolicy {
  /** Development only (ENVIRONMENT=development and the provider's own opt-in): 127.0.0.1 and localhost. */
  allowLoopback: boolean;
}

/**
 * THE check of every provider URL (issuer, discovery, JWKS, token and authorization endpoints): the
 * service calls them, so they go through the one outbound check every user-set URL takes
 * (domain/outboundUrl.ts: public hosts only, every address encoding). Loopback only in development,
 * for a provider set with --allow-loopback.
 */
export function providerUrlProblem(url: string, policy: UrlPolicy): string | null {
  return outboundUrlProblem(url, { allowLoopback: policy.allowLoopback });
}

/**
 * The user id a federated pilot is stored under: the issuer and the provider's id of the user. The
 * anonymous route refuses user ids with this prefix, so nobody can name a federated pilot.
 */
export const FEDERATED_USER_PREFIX = "oidc:";

export function federatedUserId(issuer: string, subject: string): string {
  return `${FEDERATED_USER_PREFIX}${issuer}#${subject}`;
}

/** A grant for the provider's token endpoint; the password is forwarded once and never kept. */
export type Grant =
  | { grantType: "password"; username: string; password: string; scope: string }
  | { grantType: "refresh_token"; refreshToken: string; scope: string };

export type GrantParse = { ok: true; grant: Grant } | { ok: false; error: string; description: string };

const DEFAULT_SCOPE = "openid offline_access";

/** Always `openid` (an id_token is the pilot token) and `offline_access` (the SDKs refresh). */
function scopeOf(requested: unknown): string {
  const words = new Set(typeof requested === "string" ? requested.split(/\s+/).filter(Boolean) : []);
  for (const word of DEFAULT_SCOPE.split(" ")) words.add(word);
  return [...words].join(" ");
}

const text = (value: unknown) => (typeof value === "string" ? value : "");

/**
 * The body of `POST /oauth/ro` (JSON; the C++ SDK's `username`, `password`, `client_id`, `device`,
 * `grant_type` password, `scope`, `connection`) or of the OpenID Connect token route (form;
 * `scopes=openid`, `device_id`). Only the password grant is meant here.
 */
export function passwordGrant(body: Record<string, unknown>): GrantParse {
  const grantType = text(body.grant_type) || "password";
  if (grantType !== "password")
    return {
      ok: false,
      error: "unsupported_grant_type",
      description: `grant_type ${grantType} is not supported here`,
    };
  const username = text(body.username);
  const password = text(body.password);
  if (!username || !password)
    return { ok: false, error: "invalid_request", description: "username and password are required" };
  return {
    ok: true,
    grant: { grantType: "password", username, password, scope: scopeOf(body.scope ?? body.scopes) },
  };
}

/**
 * The body of `POST /delegation`: the C++ SDK's JSON (`refresh_token`, `grant_type`
 * urn:ietf:params:oauth:grant-type:jwt-bearer, `scope`) or its OpenID Connect form (`grant_type`
 * refresh_token). Either way the provider gets a refresh_token grant.
 */
export function refreshGrant(body: Record<string, unknown>): GrantParse {
  const grantType = text(body.grant_type) || "refresh_token";
  if (grantType !== "refresh_token" && grantType !== "urn:ietf:params:oauth:grant-type:jwt-bearer")
    return {
      ok: false,
      error: "unsupported_grant_type",
      description: `grant_type ${grantType} is not supported here`,
    };
  const refreshToken = text(body.refresh_token);
  if (!refreshToken) return { ok: false, error: "invalid_request", description: "refresh_token is required" };
  return {
    ok: true,
    grant: { grantType: "refresh_token", refreshToken, scope: scopeOf(body.scope ?? body.scopes) },
  };
}

/** The token route's form: its `grant_type` picks the password or the refresh grant. */
export function tokenEndpointGrant(body: Record<string, unknown>): GrantParse {
  const grantType = text(body.grant_type);
  if (grantType === "password") return passwordGrant(body);
  if (grantType === "refresh_token") return refreshGrant(body);
  return {
    ok: false,
    error: "unsupported_grant_type",
    description: grantType
      ? `grant_type ${grantType} is not supported: use password or refresh_token`
      : "grant_type is required",
  };
}

/** The form posted to the provider's token endpoint. */
export function grantForm(grant: Grant, clientId: string, clientSecret: string | null): URLSearchParams {
  const form = new URLSearchParams({ grant_type: grant.grantType, client_id: clientId, scope: grant.scope });
  if (grant.grantType === "password") {
    form.set("username", grant.username);
    form.set("password", grant.password);
  } else {
    form.set("refresh_token", grant.refreshToken);
  }
  if (clientSecret) form.set("client_secret", clientSecret);
  return form;
}

/** What the SDKs read from a token answer (C++ codec/json/token.cpp: Token::OAuth and Token::Refreshed). */
export interface SdkTokens {
  id_token: string;
  access_token: string;
  refresh_token?: string;
  token_type: string;
  expires_in: number;
}

export type ProviderAnswer =
  | { ok: true; tokens: SdkTokens }
  | {
      ok: false;
      status: 400 | 401 | 429 | 502;
      error: string;
      description: string;
      /** A 429's Retry-After, in seconds. */
      retryAfterSeconds?: number;
    };

/**
 * The provider's token answer in the SDKs' shape. `token_type` follows the route: the C++ OAuth
 * decoder matches "bearer", its Refreshed decoder "Bearer".
 */
export function sdkTokens(status: number, body: unknown, tokenType: "bearer" | "Bearer"): ProviderAnswer {
  const json = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  if (status >= 400 && status < 500) {
    return {
      ok: false,
      status: status === 401 ? 401 : 400,
      error: text(json.error) || "invalid_grant",
      description:
        text(json.error_description) || text(json.error) || `the identity provider answered ${status}`,
    };
  }
  const idToken = text(json.id_token);
  if (status !== 200 || !idToken) {
    return {
      ok: false,
      status: 502,
      error: "temporarily_unavailable",
      description:
        status === 200
          ? "the identity provider answered without an id_token: request the openid scope for this client"
          : `the identity provider answered ${status}`,
    };
  }
  const expiresIn = typeof json.expires_in === "number" && json.expires_in > 0 ? json.expires_in : 0;
  const refresh = text(json.refresh_token);
  return {
    ok: true,
    tokens: {
      id_token: idToken,
      access_token: text(json.access_token) || idToken,
      ...(refresh ? { refresh_token: refresh } : {}),
      token_type: tokenType,
      expires_in: expiresIn,
    },
  };
}
