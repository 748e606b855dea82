import { env } from "cloudflare:test";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { vi } from "vitest";

/**
 * An OpenID provider standing in for an application's own (its token endpoint and JWKS, answered
 * in-process by a fetch stub, as Keycloak and Auth0 answer: `invalid_grant` for a wrong password).
 */
export interface FakeProvider {
  issuer: string;
  clientId: string;
  /** A signed token of the provider for `sub` (RS256, `aud` the client). */
  token(sub: string, claims?: Record<string, unknown>): Promise<string>;
  /**
   * Answers the provider's URLs until vi.restoreAllMocks(); returns the grant types asked, in order,
   * and `revoke <token>` for each RFC 7009 revocation (its discovery document names the endpoint).
   */
  serve(users: Record<string, string>): string[];
  /** The application trusts it, with this client id. */
  trustedBy(accountId: string, clientId?: string): Promise<void>;
}

/** The providers serving now, by issuer: one fetch stub answers for all of them. */
const serving = new Map<string, (url: string, init?: RequestInit) => Promise<Response>>();

function install(issuer: string, answer: (url: string, init?: RequestInit) => Promise<Response>) {
  if (!vi.isMockFunction(globalThis.fetch)) {
    serving.clear();
    const real = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      const provider = [...serving].find(([prefix]) => url.startsWith(`${prefix}/`));
      return provider ? provider[1](url, init) : real(input, init);
    });
  }
  serving.set(issuer, answer);
}

export async function fakeProvider(issuer: string): Promise<FakeProvider> {
  const keyPair = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(keyPair.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  const clientId = `client-${crypto.randomUUID()}`;
  const token = (sub: string, claims: Record<string, unknown> = {}) =>
    new SignJWT({ email: `${sub}@example.com`, ...claims })
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(issuer)
      .setSubject(sub)
      .setAudience(clientId)
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(keyPair.privateKey);
  return {
    issuer,
    clientId,
    token,
    serve(users) {
      const asked: string[] = [];
      install(issuer, async (url, init) => {
        if (url === `${issuer}/jwks`) return Response.json({ keys: [jwk] });
        if (url === `${issuer}/.well-known/openid-configuration`)
          return Response.json({
            issuer,
            jwks_uri: `${issuer}/jwks`,
            token_endpoint: `${issuer}/token`,
            revocation_endpoint: `${issuer}/revoke`,
          });
        if (url === `${issuer}/revoke`) {
          const form = new URLSearchParams(String(init?.body ?? ""));
          if (form.get("client_id") !== clientId)
            return Response.json({ error: "invalid_client" }, { status: 401 });
          asked.push(`revoke ${form.get("token")}`);
          return new Response(null, { status: 200 });
        }
        if (url !== `${issuer}/token`) return new Response("not here", { status: 404 });
        const form = new URLSearchParams(String(init?.body ?? ""));
        asked.push(form.get("grant_type")!);
        const username = form.get("username") ?? "";
        const good =
          form.get("grant_type") === "password"
            ? users[username] !== undefined && users[username] === form.get("password")
            : form.get("refresh_token") === "refresh-good";
        if (!good)
          return Response.json(
            { error: "invalid_grant", error_description: "Wrong email or password." },
            { status: 400 },
          );
        const sub = username || Object.keys(users)[0]!;
        return Response.json({
          id_token: await token(sub),
          access_token: await token(sub),
          refresh_token: "refresh-good",
          token_type: "Bearer",
          expires_in: 3600,
        });
      });
      return asked;
    },
    async trustedBy(accountId, client = clientId) {
      const now = Date.now();
      await env.DB.prepare(
        `INSERT INTO identity_providers (account_id, issuer, jwks_url, token_endpoint, audience, user_claim,
           client_id, allow_loopback, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'sub', ?, 0, ?, ?)`,
      )
        .bind(accountId, issuer, `${issuer}/jwks`, `${issuer}/token`, clientId, client, now, now)
        .run();
    },
  };
}
