import { loopbackAllowed, outboundUrlProblem } from "../domain/outboundUrl";
import type { Bindings } from "../env";

/**
 * This service's own calls to other USSs and DSSs (ASTM F3411 and F3548 alike) carry tokens from the
 * ecosystem's authority: OAuth client credentials at `USS_AUTH_TOKEN_URL` (with
 * `USS_AUTH_CLIENT_ID`/`USS_AUTH_CLIENT_SECRET` when it wants them), one token per audience and
 * scope, `aud` being the called host as the standards' authorities issue them.
 */

/** What a call out needs of the environment (loopback peers only in development, when opted in). */
export type UssAuthorityConfig = Pick<
  Bindings,
  | "USS_AUTH_TOKEN_URL"
  | "USS_AUTH_CLIENT_ID"
  | "USS_AUTH_CLIENT_SECRET"
  | "ENVIRONMENT"
  | "OUTBOUND_ALLOW_LOOPBACK"
>;

export type Fetch = typeof fetch;

/** The authority could not be asked, or refused; `status` is its HTTP status when it answered. */
export class AuthorityUnavailable extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** A peer (or the authority) is given this long to answer; one that takes longer counts as unreachable. */
const CALL_TIMEOUT_MS = 10_000;

/** Tokens per audience and scope, kept until a minute before they expire. */
const tokens = new Map<string, { token: string; until: number }>();

export async function accessToken(
  config: UssAuthorityConfig,
  audience: string,
  scope: string,
  fetcher: Fetch = fetch,
): Promise<string> {
  const cacheKey = `${audience} ${scope}`;
  const cached = tokens.get(cacheKey);
  if (cached && cached.until > Date.now()) return cached.token;
  if (!config.USS_AUTH_TOKEN_URL) throw new AuthorityUnavailable("USS_AUTH_TOKEN_URL is not set");
  const form = new URLSearchParams({ grant_type: "client_credentials", scope, intended_audience: audience });
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (config.USS_AUTH_CLIENT_ID)
    headers.Authorization = `Basic ${btoa(`${config.USS_AUTH_CLIENT_ID}:${config.USS_AUTH_CLIENT_SECRET ?? ""}`)}`;
  const res = await fetcher(config.USS_AUTH_TOKEN_URL, {
    method: "POST",
    headers,
    body: form,
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
  if (!res.ok || typeof body.access_token !== "string")
    throw new AuthorityUnavailable(`the token endpoint answered ${res.status}`, res.status);
  const lifetime = typeof body.expires_in === "number" ? body.expires_in : 300;
  tokens.set(cacheKey, { token: body.access_token, until: Date.now() + Math.max(0, lifetime - 60) * 1000 });
  return body.access_token;
}

export interface UssAnswer {
  ok: boolean;
  status: number;
  body: unknown;
}

/** A peer's address this service will not call (not a public https host; domain/outboundUrl.ts). */
class UnsafePeerUrl extends Error {}

/**
 * One JSON request to another USS or DSS with a token for `scope`. The URLs come from other USSs
 * (their `uss_base_url` in the DSS), so only public https hosts are called, never redirected.
 * Throws UnsafePeerUrl, AuthorityUnavailable without a token, and the fetch's error when the peer
 * cannot be reached in time.
 */
export async function ussRequest(
  config: UssAuthorityConfig,
  url: string,
  method: string,
  scope: string,
  body: unknown,
  fetcher: Fetch = fetch,
): Promise<UssAnswer> {
  const problem = outboundUrlProblem(url, {
    allowLoopback: loopbackAllowed(config.ENVIRONMENT, config.OUTBOUND_ALLOW_LOOPBACK),
  });
  if (problem) throw new UnsafePeerUrl(`${url} ${problem}`);
  const token = await accessToken(config, new URL(url).hostname, scope, fetcher);
  const res = await fetcher(url, {
    method,
    redirect: "manual",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const answer = (await res.json().catch(() => null)) as unknown;
  return { ok: res.ok, status: res.status, body: answer };
}

/** A path under another USS's base URL, as the DSS gives it (with or without a final slash). */
export const peerUrl = (base: string, path: string) => `${base.replace(/\/$/, "")}${path}`;

/**
 * POSTs a notification to a peer. One that cannot be told is logged, never thrown: the change it
 * tells of stands (both standards leave it to the subscriber to catch up from the DSS).
 */
export async function tellPeer(
  config: UssAuthorityConfig,
  url: string,
  scope: string,
  body: unknown,
  what: string,
  fetcher: Fetch = fetch,
): Promise<void> {
  try {
    const res = await ussRequest(config, url, "POST", scope, body, fetcher);
    if (!res.ok) throw new Error(`answered ${res.status}`);
  } catch (err) {
    console.error(JSON.stringify({ level: "warn", msg: `${what} failed`, url, error: String(err) }));
  }
}
