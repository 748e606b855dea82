import { createMiddleware } from "hono/factory";
import type { Account, AppEnv } from "../env";
import { tooManyRequests, unauthorized } from "../lib/errors";
import { sha256Hex } from "../lib/hash";
import { findAccountByKeyHash } from "../store/accounts";
import { RateLimiter } from "./rateLimiter";

/** How long an isolate trusts a key lookup: a revocation takes effect within this time. */
export const KEY_CACHE_MS = 60_000;
const UNKNOWN_KEY_CACHE_MS = 5_000;
const MAX_CACHED_KEYS = 10_000;

const keyCache = new Map<string, { account: Account | null; expiresAt: number }>();
const rateLimiter = new RateLimiter();

/** Requires `X-API-Key` of a live key, puts its account on the context and applies its rate limit. */
export const requireApiKey = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header("x-api-key")?.trim();
  if (!key) throw unauthorized("Missing X-API-Key header: send the API key of your application");
  const account = await lookUp(c.var.db, key);
  if (!account) throw unauthorized("Unknown or revoked API key");
  const limit = account.rateLimitPerMinute ?? Number(c.env.RATE_LIMIT_PER_MINUTE ?? 1200);
  const waitSeconds = rateLimiter.take(account.keyId, limit);
  if (waitSeconds > 0)
    throw tooManyRequests(`Rate limit of ${limit} requests a minute exceeded`, waitSeconds);
  c.set("account", account);
  await next();
});

async function lookUp(db: AppEnv["Variables"]["db"], key: string): Promise<Account | null> {
  const hash = await sha256Hex(key);
  const now = Date.now();
  const cached = keyCache.get(hash);
  if (cached && cached.expiresAt > now) return cached.account;
  const account = await findAccountByKeyHash(db, hash);
  if (keyCache.size >= MAX_CACHED_KEYS) keyCache.clear();
  keyCache.set(hash, { account, expiresAt: now + (account ? KEY_CACHE_MS : UNKNOWN_KEY_CACHE_MS) });
  return account;
}

/** Drops cached key lookups; tests call it to see a revocation at once. */
export function clearKeyCache(): void {
  keyCache.clear();
}
