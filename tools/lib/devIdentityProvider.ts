import { generateKeyPairSync, randomBytes, timingSafeEqual } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { JWK } from "jose";
import Provider, { errors, type KoaContextWithOIDC } from "oidc-provider";
import type { ToolDb } from "./db";

/**
 * The development OpenID Provider: `oidc-provider` (a certified OpenID Provider) on 127.0.0.1, with
 * one pilot, one public client for Windsock and the password grant registered for the SDKs' legacy
 * login routes. `npm start` runs it and points the development application at it; the end-to-end
 * tests start their own. Never for production: its keys and sessions live in memory.
 */

export const DEV_CLIENT_ID = "windsock-dev";
export const DEV_PILOT_USERNAME = "dev-pilot";

/**
 * Where the Swift SDK's AppAuth sign-in returns: `<lowercased bundle id>://oauth2/airmap`
 * (AirMapSDK-Swift `Source/Core/Auth/AppAuth+AirMap.swift` 28–29), here for the SDK's own example
 * app, `com.airmap.AirMapSDK-Example-iOS` (`Example/AirMapSDK.xcodeproj`).
 */
export const SWIFT_EXAMPLE_REDIRECT_URI = "com.airmap.airmapsdk-example-ios://oauth2/airmap";

/**
 * The app redirect URIs the development client accepts besides the service's own pages:
 * `IDP_REDIRECT_URIS` (comma-separated, each a native app's custom-scheme URI or a loopback http
 * one), else the Swift SDK example app's. Throws naming the setting when one is not a URI.
 */
export function appRedirectUris(setting: string | undefined): string[] {
  if (setting === undefined || setting.trim() === "") return [SWIFT_EXAMPLE_REDIRECT_URI];
  const uris = setting
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  for (const uri of uris)
    if (!URL.canParse(uri) || uri.includes("#"))
      throw new Error(
        `IDP_REDIRECT_URIS: "${uri}" is not a redirect URI (e.g. com.example.app://oauth2/airmap)`,
      );
  return uris;
}

export interface DevIdentityProviderOptions {
  /** 0 picks a free port. */
  port: number;
  password: string;
  /** Where the deep-link page (and tests) receive the authorization code. */
  redirectUris: string[];
  /** The client registered for Windsock (default DEV_CLIENT_ID); tests give each provider its own. */
  clientId?: string;
}

export interface DevIdentityProvider {
  issuer: string;
  discoveryUrl: string;
  clientId: string;
  username: string;
  /** The key id tokens are signed with now. */
  currentKid(): string;
  /** Signs with a new key from now on (the old one stays published), as a provider rotating keys does. */
  rotateKeys(): string;
  close(): Promise<void>;
}

/** Scopes the development provider grants. */
const SCOPES = ["openid", "offline_access", "profile", "email"];

/**
 * The API its access tokens are for. Every access token is a JWT for it (RFC 9068, through
 * oidc-provider's resource indicators), signed like the ID tokens and with the client id as `aud`:
 * the Swift SDK sends the ACCESS token as its bearer (AuthService.swift 201–205), and the worker
 * accepts the provider's tokens whose `aud` is the application's configured audience. Its scope
 * `airmap-api` is the one the Swift SDK asks for (Constants.swift 90).
 */
const API_RESOURCE = "urn:windsock:api";
const API_SCOPE = "airmap-api";

function apiResourceServer(clientId: string) {
  return {
    scope: API_SCOPE,
    audience: clientId,
    accessTokenTTL: 3600,
    accessTokenFormat: "jwt" as const,
    jwt: { sign: { alg: "RS256" as const } },
  };
}

