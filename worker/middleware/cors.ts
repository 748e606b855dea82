import type { Context } from "hono";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import type { Account, AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { TtlCache } from "../lib/ttlCache";
import { listCorsOrigins, someAccountAllows } from "../store/corsOrigins";
import { dbFor } from "../store/db";

/** What a browser app sends besides the CORS-safelisted headers. */
export const CORS_ALLOW_HEADERS = ["X-API-Key", "Authorization", "Content-Type", "If-None-Match"];
/** Response headers a browser app may read besides the safelisted ones. */
export const CORS_EXPOSE_HEADERS = ["ETag", "Retry-After", "Allow", "Location", "x-d1-bookmark"];
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
/**
 * How long an isolate trusts what it read of the accounts' origins: a change made elsewhere
 * (`npm run cors`, another isolate) applies within this time; in the isolate that made it, at once.
 */
export const CORS_CACHE_MS = 10_000;
const MAX_CACHED = 10_000;

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
function serviceOrigins(c: Context<AppEnv>): AllowedOrigins {
  const value = c.env.CORS_ALLOWED_ORIGINS;
  if (parsed?.value !== value) parsed = { value, origins: parseAllowedOrigins(value) };
  return parsed.origins;
}

function isAllowed(origin: string, origins: AllowedOrigins): boolean {
  return origins === "*" || origins.has(origin);
}

// Per isolate: which origins some account lists, and each account's own list.
const listedByAnyone = new TtlCache<boolean>(MAX_CACHED);
const accountLists = new TtlCache<string[]>(MAX_CACHED);

const dbOf = (c: Context<AppEnv>) => c.var.db ?? dbFor(c.env.DB);

/** Whether a page at `origin` may call with some key: the service's setting or any account's list. */
async function allowedForSomeone(c: Context<AppEnv>, origin: string): Promise<boolean> {
  if (isAllowed(origin, serviceOrigins(c))) return true;
  const hit = listedByAnyone.get(origin);
  if (hit !== undefined) return hit;
  const allowed = await someAccountAllows(dbOf(c), origin);
  listedByAnyone.set(origin, allowed, CORS_CACHE_MS);
  return allowed;
}

/** An account's own origins (empty: the service's setting holds for it). */
export async function accountOrigins(c: Context<AppEnv>, accountId: string): Promise<string[]> {
  const hit = accountLists.get(accountId);
  if (hit) return hit;
  const origins = await listCorsOrigins(dbOf(c), accountId);
  accountLists.set(accountId, origins, CORS_CACHE_MS);
  return origins;
}

/** After an account's list changed here: this isolate applies it from the next request on. */
export function forgetCorsOrigins(accountId: string): void {
  accountLists.delete(accountId);
  listedByAnyone.clear();
}

const corsHeaders = cors({
  // `*` needs no echo: API keys travel in a header, never in cookies, so no credentials mode.
  origin: async (origin, c) => {
    if (serviceOrigins(c as Context<AppEnv>) === "*") return "*";
    return (await allowedForSomeone(c as Context<AppEnv>, origin)) ? origin : null;
  },
  allowMethods: METHODS,
  allowHeaders: CORS_ALLOW_HEADERS,
  exposeHeaders: CORS_EXPOSE_HEADERS,
  maxAge: 86_400,
});

/**
 * CORS for browser apps, before the API key check. A preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) carries no key, so it is answered here: 204 when the service's
 * CORS_ALLOWED_ORIGINS or any account's own list allows the origin, else a JSend 403. The request that
 * follows carries the key, and `requireAccountOrigin` holds it to that account's list.
 */
export const corsMiddleware = createMiddleware<AppEnv>(async (c, next) => {
  const origin = c.req.header("Origin");
  const preflight = c.req.method === "OPTIONS" && c.req.header("Access-Control-Request-Method");
  if (preflight && origin && !(await allowedForSomeone(c, origin))) {
    throw new ApiError(403, `Origin ${origin} may not call this API from a browser`, [
      {
        name: "origin",
        message: "in neither the service's CORS_ALLOWED_ORIGINS nor any application's origins",
      },
    ]);
  }
  return corsHeaders(c, next);
});

/**
 * A browser request (it has `Origin`) made with an account's key: the account's own origins when it
 * has any, else the service's setting. The service's own pages (same origin) always pass. 403 before
 * the route runs, so a refused page changes nothing.
 */
export async function requireAccountOrigin(c: Context<AppEnv>, account: Pick<Account, "id">): Promise<void> {
  const origin = c.req.header("Origin");
  if (!origin || origin === new URL(c.req.url).origin) return;
  const own = await accountOrigins(c, account.id);
  if (own.length > 0 ? own.includes(origin) : isAllowed(origin, serviceOrigins(c))) return;
  throw new ApiError(403, `Origin ${origin} may not call this API with this application's key`, [
    {
      name: "origin",
      message:
        own.length > 0
          ? "not among the application's CORS origins (GET/PUT /auth/v1/cors_origins)"
          : "not in the service's CORS_ALLOWED_ORIGINS; the application may list its own (PUT /auth/v1/cors_origins)",
    },
  ]);
}
