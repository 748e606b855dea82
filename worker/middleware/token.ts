import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { unauthorized } from "../lib/errors";
import { pilotOfBearer } from "../services/pilotTokens";

/**
 * Requires a bearer token of a pilot of the calling account (this service's own, or one of the
 * account's OpenID Connect provider); sets `pilotId` and `tokenExpiresAt`.
 */
export const requireToken = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("authorization");
  if (!header) throw unauthorized("Missing Authorization header: send `Bearer <id_token>`");
  await setPilot(c, header);
  await next();
});

/** Like requireToken, but a request without a token passes as anonymous; a bad token is still 401. */
export const optionalToken = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("authorization");
  if (header) await setPilot(c, header);
  else c.set("pilotId", undefined);
  await next();
});

async function setPilot(c: Context<AppEnv>, header: string): Promise<void> {
  const token = bearerToken(header);
  if (!token) throw unauthorized("Malformed Authorization header: send `Bearer <id_token>`");
  const { pilotId, expiresAt, subject } = await pilotOfBearer(c.env, c.var.db, token, c.var.account.id);
  c.set("pilotId", pilotId);
  c.set("pilotSubject", subject);
  c.set("tokenExpiresAt", expiresAt);
}

/**
 * A pilot id as a client sent it: the caller's own provider `sub` (what the Android and Swift SDKs read
 * as their pilot id) stands for the caller's pilot; any other id is itself. Only the caller's own sub
 * is read so, so no provider's or account's ids can reach another's pilot.
 */
export function pilotIdOf(
  c: { var: Pick<AppEnv["Variables"], "pilotId" | "pilotSubject"> },
  id: string,
): string {
  return c.var.pilotSubject !== undefined && id === c.var.pilotSubject && c.var.pilotId ? c.var.pilotId : id;
}

/** The credential of an `Authorization: Bearer <credential>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1];
}
