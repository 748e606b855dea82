import type { Context } from "hono";
import type { AppEnv, Bindings } from "../env";
import { ApiError } from "./errors";

/**
 * The service's public origin, for every link, redirect, `redirect_uri`, tile URL and the InterUSS
 * audience it builds: PUBLIC_URL's origin; in development, when unset, the request's (so any port
 * works). Never the `Host` header elsewhere: with `Host: evil.example` the service would send
 * pilots, tokens and caches there. Outside development an unset PUBLIC_URL is a 503 that names it.
 */
export function configuredOrigin(env: Pick<Bindings, "PUBLIC_URL">): string | undefined {
  const configured = env.PUBLIC_URL?.trim();
  if (!configured) return undefined;
  try {
    return new URL(configured).origin;
  } catch {
    throw new ApiError(
      503,
      `PUBLIC_URL is not a URL (${configured}): the operator must set it to https://<host>`,
    );
  }
}

/** The origin for this request's links; an answer that took the request's says so (`Vary: Host`). */
export function publicOrigin(c: Context<AppEnv>): string {
  const configured = configuredOrigin(c.env);
  if (configured) return configured;
  if (c.env.ENVIRONMENT !== "development")
    throw new ApiError(
      503,
      "The service's public address is not configured: the operator must set PUBLIC_URL (wrangler.toml [vars])",
    );
  c.header("Vary", "Host", { append: true });
  return new URL(c.req.url).origin;
}
