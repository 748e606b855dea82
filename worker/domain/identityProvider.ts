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

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * THE check of every provider URL (issuer, discovery, JWKS, token and authorization endpoints): the
 * service calls them, so they must be public https addresses, never the operator's own network.
 * When worker/domain/outboundUrl.ts (the general outbound check) exists, this is the one place to
 * delegate to it.
 */
export function providerUrlProblem(url: string, policy: UrlPolicy): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "must be an absolute URL such as https://login.example.com/realms/pilots";
  }
  if (parsed.username || parsed.password) return "must not carry credentials";
  const host = parsed.hostname.toLowerCase();
  if (LOOPBACK_HOSTS.has(host)) {
    if (!policy.allowLoopback)
      return "names this machine (127.0.0.1/localhost): only a development provider set with --allow-loopback may";
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? null : "must be http or https";
  }
  if (parsed.protocol !== "https:") return "must be https";
  if (privateHost(host)) return "must be a public address, not a private, link-local or internal one";
  return null;
}

/** IP literals of private, loopback, link-local, CGNAT or unspecified ranges, and internal names. */
function privateHost(host: string): boolean {
  if (host.startsWith("[")) {
    const v6 = host.slice(1, -1);
    return (
      v6 === "::" ||
      v6 === "::1" ||
      /^f[cd]/.test(v6) ||
      /^fe[89ab]/.test(v6) ||
      v6.startsWith("::ffff:") ||
      v6.startsWith("64:ff9b:")
    );
  }
  if (
    host.endsWith(".local") ||
    host.endsWith(".internal") ||
    host.endsWith(".localhost") ||
    !host.includes(".")
  )
    return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      a >= 224
    );
  }
  return false;
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
  | { ok: false; status: 400 | 401 | 502; error: string; description: string };

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
