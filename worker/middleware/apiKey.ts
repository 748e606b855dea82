import { createMiddleware } from "hono/factory";
import type { Account, AppEnv } from "../env";
import { tooManyRequests, unauthorized } from "../lib/errors";
import { sha256Hex } from "../lib/hash";
import { TtlCache } from "../lib/ttlCache";
import { forgetKeyState } from "../services/liveAccess";
import { findAccountByKeyHash, revokeApiKey } from "../store/accounts";
import { requireAccountOrigin } from "./cors";
import { takeRequest } from "./rateLimiter";
import { tarpit } from "./tarpit";

/**
 * How long an isolate trusts a key lookup: a revocation made elsewhere (`npm run keys:revoke`, another
 * isolate) takes effect within this time; in the isolate that revoked it, at once. At most one D1
 * read per key and isolate every 10 s.
 */
export const KEY_CACHE_MS = 10_000;
const UNKNOWN_KEY_CACHE_MS = 5_000;
const MAX_CACHED_KEYS = 10_000;

const keyCache = new TtlCache<Account | null>(MAX_CACHED_KEYS);

/** Requires `X-API-Key` of a live key, puts its account on the context and applies its rate limit. */
export const requireApiKey = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header("x-api-key")?.trim();
  if (!key) throw unauthorized("Missing X-API-Key header: send the API key of your application");
  const account = await lookUp(c.var.db, key);
  if (!account) throw unauthorized("Unknown or revoked API key");
  await requireAccountOrigin(c, account);
  await chargeKey(c.env, account);
  c.set("account", account);
  await next();
});

/**
 * On a route that needs no key: a live key's request counts against the key (the keyless limits,
 * already taken, let it through); any other key changes nothing, the request stays keyless. Never
 * 401, since the route needs no key. Looked up after the keyless limits, so bogus keys cannot make
 * D1 reads beyond an address's budget.
 */
export const chargeKeyIfLive = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header("x-api-key")?.trim();
  const account = key ? await lookUp(c.var.db, key) : null;
  if (account) await chargeKey(c.env, account);
  await next();
});

/** A live key this isolate has looked up lately (no D1 read); null for any other key. */
export async function recentlyLiveKey(key: string): Promise<Account | null> {
  return keyCache.get(await hashOf(key)) ?? null;
}

/** One request of the key's own limit; 429 (held when the caller keeps asking) beyond it. */
async function chargeKey(env: AppEnv["Bindings"], account: Account): Promise<void> {
  const { limit, waitSeconds } = await takeRequest(env, account);
  const caller = `key ${account.keyId}`;
  if (waitSeconds > 0)
    throw tarpit.refuse(
      caller,
      tooManyRequests(`Rate limit of ${limit} requests a minute exceeded`, waitSeconds),
    );
  tarpit.allowed(caller);
}

/**
 * A key's hash never changes: an isolate hashes a key once per KEY_CACHE_MS rather than per request
 * (the digest was 3 % of a light request's CPU).
 */
const keyHashes = new TtlCache<string>(MAX_CACHED_KEYS);

async function hashOf(key: string): Promise<string> {
  let hash = keyHashes.get(key);
  if (hash === undefined) {
    hash = await sha256Hex(key);
    keyHashes.set(key, hash, KEY_CACHE_MS);
  }
  return hash;
}

async function lookUp(db: AppEnv["Variables"]["db"], key: string): Promise<Account | null> {
  const hash = await hashOf(key);
  // An unknown key is remembered too (for less long), so a flood of bad keys does not reach D1.
  if (keyCache.has(hash)) return keyCache.get(hash) ?? null;
  const account = await findAccountByKeyHash(db, hash);
  keyCache.set(hash, account, account ? KEY_CACHE_MS : UNKNOWN_KEY_CACHE_MS);
  return account;
}

/** Revokes the account's key in D1 and in this isolate's cache; null when it holds no such live key. */
export async function revokeKey(db: AppEnv["Variables"]["db"], account: Account, now = Date.now()) {
  const revoked = await revokeApiKey(db, account.id, account.keyId, now);
  if (revoked) {
    forgetKey(revoked.keyHash);
    forgetKeyState(account.keyId);
  }
  return revoked;
}

/** Forgets one key's lookup: the isolate that revokes a key refuses it from the next request on. */
export function forgetKey(keyHash: string): void {
  keyCache.delete(keyHash);
}

/** Drops cached key lookups; tests call it to see a revocation made behind the worker's back at once. */
export function clearKeyCache(): void {
  keyCache.clear();
}
