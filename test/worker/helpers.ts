import { env, SELF } from "cloudflare:test";
import { sha256Hex } from "../../worker/lib/hash";
import { randomBase62 } from "../../worker/lib/ids";

export const BASE = "https://windsock.test";

export interface TestAccount {
  accountId: string;
  apiKey: string;
  keyId: string;
}

/** Creates an account with one API key directly in D1, as `npm run keys:create` does. */
export async function createAccount(
  name = "test",
  rateLimitPerMinute: number | null = 100_000,
): Promise<TestAccount> {
  const accountId = `account|${randomBase62(22)}`;
  const keyId = `key|${randomBase62(22)}`;
  const apiKey = `wsk_${randomBase62(40)}`;
  const now = Date.now();
  await env.DB.batch([
    env.DB.prepare(
      "INSERT INTO accounts (id, public_id, name, rate_limit_per_minute, created_at) VALUES (?, ?, ?, ?, ?)",
    ).bind(accountId, `app_${randomBase62(12)}`, name, rateLimitPerMinute, now),
    env.DB.prepare(
      "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    ).bind(keyId, accountId, name, await sha256Hex(apiKey), apiKey.slice(0, 8), now),
  ]);
  return { accountId, apiKey, keyId };
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
  let body: string | undefined;
  if (options.body !== undefined) {
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
