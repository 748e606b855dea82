import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { forbidden } from "../lib/errors";
import { pilotIdOf, requireToken } from "./token";

/**
 * For routes under `/pilot/v2/{id}` that only the pilot may use: a valid token whose pilot is
 * `{id}` (its pilot id, or the provider `sub` the SDKs use as one). Runs before body validation, so
 * a stranger learns nothing from the answer. Handlers then act on `c.var.pilotId`.
 */
export const requireOwnPilot = createMiddleware<AppEnv>((c, next) =>
  requireToken(c, async () => {
    if (pilotIdOf(c, c.req.param("id") ?? "") !== c.var.pilotId)
      throw forbidden("Only the pilot may do this; the token belongs to another pilot");
    await next();
  }),
);
