import { createMiddleware } from "hono/factory";
import type { AppEnv, Bindings } from "../env";
import { tooManyRequests } from "../lib/errors";
import { pageAccount } from "../pages/api";

/**
 * Expensive routes (large polygons, carpets, status with large buffers, briefings, evaluations) run
 * at most EXPENSIVE_CONCURRENCY at once per account, and an account's expensive requests may keep
 * the isolate busy EXPENSIVE_SHARE of the time on average (wall time, charged when each ends; a
 * burst of EXPENSIVE_BURST_MS first). Beyond either, a request waits its turn (up to
 * MAX_WAIT_MS, and at most MAX_WAITING of the account waiting), else 429 with Retry-After. So one
 * account's heavy work queues behind itself instead of in front of every other account.
 * Held in the isolate: exact under `npm start`, a per-isolate bound on Cloudflare.
 */

export const EXPENSIVE_CONCURRENCY = 2;
/**
 * Pages opened without a key (withAccountWork) start only while none of the account's expensive
 * work runs: a flood of one page then holds the isolate one render at a time.
 */
export const PAGE_CONCURRENCY = 1;
/**
 * An expensive request with a body over this many bytes (about 2,500 positions of a polygon) is of
 * the heaviest class and also runs 1 at once per account: four 10,000-position plans at once had
 * raised another account's p50 5×, one synchronous check after another.
 */
export const HEAVY_BODY_BYTES = 64 * 1024;
/**
 * Pages and the heaviest class are charged this many times their time against the share: a flood
 * of them (one render or ring check after another, most of a page's time spent in D1, which every
 * account's requests share) then keeps the isolate busy about an eighth of the time instead of half.
 * At 3× a deep-link page flood still doubled another account's p50 in some runs; at 4× it stays
 * within 1.25× (`npm run bench -- noisy`, docs/benchmarks.md).
 */
export const HEAVY_CHARGE = 4;
export const EXPENSIVE_SHARE = 0.5;
export const EXPENSIVE_BURST_MS = 5_000;
export const MAX_WAITING = 32;
export const MAX_WAIT_MS = 10_000;

