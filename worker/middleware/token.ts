import { createMiddleware } from "hono/factory";
import type { AppEnv, Bindings } from "../env";
import { unauthorized } from "../lib/errors";
import { signingKey, verifyToken } from "../lib/jwt";

/** Requires a bearer token issued to a pilot of the calling account; sets `pilotId`. */
export const requireToken = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("authorization");
  if (!header) throw unauthorized("Missing Authorization header: send `Bearer <id_token>`");
  c.set("pilotId", await pilotOfToken(c.env, header, c.var.account.id));
  await next();
});

/** Like requireToken, but a request without a token passes as anonymous; a bad token is still 401. */
export const optionalToken = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("authorization");
  c.set("pilotId", header ? await pilotOfToken(c.env, header, c.var.account.id) : undefined);
  await next();
});

async function pilotOfToken(env: Bindings, header: string, accountId: string): Promise<string> {
  const token = bearerToken(header);
  if (!token) throw unauthorized("Malformed Authorization header: send `Bearer <id_token>`");
  const result = await verifyToken(token, await signingKey(env.JWT_PRIVATE_KEY), env.JWT_ISSUER);
  if (!result.ok) throw unauthorized(`Invalid token: ${result.reason}`);
  if (result.claims.aud !== accountId) throw unauthorized("Invalid token: issued to another application");
  return result.claims.sub;
}

/** The credential of an `Authorization: Bearer <credential>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1];
}
