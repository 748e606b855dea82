import { ensureDevVars } from "../lib/devVars";

/**
 * A token for the local service's InterUSS interfaces, minted as `npm run interuss:token` does:
 * the development key, for `aud` 127.0.0.1 (the service's host name without INTERUSS_AUDIENCE).
 */
export async function benchInterussToken(scopes: string[], subject: string): Promise<string> {
  const [{ DEV_ISSUER, MAX_LIFETIME_SECONDS }, { signingKey, signToken }] = await Promise.all([
    import("../../worker/interuss/auth"),
    import("../../worker/lib/jwt"),
  ]);
  const vars = ensureDevVars();
  const iat = Math.floor(Date.now() / 1000);
  const claims = {
    iss: DEV_ISSUER,
    sub: subject,
    aud: "127.0.0.1",
    iat,
    exp: iat + MAX_LIFETIME_SECONDS,
    scope: scopes.join(" "),
  };
  return signToken(claims as Parameters<typeof signToken>[0], await signingKey(vars.JWT_PRIVATE_KEY!));
}
