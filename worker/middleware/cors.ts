import type { Context } from "hono";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";

/** What a browser app sends besides the CORS-safelisted headers. */
export const CORS_ALLOW_HEADERS = ["X-API-Key", "Authorization", "Content-Type", "If-None-Match"];
/** Response headers a browser app may read besides the safelisted ones. */
export const CORS_EXPOSE_HEADERS = ["ETag", "Retry-After", "Allow", "Location"];
const METHODS = ["GET", "HEAD", "POST", "PATCH", "DELETE"];

export type AllowedOrigins = "*" | ReadonlySet<string>;

/**
 * `CORS_ALLOWED_ORIGINS`: a comma list of origins (`https://app.example`), or `*` for any. Unset or
 * empty allows none. Paths and trailing slashes are dropped; an entry that is no URL is ignored.
 */
export function parseAllowedOrigins(value: string | undefined): AllowedOrigins {
  const entries = (value ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.includes("*")) return "*";
  const origins = new Set<string>();
  for (const entry of entries) {
    try {
      origins.add(new URL(entry).origin);
    } catch {
      // not an origin; nobody can match it
    }
  }
  return origins;
}

let parsed: { value: string | undefined; origins: AllowedOrigins } | undefined;
function allowedOrigins(c: Context<AppEnv>): AllowedOrigins {
  const value = c.env.CORS_ALLOWED_ORIGINS;
  if (parsed?.value !== value) parsed = { value, origins: parseAllowedOrigins(value) };
  return parsed.origins;
}

function isAllowed(origin: string, origins: AllowedOrigins): boolean {
  return origins === "*" || origins.has(origin);
}

const corsHeaders = cors({
  // `*` needs no echo: API keys travel in a header, never in cookies, so no credentials mode.
  origin: (origin, c) => {
    const origins = allowedOrigins(c as Context<AppEnv>);
    if (origins === "*") return "*";
    return origins.has(origin) ? origin : null;
  },
  allowMethods: METHODS,
  allowHeaders: CORS_ALLOW_HEADERS,
  exposeHeaders: CORS_EXPOSE_HEADERS,
  maxAge: 86_400,
});

/**
 * CORS for browser apps, before the API key check: a preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) is answered here without a key, 204 for an allowed origin and a
 * JSend 403 naming the setting for any other. Other requests from a refused origin are served
 * without `Access-Control-Allow-Origin`, so the browser keeps the answer from the page.
 */
export const corsMiddleware = createMiddleware<AppEnv>(async (c, next) => {
  const origin = c.req.header("Origin");
  const preflight = c.req.method === "OPTIONS" && c.req.header("Access-Control-Request-Method");
  if (preflight && origin && !isAllowed(origin, allowedOrigins(c))) {
    throw new ApiError(403, `Origin ${origin} may not call this API from a browser`, [
      { name: "origin", message: "not in the service's CORS_ALLOWED_ORIGINS" },
    ]);
  }
  return corsHeaders(c, next);
});
