import { createMiddleware } from "hono/factory";
import { dialectOf } from "../domain/sdkDialect";
import type { AppEnv } from "../env";

/** Which SDK asks, told once per request from its User-Agent (worker/domain/sdkDialect.ts); answers choose their words from it. */
export const readDialect = createMiddleware<AppEnv>(async (c, next) => {
  c.set("dialect", dialectOf(c.req.header("user-agent")));
  await next();
});
