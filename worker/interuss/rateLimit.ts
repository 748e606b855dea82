import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { fromBase64url } from "../lib/hash";
import { RateLimiter } from "../middleware/rateLimiter";

/**
 * Rate limit of the InterUSS and F3411 endpoints, per token subject (`sub`): these callers carry no
 * API key, so the key's bucket cannot hold them. Placed after `requireScope`, which has verified the
 * token, so `sub` is trusted. 429 with Retry-After and the interfaces' `{"message"}` body.
 * The limit is RATE_LIMIT_PER_MINUTE, the same number an API key gets by default.
 */

const limiter = new RateLimiter();
const decoder = new TextDecoder();

function subjectOf(authorization: string | undefined): string | undefined {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  const payload = token?.split(".")[1];
  if (!payload) return undefined;
  try {
    const { sub, iss } = JSON.parse(decoder.decode(fromBase64url(payload))) as {
      sub?: unknown;
      iss?: unknown;
    };
    // The same `sub` from two authorities is two clients.
    return typeof sub === "string" ? `${typeof iss === "string" ? iss : ""} ${sub}` : undefined;
  } catch {
    return undefined;
  }
}

export function limitPerSubject(perMinute?: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const subject = subjectOf(c.req.header("Authorization"));
    if (subject === undefined) return next();
    const limit = perMinute ?? Number(c.env.RATE_LIMIT_PER_MINUTE ?? 1200);
    const wait = limiter.take(`interuss ${subject}`, limit);
    if (wait > 0) {
      c.header("Retry-After", String(Math.max(1, Math.ceil(wait))));
      return c.json({ message: `Rate limit of ${limit} requests a minute for this client exceeded` }, 429);
    }
    await next();
  };
}