export async function startDevIdentityProvider(
  options: DevIdentityProviderOptions,
): Promise<DevIdentityProvider> {
  const server = createServer();
  server.listen(options.port, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const cookieKeys = [randomBytes(32).toString("base64url")];
  const keys: JWK[] = [signingKey()];

  let provider = build(issuer, keys, options, cookieKeys);
  server.on("request", (req, res) => {
    handle(provider, req, res, options).catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });

  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    clientId: options.clientId ?? DEV_CLIENT_ID,
    username: DEV_PILOT_USERNAME,
    currentKid: () => keys[0]!.kid!,
    rotateKeys() {
      keys.unshift(signingKey());
      // oidc-provider fixes its key set at construction: a new instance signs with the new key first.
      provider = build(issuer, keys, options, cookieKeys);
      return keys[0]!.kid!;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

function signingKey(): JWK {
  const jwk = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" }) as JWK;
  return { ...jwk, kid: `dev-${randomBytes(6).toString("hex")}`, alg: "RS256", use: "sig" };
}

function build(
  issuer: string,
  keys: JWK[],
  options: DevIdentityProviderOptions,
  cookieKeys: string[],
): Provider {
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId ?? DEV_CLIENT_ID,
        // A public client of native apps (RFC 8252): custom-scheme redirect URIs such as the Swift
        // SDK's, and loopback http ones such as the service's own pages in development.
        application_type: "native",
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token", "password"],
        response_types: ["code"],
        redirect_uris: options.redirectUris,
      },
    ],
    jwks: { keys: keys as never },
    cookies: { keys: cookieKeys },
    scopes: SCOPES,
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    findAccount: (_ctx, id) => (id === DEV_PILOT_USERNAME ? pilotAccount(id) : undefined),
    features: {
      devInteractions: { enabled: false },
      // RFC 7009, where the service's logout route revokes a signed-out pilot's refresh token.
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource, client) => {
          if (resource !== API_RESOURCE) throw new errors.InvalidTarget();
          return apiResourceServer(client.clientId);
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    // As Keycloak (the SDKs' own provider) does: a refresh token with every code exchange of a client
    // allowed to refresh. The Swift SDK asks for offline_access with prompt=login, which the OpenID
    // rules would otherwise answer without one, and it renews and signs out with it.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    // The SDKs refresh with the token they got; a rotated one would break a retried refresh.
    rotateRefreshToken: false,
    ttl: { AccessToken: 3600, IdToken: 3600, RefreshToken: 14 * 24 * 3600, Grant: 14 * 24 * 3600 },
  });
  provider.registerGrantType(
    "password",
    (ctx: KoaContextWithOIDC) => passwordGrant(provider, ctx, options.password),
    ["username", "password", "scope"],
  );
  return provider;
}

function pilotAccount(id: string) {
  return {
    accountId: id,
    claims: () => ({
      sub: id,
      email: `${id}@windsock.invalid`,
      email_verified: true,
      name: "Development Pilot",
    }),
  };
}

