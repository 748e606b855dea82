import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { unauthorized } from "../lib/errors";
import { timingSafeEqual } from "../lib/hash";
import { bearerToken } from "./token";

/** The internal relay API accepts only `Authorization: Bearer <RELAY_SECRET>`: never API keys or tokens. */
export const requireRelayCredential = createMiddleware<AppEnv>(async (c, next) => {
  const secret = c.env.RELAY_SECRET;
  if (!secret)
    throw unauthorized("The relay credential is not configured: `wrangler secret put RELAY_SECRET`");
  const presented = bearerToken(c.req.header("authorization"));
  if (!presented || !timingSafeEqual(presented, secret)) throw unauthorized("Invalid relay credential");
  await next();
});
