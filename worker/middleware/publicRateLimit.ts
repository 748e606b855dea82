import { createMiddleware } from "hono/factory";
import type { AppEnv, Bindings } from "../env";
import { tooManyRequests } from "../lib/errors";
import { pageAccount } from "../pages/api";
import { recentlyLiveKey } from "./apiKey";
import { RateLimiter } from "./rateLimiter";
import { tarpit } from "./tarpit";

/**
 * Rate limits of what carries no live API key (the live page and stream with a ticket, the deep-link
 * page, docs, public keys, basemap tiles, InterUSS before its token is checked, and any request with
 * a made-up or revoked key), which the API key's bucket cannot hold:
 * per client address (RATE_LIMIT_PER_MINUTE, the figure an API key gets) for every such request,
 * per ticket (PER_TICKET_PER_MINUTE), and per account once the ticket or link has named it
 * (`takeAccountPageRequest`, again RATE_LIMIT_PER_MINUTE). /health (the supervisor's probe) and the
 * relay's /internal (its own credential and budgets) are left out. Isolate buckets, like the API key's.
 * 429 with Retry-After, JSend; held a while when the caller keeps asking (middleware/tarpit.ts).
 */

/** A page load and its stream's reconnections (every 2 s at worst) stay well within this. */
export const PER_TICKET_PER_MINUTE = 120;
const UNLIMITED = [/^\/health\/?$/, /^\/internal\//];

const buckets = new RateLimiter();

const perMinute = (env: Pick<Bindings, "RATE_LIMIT_PER_MINUTE">) => Number(env.RATE_LIMIT_PER_MINUTE ?? 1200);

/** The client's address as Cloudflare (and wrangler dev) reports it. */
export const clientAddress = (header: string | undefined) => header?.trim() || "unknown";

/** One request from `caller`'s bucket, or its refusal (429 saying `exceeded`). */
function take(caller: string, limit: number, exceeded: string): void {
  const wait = buckets.take(caller, limit);
  if (wait === 0) {
    tarpit.allowed(caller);
    return;
  }
  throw tarpit.refuse(
    caller,
    tooManyRequests(`Rate limit of ${limit} requests a minute ${exceeded} exceeded`, wait),
  );
}

/**
 * Before the API key: every request not made with a live key, per address and per ticket. A header
 * alone lifts nothing: a key this isolate has not seen live lately is counted as keyless first (the
 * key's own check comes after, and a bogus one is then refused or stays keyless).
 */
export const limitPublicRequests = createMiddleware<AppEnv>(async (c, next) => {
  // The deep-link page's own in-process calls: the page request was counted.
  if (pageAccount(c.env) || UNLIMITED.some((p) => p.test(c.req.path))) return next();
  const key = c.req.header("x-api-key")?.trim();
  if (key && (await recentlyLiveKey(key))) return next();
  const limit = perMinute(c.env);
  take(`address ${clientAddress(c.req.header("cf-connecting-ip"))}`, limit, "from this address");
  const ticket = c.req.query("ticket");
  if (ticket)
    take(
      `ticket ${ticket.slice(ticket.lastIndexOf(".") + 1)}`,
      Math.min(PER_TICKET_PER_MINUTE, limit),
      "with one ticket",
    );
  await next();
});

/**
 * One anonymous visitor's request of `accountId`'s public pages (a deep link names the account by
 * its `client_id`, which strangers read): a bucket apart from the one of the account's own pilots'
 * pages, so a flood of strangers never refuses the account's pilots.
 */
export function takeAccountVisitorRequest(
  env: Pick<Bindings, "RATE_LIMIT_PER_MINUTE">,
  accountId: string,
): void {
  take(`visitors of account ${accountId}`, perMinute(env), "for this account's public pages");
}

/** One request of a page or stream acting for `accountId`'s pilot (a verified ticket). */
export function takeAccountPageRequest(
  env: Pick<Bindings, "RATE_LIMIT_PER_MINUTE">,
  accountId: string,
): void {
  take(`account ${accountId}`, perMinute(env), "for this account's pages");
}

/** Page sign-ins one address may start a minute: each writes a row (kept 10 minutes). */
export const SIGN_INS_PER_MINUTE = 10;

/** One page sign-in started from `address`; 429 beyond SIGN_INS_PER_MINUTE. */
export function takeSignInStart(address: string | undefined): void {
  take(`sign-in ${clientAddress(address)}`, SIGN_INS_PER_MINUTE, "for sign-ins from this address");
}