function credentialsMatch(username: unknown, password: unknown, expected: string): boolean {
  if (username !== DEV_PILOT_USERNAME || typeof password !== "string") return false;
  const given = Buffer.from(password);
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * The resource-owner password grant (RFC 6749 §4.3), which oidc-provider leaves to the deployer:
 * check the pilot's credentials, then issue the access, refresh and ID tokens as the provider's own
 * grants do.
 */
async function passwordGrant(provider: Provider, ctx: KoaContextWithOIDC, password: string) {
  const { username, password: given, scope: requested } = ctx.oidc.params as Record<string, unknown>;
  if (!credentialsMatch(username, given, password)) throw new errors.InvalidGrant("Wrong email or password.");
  const client = ctx.oidc.client!;
  const accountId = DEV_PILOT_USERNAME;
  const scopes = String(requested ?? "openid")
    .split(" ")
    .filter((s) => SCOPES.includes(s));
  if (!scopes.includes("openid")) scopes.unshift("openid");
  const scope = scopes.join(" ");

  const grant = new provider.Grant({ accountId, clientId: client.clientId });
  grant.addOIDCScope(scope);
  grant.addResourceScope(API_RESOURCE, API_SCOPE);
  const grantId = await grant.save();
  const account = pilotAccount(accountId);
  ctx.oidc.entity("Account", account as never);
  ctx.oidc.entity("Grant", grant);

  const at = new provider.AccessToken({ accountId, client, grantId, gty: "password", scope: API_SCOPE });
  at.resourceServer = new provider.ResourceServer(API_RESOURCE, apiResourceServer(client.clientId));
  const accessToken = await at.save();
  const refreshToken = scopes.includes("offline_access")
    ? await new provider.RefreshToken({
        accountId,
        client,
        grantId,
        gty: "password",
        scope: `${scope} ${API_SCOPE}`,
        resource: API_RESOURCE,
      }).save()
    : undefined;
  const idToken = new provider.IdToken({ ...(await account.claims()) }, { ctx });
  // The scope filters the claims the ID token carries (untyped in @types/oidc-provider).
  (idToken as unknown as { scope: string }).scope = scope;
  ctx.body = {
    access_token: accessToken,
    expires_in: at.expiration,
    id_token: await idToken.issue({ use: "idtoken" }),
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    scope,
    token_type: "Bearer",
  };
}

/** The sign-in page of an authorization request: the development pilot's credentials, nothing else. */
async function handle(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  options: DevIdentityProviderOptions,
) {
  const match = /^\/interaction\/([\w-]+)(\/login)?$/.exec(req.url?.split("?")[0] ?? "");
  if (!match) return provider.callback()(req, res);
  const details = await provider.interactionDetails(req, res);
  if (req.method === "POST" && match[2]) {
    const form = new URLSearchParams(await bodyOf(req));
    if (!credentialsMatch(form.get("username"), form.get("password"), options.password))
      return page(res, 400, loginForm(details.uid, "Wrong username or password."));
    const grant = new provider.Grant({
      accountId: DEV_PILOT_USERNAME,
      clientId: String(details.params.client_id),
    });
    grant.addOIDCScope(String(details.params.scope ?? "openid"));
    grant.addResourceScope(API_RESOURCE, API_SCOPE);
    const grantId = await grant.save();
    return provider.interactionFinished(req, res, {
      login: { accountId: DEV_PILOT_USERNAME },
      consent: { grantId },
    });
  }
  return page(res, 200, loginForm(details.uid));
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function page(res: ServerResponse, status: number, html: string) {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(html);
}

/** The sign-in page, styled like the service's own pages, so a pilot trying the flow is not lost. */
function loginForm(uid: string, problem?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign in (development provider)</title><style>
:root{color-scheme:light dark}body{margin:0;font:16px/1.5 system-ui,sans-serif;display:grid;place-items:center;min-height:100vh;background:#f6f7f9}
@media (prefers-color-scheme:dark){body{background:#0f1216;color:#e6e9ee}main{background:#181c22!important}}
main{width:min(24rem,100% - 2rem);padding:1.5rem 1.8rem;background:#fff;border-radius:.7rem;box-shadow:0 1px 3px #0003}
h1{font-size:1.25rem;margin:0 0 .3rem}p.note{color:#6b7280;font-size:.9rem;margin:0 0 1rem}
form{display:grid;gap:.8rem}label{display:grid;gap:.25rem;font-weight:600;font-size:.95rem}
input{font:inherit;padding:.55rem .7rem;border:1px solid #9ca3af;border-radius:.4rem}
button{font:inherit;font-weight:600;padding:.65rem;border:0;border-radius:.4rem;background:#1d4ed8;color:#fff;cursor:pointer}
[role=alert]{background:#fee2e2;color:#991b1b;padding:.5rem .7rem;border-radius:.4rem}</style></head><body><main>
<h1>Sign in</h1><p class="note">Windsock's development provider: the user and password <code>npm start</code> printed.</p>
${problem ? `<p role="alert">${problem}</p>` : ""}
<form method="post" action="/interaction/${uid}/login">
<label>Username <input name="username" autocomplete="username" required autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form></main></body></html>`;
}

/**
 * Points an application at the development provider (loopback allowed): its tokens become the
 * application's pilot tokens and the SDK login routes sign the development pilot in.
 */
export async function trustDevProvider(
  db: ToolDb,
  accountId: string,
  provider: DevIdentityProvider,
): Promise<void> {
  const { saveIdentityProvider } = await import("../../worker/store/identityProviders");
  await saveIdentityProvider(
    db,
    {
      accountId,
      issuer: provider.issuer,
      discoveryUrl: provider.discoveryUrl,
      jwksUrl: `${provider.issuer}/jwks`,
      tokenEndpoint: `${provider.issuer}/token`,
      authorizationEndpoint: `${provider.issuer}/auth`,
      audience: provider.clientId,
      userClaim: "sub",
      clientId: provider.clientId,
      clientSecret: null,
      allowLoopback: true,
    },
    Date.now(),
  );
}
