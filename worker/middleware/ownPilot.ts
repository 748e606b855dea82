import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { forbidden } from "../lib/errors";
import { requireToken } from "./token";

/**
 * For routes under `/pilot/v2/{id}` that only the pilot may use: a valid token whose pilot is
 * `{id}`. Runs before body validation, so a stranger learns nothing from the answer.
 */
export const requireOwnPilot = createMiddleware<AppEnv>((c, next) =>
  requireToken(c, async () => {
    if (c.req.param("id") !== c.var.pilotId)
      throw forbidden("Only the pilot may do this; the token belongs to another pilot");
    await next();
  }),
);