const EXPENSIVE: readonly [method: string, path: RegExp][] = [
  ["*", /^\/advisory\/v[12]\/airspace/],
  ["*", /^\/airspace\/v2\/search$/],
  ["*", /^\/elevation\/v1\/ele(\/|$)/],
  ["*", /^\/status\/v2\//],
  ["*", /^\/rules\/v1\/(evaluation|[^/]+\/evaluation)$/],
  ["*", /^\/flight\/v2\/plan\/[^/]+\/(briefing|submit)$/],
  ["POST", /^\/flight\/v2\/(plan|point|path|polygon)$/],
  ["PATCH", /^\/flight\/v2\/plan\/[^/]+$/],
  ["POST", /^\/flight\/v2\/[^/]+\/telemetry$/],
  ["POST", /^\/deeplink\/v1\/create_flight$/],
  ["GET", /^\/archive\/v1\//],
];

export function isExpensive(method: string, path: string): boolean {
  return EXPENSIVE.some(([m, p]) => (m === "*" || m === method) && p.test(path));
}

interface AccountWork {
  running: number;
  /** Milliseconds of expensive work the account may still start at once (refills at EXPENSIVE_SHARE). */
  budgetMs: number;
  updatedAt: number;
  /** Requests waiting for their turn. */
  waiting: number;
}

/**
 * How often a waiting request looks again. It polls with a timer of its own rather than being woken
 * by the request that ends: in Workers a request must not wait on a promise another request
 * resolves (the runtime cancels it as hung).
 */
export const WAIT_POLL_MS = 25;

export class WorkLimiter {
  private readonly accounts = new Map<string, AccountWork>();

  /**
   * Waits for the account's turn (fewer than `atOnce` of its expensive requests running, and time
   * left in its share); the release to call when the work ends, or null when refused.
   */
  async acquire(
    accountId: string,
    now = Date.now(),
    atOnce = EXPENSIVE_CONCURRENCY,
    charge = 1,
  ): Promise<((ended?: number) => void) | null> {
    let work = this.refill(accountId, now);
    const deadline = now + MAX_WAIT_MS;
    while (work.running >= atOnce || work.budgetMs <= 0) {
      if (work.waiting >= MAX_WAITING) return null;
      const waitMs = work.running >= atOnce ? deadline - Date.now() : -work.budgetMs / EXPENSIVE_SHARE;
      if (Date.now() + waitMs > deadline || waitMs <= 0) return null;
      work.waiting++;
      try {
        await new Promise((resolve) => setTimeout(resolve, Math.min(WAIT_POLL_MS, waitMs)));
      } finally {
        work.waiting--;
      }
      work = this.refill(accountId, Date.now());
    }
    work.running++;
    const started = Date.now();
    return (ended = Date.now()) => {
      this.refill(accountId, ended);
      work.running--;
      work.budgetMs -= (ended - started) * charge;
    };
  }

  /** Seconds a refused caller should wait. */
  retryAfterSeconds(accountId: string): number {
    const work = this.accounts.get(accountId);
    return work && work.budgetMs < 0 ? -work.budgetMs / EXPENSIVE_SHARE / 1000 : 1;
  }

  private refill(accountId: string, now: number): AccountWork {
    let work = this.accounts.get(accountId);
    if (!work) {
      work = { running: 0, budgetMs: EXPENSIVE_BURST_MS, updatedAt: now, waiting: 0 };
      this.accounts.set(accountId, work);
    }
    work.budgetMs = Math.min(
      EXPENSIVE_BURST_MS,
      work.budgetMs + Math.max(0, now - work.updatedAt) * EXPENSIVE_SHARE,
    );
    work.updatedAt = now;
    return work;
  }
}

const limiter = new WorkLimiter();

/**
 * Runs `work` in `accountId`'s share of expensive work, starting while fewer than `atOnce` of the
 * account's expensive requests run: what no API key names, such as a page opened by a ticket or a
 * deep link (PAGE_CONCURRENCY), whose account is known only once the route has verified it.
 * The work must not wait on an expensive API call of the same account (it would hold a turn while
 * waiting for another).
 */
export async function withAccountWork<T>(
  env: Bindings,
  accountId: string,
  work: () => Promise<T>,
  atOnce = PAGE_CONCURRENCY,
  charge = HEAVY_CHARGE,
): Promise<T> {
  // ACCOUNT_WORK_LIMIT=off: a benchmark measuring one account's throughput, not its fair share.
  if (env.ACCOUNT_WORK_LIMIT === "off") return work();
  const release = await limiter.acquire(accountId, Date.now(), atOnce, charge);
  if (!release)
    throw tooManyRequests(
      `This account's expensive requests are over their share (${atOnce} at once, ${EXPENSIVE_SHARE * 100} % of the time)`,
      limiter.retryAfterSeconds(accountId),
    );
  try {
    return await work();
  } finally {
    release();
  }
}

/**
 * The share that anonymous visitors of an account's public pages (the deep-link page and its own API
 * calls) draw on: apart from the share of the account's keys and pilots, so strangers flooding the
 * pages of an account whose `client_id` they read in its links cannot starve the account itself.
 */
export const publicPagesShare = (accountId: string) => `pages of ${accountId}`;

/**
 * Runs an anonymous visitor's page of `accountId`: first in the visitor's own share (per address,
 * one page at once), then in the account's public pages' share (PAGE_CONCURRENCY, charged
 * HEAVY_CHARGE), never in the share of the account's own keys and pilots.
 */
export async function withVisitorWork<T>(
  env: Bindings,
  visitorAddress: string,
  accountId: string,
  work: () => Promise<T>,
): Promise<T> {
  return withAccountWork(env, `visitor ${visitorAddress}`, () =>
    withAccountWork(env, publicPagesShare(accountId), work),
  );
}

/** After the API key: holds an expensive request until its account's turn. */
export const limitAccountWork = createMiddleware<AppEnv>(async (c, next) => {
  const account = c.get("account");
  if (!account || !isExpensive(c.req.method, c.req.path)) return next();
  // A page's own API call: the page already holds the one turn of its visitors' share; this one
  // takes that share's second.
  if (pageAccount(c.env))
    return withAccountWork(c.env, publicPagesShare(account.id), next, EXPENSIVE_CONCURRENCY, 1);
  const heavy = Number(c.req.header("content-length") ?? 0) > HEAVY_BODY_BYTES;
  await withAccountWork(c.env, account.id, next, heavy ? 1 : EXPENSIVE_CONCURRENCY, heavy ? HEAVY_CHARGE : 1);
});
