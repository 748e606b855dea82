import type { Account, Bindings } from "../env";

/**
 * Token bucket per API key, held in the isolate: exact for one isolate and a per-isolate bound
 * elsewhere. The fallback where the Workers Rate Limiting binding is absent, and the holder of an
 * account's own limit, which the binding (one limit per binding) cannot express.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  /** Takes one request from `id`'s bucket; returns 0 when allowed, else seconds until one is. */
  take(id: string, perMinute: number, now = Date.now()): number {
    const perMs = perMinute / 60_000;
    const bucket = this.buckets.get(id) ?? { tokens: perMinute, updatedAt: now };
    // A clock that steps back (a corrected host clock) refills nothing, and drains nothing either.
    bucket.tokens = Math.min(perMinute, bucket.tokens + Math.max(0, now - bucket.updatedAt) * perMs);
    bucket.updatedAt = now;
    this.buckets.set(id, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return (1 - bucket.tokens) / perMs / 1000;
  }
}

/** The binding's window (wrangler.toml `[ratelimits.simple] period`): the most a refused caller waits. */
export const BINDING_PERIOD_SECONDS = 60;
/** The binding's limit (wrangler.toml `[ratelimits.simple] limit`), fixed at deploy time. */
export const BINDING_LIMIT_PER_MINUTE = 1200;

export interface RateDecision {
  limit: number;
  /** 0 when allowed, else seconds until a request is. */
  waitSeconds: number;
  by: "binding" | "isolate";
}

const isolateBuckets = new RateLimiter();

/**
 * One request of an API key. Keys held to the deployment's default (RATE_LIMIT_PER_MINUTE, which
 * wrangler.toml gives the `API_RATE_LIMIT` binding as its `simple.limit`) are counted by the binding,
 * shared by the isolates of a Cloudflare location; without the binding, for an account with its
 * own `rate_limit_per_minute`, and when RATE_LIMIT_PER_MINUTE is overridden to a figure the binding's
 * fixed limit does not hold (a benchmark's `--var`), by this isolate's bucket.
 */
export async function takeRequest(
  env: Pick<Bindings, "API_RATE_LIMIT" | "RATE_LIMIT_PER_MINUTE">,
  account: Pick<Account, "keyId" | "rateLimitPerMinute">,
  buckets: RateLimiter = isolateBuckets,
): Promise<RateDecision> {
  const defaultLimit = Number(env.RATE_LIMIT_PER_MINUTE ?? 1200);
  if (
    env.API_RATE_LIMIT &&
    account.rateLimitPerMinute === null &&
    defaultLimit === BINDING_LIMIT_PER_MINUTE
  ) {
    const { success } = await env.API_RATE_LIMIT.limit({ key: account.keyId });
    return { limit: defaultLimit, waitSeconds: success ? 0 : BINDING_PERIOD_SECONDS, by: "binding" };
  }
  const limit = account.rateLimitPerMinute ?? defaultLimit;
  return { limit, waitSeconds: buckets.take(account.keyId, limit), by: "isolate" };
}
