import { env, SELF } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import * as schema from "../../schema";
import { DEV_ISSUER } from "../../worker/interuss/auth";
import { signingKey, signToken, type TokenClaims } from "../../worker/lib/jwt";
import { createApiKey } from "../../worker/services/apiKeys";

export const BASE = "https://windsock.test";

export interface TestAccount {
  accountId: string;
  apiKey: string;
  keyId: string;
}

/** Creates an account with one API key in D1 through the service `npm run keys:create` uses. */
export async function createAccount(
  name = "test",
  rateLimitPerMinute: number | null = 100_000,
): Promise<TestAccount> {
  const created = await createApiKey(drizzle(env.DB, { schema }), { name, rateLimitPerMinute });
  if (!created) throw new Error("a new account is always created");
  return { accountId: created.accountId, apiKey: created.apiKey, keyId: created.keyId };
}

export interface Call {
  method?: string;
  apiKey?: string;
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One request through the whole worker, as a client sends it. */
export async function call(path: string, options: Call = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers["X-API-Key"] = options.apiKey;
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (options.body instanceof Uint8Array) {
    body = options.body as Uint8Array<ArrayBuffer>;
  } else if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["Content-Type"] ??= "application/json";
  }
  const response = await SELF.fetch(`${BASE}${path}`, { method: options.method ?? "GET", headers, body });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** A pilot's token under the given account. */
export async function tokenFor(
  account: TestAccount,
  userId: string,
): Promise<{ token: string; pilotId: string }> {
  const res = await call("/auth/v1/anonymous/token", {
    method: "POST",
    apiKey: account.apiKey,
    body: { user_id: userId },
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
  const token: string = res.json.data.id_token;
  const payload = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
  return { token, pilotId: payload.sub };
}

/** The relay's credential for the worker's internal API. */
export const RELAY = { Authorization: `Bearer ${env.RELAY_SECRET}` };

/**
 * Posts one session's rows to the internal ingest as the relay does (JSON); `datagrams` names each
 * row's datagram, or is left out as older relays did.
 */
export function postRelayRows(
  flightId: string,
  sessionId: string,
  records: unknown[][],
  datagrams?: unknown[],
) {
  return call("/internal/v1/telemetry", {
    method: "POST",
    headers: RELAY,
    body: {
      sessions: [
        { flight_id: flightId, session_id: sessionId, records, ...(datagrams ? { datagrams } : {}) },
      ],
    },
  });
}

/**
 * A bearer token of the development issuer for the InterUSS and Remote ID interfaces, as
 * `npm run interuss:token` signs it: the uss_qualifier's, for this worker's host, an hour long.
 * `claims` replace any of those (another audience, an expired `exp`, another subject).
 */
export async function interussToken(scopes: string[], claims: Record<string, unknown> = {}): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  const all = {
    iss: DEV_ISSUER,
    sub: "uss_qualifier",
    aud: new URL(BASE).hostname,
    iat,
    exp: iat + 3600,
    scope: scopes.join(" "),
    ...claims,
  };
  return signToken(all as unknown as TokenClaims, await signingKey(env.JWT_PRIVATE_KEY));
}
