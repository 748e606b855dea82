import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { loginApplication } from "../services/loginApplication";
import { requireApiKey } from "./apiKey";
import { takeRequest } from "./rateLimiter";

/**
 * For the SDK login routes: the application is the API key's when one is sent, else the one named by
 * what the SDK sends without a key (services/loginApplication.ts), held to that application's own
 * rate limit. Refusals come in the OAuth shape the SDKs read (`error`, `error_description`).
 */
export const requireLoginApplication = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header("x-api-key")) return requireApiKey(c, next);
  const body = await loginBody(c);
  const clientId = typeof body.client_id === "string" ? body.client_id.trim() : "";
  const found = await loginApplication(c.env, c.var.db, {
    clientId: clientId || undefined,
    realm: c.req.param("realm"),
  });
  if (!found.ok) return oauthError(c, found.status, found.error, found.description);
  const { limit, waitSeconds } = await takeRequest(c.env, found.account);
  if (waitSeconds > 0)
    return oauthError(
      c,
      429,
      "too_many_requests",
      `Rate limit of ${limit} requests a minute exceeded`,
      waitSeconds,
    );
  c.set("account", found.account);
  await next();
});

/** The body as fields, JSON or form; anything unreadable is an empty body (the grant names what is missing). */
export async function loginBody(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const type = c.req.header("content-type") ?? "";
  if (type.includes("json")) {
    const json = await c.req.json().catch(() => null);
    return typeof json === "object" && json !== null && !Array.isArray(json) ? json : {};
  }
  const form = await c.req.parseBody().catch(() => ({}));
  return form as Record<string, unknown>;
}

/**
 * An OAuth error as the SDKs read it (the C++ client shows `error_description`), with the JSend
 * `fail` beside it as every answer of this service has.
 */
export function oauthError(
  c: Context<AppEnv>,
  status: 400 | 401 | 429 | 502,
  error: string,
  description: string,
  retryAfterSeconds?: number,
) {
  c.header("Cache-Control", "no-store");
  if (retryAfterSeconds !== undefined)
    c.header("Retry-After", String(Math.max(1, Math.ceil(retryAfterSeconds))));
  return c.json(
    {
      error,
      error_description: description,
      status: "fail" as const,
      data: { code: status, message: description, errors: [] },
    },
    status,
  );
}
