import { etag, RETAINED_304_HEADERS } from "hono/etag";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";

/** Cache-Control of the cacheable answers. */
export const CACHE = {
  /** Public, rarely changing documents: JWKS, the OpenAPI document, the docs page. */
  publicShort: "public, max-age=300",
  /** Answers to an API key about data that changes only with an import: elevation, rulesets. */
  privateHour: "private, max-age=3600",
} as const;

// A 304 keeps the CORS headers too, so a browser app may use it.
const withEtag = etag({
  retainedHeaders: [...RETAINED_304_HEADERS, "access-control-allow-origin", "access-control-expose-headers"],
});

/**
 * `Cache-Control` and a strong `ETag` on successful GET/HEAD answers (the route's own ETag if it set
 * one, else a digest of the body), and `304 Not Modified` when `If-None-Match` names it.
 */
export function cacheable(cacheControl: string) {
  return createMiddleware<AppEnv>((c, next) =>
    withEtag(c, async () => {
      await next();
      const read = c.req.method === "GET" || c.req.method === "HEAD";
      if (read && c.res.ok && !c.res.headers.has("Cache-Control")) c.header("Cache-Control", cacheControl);
    }),
  );
}
