import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ROOT } from "../../tools/lib/config";
import {
  DEV_CLIENT_ID,
  DEV_PILOT_USERNAME,
  type DevIdentityProvider,
  SWIFT_EXAMPLE_REDIRECT_URI,
  startDevIdentityProvider,
} from "../../tools/lib/devIdentityProvider";
import { JWKS_REFETCH_COOLDOWN_MS } from "../../worker/domain/identityProvider";
import { addAccount } from "./services";

/**
 * Federated pilots end to end, with real processes: the development OpenID Provider (oidc-provider)
 * in this process, the service project's one `npm start` (test/browser/globalSetup.ts) serving the
 * worker, and an application of its own there, pointed at the provider by the operator command.
 * The SDK login bodies are the C++ SDK's own (airmap/platform-sdk
 * src/airmap/codec/json/authenticator.cpp and src/airmap/rest/oidc/authenticator.cpp), and the
 * answers are read as its decoders read them (src/airmap/codec/json/token.cpp through
 * include/airmap/jsend.h's parse_to_outcome).
 */

const exec = promisify(execFile);
/** The whole token answer of the last authorization code exchange (the Swift SDK keeps all of it). */
let lastCodeTokens: any;
const keylessClientId = `windsock-e2e-${randomBytes(4).toString("hex")}`;
const { baseUrl, stateDir } = inject("service");
const PASSWORD = randomBytes(9).toString("base64url");
const CALLBACK = "http://127.0.0.1:9/callback";
let provider: DevIdentityProvider;
let apiKey: string;

/** jsend::to_outcome: `status` success → `data`; no status and an `error` → that error; else the body. */
function parseToOutcome(body: any): { ok: true; value: any } | { ok: false; error: string } {
  if ("status" in body) {
    if (body.status === "success") return { ok: true, value: body.data };
    return { ok: false, error: body.status === "error" ? String(body.message) : "a failure occured" };
  }
  if ("error" in body) return { ok: false, error: String(body.error) };
  return { ok: true, value: body };
}

/** Token::OAuth as token.cpp decodes it. */
function decodeOAuth(j: any) {
  return {
    refresh: j.refresh_token,
    id: j.id_token,
    access: j.access_token,
    bearer: j.token_type === "bearer",
  };
}

/** Token::Refreshed as token.cpp decodes it. */
function decodeRefreshed(j: any) {
  return { bearer: j.token_type === "Bearer", expiresIn: j.expires_in, id: j.id_token };
}

/** The C++ client's handling of `authenticate_with_password` answers (rest/authenticator.cpp). */
async function cppPasswordOutcome(res: Response) {
  const body = (await res.json()) as any;
  if (res.status >= 400 && res.status < 500)
    return {
      ok: false as const,
      error: "error_description" in body ? body.error_description : "generic client error",
    };
  const outcome = parseToOutcome(body);
  return outcome.ok ? { ok: true as const, token: decodeOAuth(outcome.value) } : outcome;
}

function post(
  route: string,
  body: Record<string, string>,
  form = false,
  headers: Record<string, string> = {},
) {
  return fetch(`${baseUrl}${route}`, {
    method: "POST",
    headers: {
      "x-api-key": apiKey,
      "content-type": form ? "application/x-www-form-urlencoded" : "application/json",
      ...headers,
    },
    body: form ? new URLSearchParams(body) : JSON.stringify(body),
  });
}

function profile(token: string) {
  return fetch(`${baseUrl}/pilot/v2/profile`, {
    headers: { "x-api-key": apiKey, authorization: `Bearer ${token}` },
  });
}

/** The C++ SDK's `/oauth/ro` body: codec/json/authenticator.cpp encode(AuthenticateWithPassword::Params). */
function oauthRoBody(password: string) {
  return {
    username: provider.username,
    password,
    client_id: provider.clientId,
    device: "device-1",
    grant_type: "password",
    scope: "openid offline_access",
    connection: "Username-Password-Authentication",
  };
}

beforeAll(async () => {
  provider = await startDevIdentityProvider({
    port: 0,
    password: PASSWORD,
    redirectUris: [CALLBACK, `${baseUrl}/create_flight/v1/signed_in`],
    // Its own client id: a keyless sign-in's client_id then names this application alone.
    clientId: keylessClientId,
  });
  const prepared = await addAccount(stateDir, "e2e pilots");
  apiKey = prepared.apiKey;
  // The operator's command, reading the provider's discovery document.
  const { stdout } = await exec(
    process.execPath,
    [
      "--import",
      "tsx",
      "tools/identityProvider.ts",
      "set",
      "--account",
      prepared.accountId,
      "--discovery-url",
      provider.discoveryUrl,
      "--audience",
      provider.clientId,
      "--allow-loopback",
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        STATE_DIR: stateDir,
        CLOUDFLARE_CF_FETCH_ENABLED: "false",
        WRANGLER_SEND_METRICS: "false",
      },
    },
  );
  expect(stdout).toContain(`trusts ${provider.issuer}`);
  expect(stdout).toContain(`${provider.issuer}/token`);
}, 180_000);

afterAll(async () => {
  await provider?.close();
});

describe("federated pilots through the development OpenID Provider", () => {
  let refreshToken: string;
  let pilotId: string;

  it("POST /oauth/ro signs the pilot in with the C++ SDK's body; the id_token is a pilot token", async () => {
    const res = await post("/oauth/ro", oauthRoBody(PASSWORD));
    expect(res.status).toBe(200);
    const outcome = await cppPasswordOutcome(res);
    if (!outcome.ok) throw new Error(outcome.error);
    expect(outcome.token.bearer).toBe(true);
    expect(outcome.token.id.split(".")).toHaveLength(3);
    expect(outcome.token.access.length).toBeGreaterThan(0);
    expect(outcome.token.refresh.length).toBeGreaterThan(0);
    refreshToken = outcome.token.refresh;

    const me = await profile(outcome.token.id);
    expect(me.status).toBe(200);
    pilotId = ((await me.json()) as any).data.id;
    expect(pilotId).toMatch(/^pilot\|/);

    // The same user signs in again: the same pilot.
    const again = await cppPasswordOutcome(await post("/oauth/ro", oauthRoBody(PASSWORD)));
    if (!again.ok) throw new Error(again.error);
    expect(((await (await profile(again.token.id)).json()) as any).data.id).toBe(pilotId);
  });

  it("a wrong password answers the provider's error with the error_description the C++ client shows", async () => {
    const res = await post("/oauth/ro", oauthRoBody("not-the-password"));
    expect(res.status).toBe(400);
    const body = (await res.clone().json()) as any;
    expect(body.error).toBe("invalid_grant");
    const outcome = await cppPasswordOutcome(res);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toBe(body.error_description);
    expect(JSON.stringify(body)).not.toContain("not-the-password");
  });

  it("POST /delegation renews with the legacy JSON body and with the OpenID Connect form", async () => {
    // codec/json/authenticator.cpp encode(RenewAuthentication::Params): grant_type jwt-bearer, scope.
    const legacy = await post("/delegation", {
      client_id: provider.clientId,
      refresh_token: refreshToken,
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      scope: "openid offline_access",
    });
    expect(legacy.status).toBe(200);
    const renewed = parseToOutcome(await legacy.json());
    if (!renewed.ok) throw new Error(renewed.error);
    const token = decodeRefreshed(renewed.value);
    expect(token.bearer).toBe(true);
    expect(token.expiresIn).toBeGreaterThan(0);
    expect(((await (await profile(token.id)).json()) as any).data.id).toBe(pilotId);

    // rest/oidc/authenticator.cpp renew_authentication: a form with grant_type refresh_token.
    const form = await post(
      "/delegation",
      { grant_type: "refresh_token", client_id: provider.clientId, refresh_token: refreshToken },
      true,
    );
    expect(form.status).toBe(200);
    const formOutcome = parseToOutcome(await form.json());
    if (!formOutcome.ok) throw new Error(formOutcome.error);
    expect(decodeRefreshed(formOutcome.value).id.split(".")).toHaveLength(3);

    const bad = await post("/delegation", { grant_type: "refresh_token", refresh_token: "forged" }, true);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error).toBe("invalid_grant");
  });

  it("POST /realms/airmap/protocol/openid-connect/token takes the OIDC authenticator's exact form", async () => {
    // rest/oidc/authenticator.cpp authenticate_with_password.
    const res = await post(
      "/realms/airmap/protocol/openid-connect/token",
      {
        grant_type: "password",
        username: provider.username,
        password: PASSWORD,
        client_id: provider.clientId,
        device_id: "device-1",
        scopes: "openid",
      },
      true,
    );
    expect(res.status).toBe(200);
    const outcome = await cppPasswordOutcome(res);
    if (!outcome.ok) throw new Error(outcome.error);
    expect(((await (await profile(outcome.token.id)).json()) as any).data.id).toBe(pilotId);
  });

  it("authorization code with PKCE: the provider's id_token is accepted as the same pilot", async () => {
    const idToken = await authorizationCodeLogin(provider, CALLBACK, PASSWORD);
    expect(((await (await profile(idToken)).json()) as any).data.id).toBe(pilotId);
  });

  it("the Swift SDK's sign-in: its bearer is the ACCESS token, its pilot id the token's sub (AuthService.swift 201–205)", async () => {
    await authorizationCodeLogin(provider, CALLBACK, PASSWORD);
    const access = lastCodeTokens.access_token as string;
    expect(access.split(".")).toHaveLength(3);
    const sub = JSON.parse(Buffer.from(lastCodeTokens.id_token.split(".")[1], "base64url").toString()).sub;
    const read = await fetch(`${baseUrl}/pilot/v2/${encodeURIComponent(sub)}`, {
      headers: { "x-api-key": apiKey, authorization: `Bearer ${access}` },
    });
    expect(read.status).toBe(200);
    expect(((await read.json()) as any).data.id).toBe(pilotId);
  });

  it("POST /oauth/ro without X-API-Key, as the C++ SDK's SSO requester sends it (rest/client.cpp requesters.sso)", async () => {
    const res = await fetch(`${baseUrl}/oauth/ro`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...oauthRoBody(PASSWORD), client_id: keylessClientId }),
    });
    expect(res.status).toBe(200);
    const outcome = await cppPasswordOutcome(res);
    if (!outcome.ok) throw new Error(outcome.error);
    expect(((await (await profile(outcome.token.id)).json()) as any).data.id).toBe(pilotId);
  });

  it("key rotation: a token signed with a kid the worker has not seen refetches the provider's keys", async () => {
    const before = provider.currentKid();
    const kid = provider.rotateKeys();
    expect(kid).not.toBe(before);
    // Unknown kids refetch at most once per cooldown: wait it out from the last fetch.
    await new Promise((r) => setTimeout(r, JWKS_REFETCH_COOLDOWN_MS + 500));
    const outcome = await cppPasswordOutcome(await post("/oauth/ro", oauthRoBody(PASSWORD)));
    if (!outcome.ok) throw new Error(outcome.error);
    expect(JSON.parse(Buffer.from(outcome.token.id.split(".")[0]!, "base64url").toString()).kid).toBe(kid);
    const me = await profile(outcome.token.id);
    expect(me.status).toBe(200);
    expect(((await me.json()) as any).data.id).toBe(pilotId);
  }, 30_000);

  it("refuses alg none and HMAC tokens naming the provider, and tokens of an issuer not trusted", async () => {
    const claims = {
      iss: provider.issuer,
      sub: provider.username,
      aud: provider.clientId,
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 600,
    };
    const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    const none = `${part({ alg: "none" })}.${part(claims)}.`;
    const hmacInput = `${part({ alg: "HS256", kid: provider.currentKid() })}.${part(claims)}`;
    const hmac = `${hmacInput}.${createHash("sha256").update(hmacInput).digest("base64url")}`;
    const stranger = `${part({ alg: "RS256", kid: "x" })}.${part({ ...claims, iss: "https://idp.example" })}.c2ln`;
    for (const [token, reason] of [
      [none, "unsupported token algorithm"],
      [hmac, "unsupported token algorithm"],
      [stranger, "does not trust the issuer"],
    ] as const) {
      const res = await profile(token);
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).data.message).toContain(reason);
    }
  });
});

describe("the deep-link page signs the pilot in at the application's provider", () => {
  it("authorization code + PKCE through the page, state single-use; the flight is the pilot's", async () => {
    const res = await fetch(`${baseUrl}/deeplink/v1/create_flight`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      body: JSON.stringify({ geometry: { type: "Point", coordinates: [8.54, 47.37] }, buffer: 50 }),
    });
    expect(res.status).toBe(200);
    const creation = new URL(new URL(((await res.json()) as any).data.link).searchParams.get("link")!);
    expect(creation.searchParams.has("grant")).toBe(false);
    const page = await (await fetch(creation.href)).text();
    expect(page).toContain("Sign in to create the flight");
    expect(page).not.toContain('value="create"');
    const signInHref = /href="(\/create_flight\/v1\/sign_in\?[^"]+)"/
      .exec(page)![1]!
      .replaceAll("&amp;", "&");

    const started = await fetch(`${baseUrl}${signInHref}`, { redirect: "manual" });
    expect(started.status).toBe(303);
    const authorize = new URL(started.headers.get("location")!);
    expect(authorize.origin).toBe(provider.issuer);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    for (const name of ["state", "nonce", "code_challenge"])
      expect(authorize.searchParams.get(name)).toBeTruthy();
    const redirectUri = `${baseUrl}/create_flight/v1/signed_in`;
    const back = await signInAtProvider(provider, authorize.href, redirectUri, PASSWORD);

    // The browser that started the sign-in returns with its cookie (issue 37, item 6).
    const browserCookie = started.headers.get("set-cookie")!.split(";")[0]!;
    const finished = await fetch(back, { redirect: "manual", headers: { cookie: browserCookie } });
    expect(finished.status).toBe(303);
    const signedIn = new URL(finished.headers.get("location")!, baseUrl);
    expect(signedIn.searchParams.get("grant")).toMatch(/^wsg_/);
    // The provider's answer is single-use: replayed, it signs nobody in.
    const replayed = await fetch(back, { redirect: "manual", headers: { cookie: browserCookie } });
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).toContain("unknown, used or expired");

    const form = await (await fetch(signedIn.href)).text();
    expect(form).toContain("You are signed in");
    const created = await fetch(signedIn.href, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        altitude: "30",
        buffer: "50",
        start: "0",
        duration: "30",
        action: "create",
        units: "metric",
      }),
    });
    const html = await created.text();
    expect(created.status, html.slice(0, 2000)).toBe(200);
    const flightId = /id="flight-id">([^<]+)</.exec(html)![1]!;
    const login = await cppPasswordOutcome(await post("/oauth/ro", oauthRoBody(PASSWORD)));
    if (!login.ok) throw new Error(login.error);
    const flight = await fetch(`${baseUrl}/flight/v2/${encodeURIComponent(flightId)}`, {
      headers: { "x-api-key": apiKey, authorization: `Bearer ${login.token.id}` },
    });
    expect(flight.status).toBe(200);
    const me = ((await (await profile(login.token.id)).json()) as any).data.id;
    expect(((await flight.json()) as any).data.pilot_id).toBe(me);
  });
});

/**
 * The Swift SDK's own OpenID sign-in, as AppAuth runs it (AirMapSDK-Swift 0fbabab, AppAuth-iOS 1.x),
 * against the development provider exactly as `npm start` configured it (the shared service's, not
 * one made by this file): discovery at the SDK's issuer `https://auth.<domain>/realms/airmap/`
 * (Constants.swift 89; the auth host pointed at this service), the authorization request of
 * `OIDAuthorizationRequest(from:)` (AppAuth+AirMap.swift 26–37) with the app's redirect URI
 * `<lowercased bundle id>://oauth2/airmap`, the code exchanged with PKCE, the ID token checked as
 * AppAuth checks it, then the SDK's own calls with the ACCESS token as bearer and the ID token's
 * `sub` as the pilot (AuthService.swift 191–209), a profile edit with `app_metadata`
 * (AirMapPilot.swift 71–89), a refresh, and its logout (OpenIdClient.swift 32–42).
 */
describe("the Swift SDK's AppAuth sign-in at npm start's development provider", () => {
  const REDIRECT = SWIFT_EXAMPLE_REDIRECT_URI;
  const shell = readFileSync(inject("service").envFile, "utf8");
  const setting = (name: string) => new RegExp(`^export ${name}='?([^'\n]+)'?$`, "m").exec(shell)![1]!;
  const appKey = setting("WINDSOCK_API_KEY");
  const pilotPassword = setting("WINDSOCK_PILOT_PASSWORD");
  /** HTTPClient.defaultHeaders (HTTPClient.swift 70–80). */
  const swiftHeaders = (accessToken: string) => ({
    Accept: "application/json",
    "X-API-Key": appKey,
    Authorization: `Bearer ${accessToken}`,
  });

  it("signs in with the app's redirect URI, reads and edits the pilot, refreshes, and logs out", async () => {
    // OIDAuthorizationService.discoverConfiguration: `<issuer>.well-known/openid-configuration`, no key.
    const discovered = await fetch(`${baseUrl}/realms/airmap/.well-known/openid-configuration`);
    expect(discovered.status).toBe(200);
    const config = (await discovered.json()) as any;
    for (const member of ["issuer", "authorization_endpoint", "token_endpoint"])
      expect(typeof config[member], member).toBe("string");

    // OIDAuthorizationRequest: 32 random bytes each for state, nonce and verifier, S256, prompt=login.
    const random = () => randomBytes(32).toString("base64url");
    const [state, nonce, verifier] = [random(), random(), random()];
    const authorize = new URL(config.authorization_endpoint);
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id: DEV_CLIENT_ID,
      redirect_uri: REDIRECT,
      scope: "openid email airmap-api offline_access",
      state,
      nonce,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      prompt: "login",
    }))
      authorize.searchParams.set(k, v);
    const back = new URL(
      await signInAtProvider(
        { issuer: config.issuer, username: DEV_PILOT_USERNAME },
        authorize.href,
        REDIRECT,
        pilotPassword,
      ),
    );
    expect(`${back.protocol}//${back.host}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get("state")).toBe(state);

    // OIDTokenRequest for a public client: client_id in the form, no secret.
    const tokenForm = (fields: Record<string, string>) =>
      fetch(config.token_endpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded; charset=UTF-8" },
        body: new URLSearchParams({ ...fields, client_id: DEV_CLIENT_ID }),
      });
    const exchanged = await tokenForm({
      code: back.searchParams.get("code")!,
      code_verifier: verifier,
      grant_type: "authorization_code",
      redirect_uri: REDIRECT,
    });
    const tokens = (await exchanged.json()) as any;
    expect(exchanged.status, JSON.stringify(tokens)).toBe(200);
    expect(typeof tokens.refresh_token).toBe("string");
    // AppAuth's ID token checks: issuer, audience, expiry, issued within 10 minutes, nonce.
    const id = JSON.parse(Buffer.from(tokens.id_token.split(".")[1], "base64url").toString());
    expect(id.iss).toBe(config.issuer);
    expect([id.aud].flat()).toContain(DEV_CLIENT_ID);
    expect(id.exp * 1000).toBeGreaterThan(Date.now());
    expect(Math.abs(Date.now() / 1000 - id.iat)).toBeLessThan(600);
    expect(id.nonce).toBe(nonce);

    // The SDK's credentials: the ACCESS token as bearer, the ID token's sub as the pilot.
    const sub: string = id.sub;
    const read = await fetch(`${baseUrl}/pilot/v2/${encodeURIComponent(sub)}`, {
      headers: swiftHeaders(tokens.access_token),
    });
    const pilot = ((await read.json()) as any).data;
    expect(read.status).toBe(200);
    expect(pilot.id).toMatch(/^pilot\|/);
    // PilotClient.update (PilotClient.swift 49–55): PATCH /pilot/v2/{pilot.id} with AirMapPilot.params(),
    // app_metadata always among them; nil names become JSON null.
    const edited = await fetch(`${baseUrl}/pilot/v2/${encodeURIComponent(pilot.id)}`, {
      method: "PATCH",
      headers: { ...swiftHeaders(tokens.access_token), "Content-Type": "application/json" },
      body: JSON.stringify({
        first_name: "Ada",
        last_name: null,
        user_metadata: { units: "metric" },
        app_metadata: pilot.app_metadata ?? {},
        username: pilot.username,
      }),
    });
    const after = ((await edited.json()) as any).data;
    expect(edited.status, JSON.stringify(after)).toBe(200);
    // Mapped onto the pilot it edits (`update: pilot`, HTTPClient.swift 392–394): what the answer omits stays.
    expect({ ...pilot, ...after }).toMatchObject({
      id: pilot.id,
      first_name: "Ada",
      user_metadata: { units: "metric" },
    });

    // OIDAuthState renews with the refresh token at the provider; the new access token works the same.
    const renewed = await tokenForm({ grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    const fresh = (await renewed.json()) as any;
    expect(renewed.status, JSON.stringify(fresh)).toBe(200);
    const again = await fetch(`${baseUrl}/pilot/v2/${encodeURIComponent(sub)}`, {
      headers: swiftHeaders(fresh.access_token),
    });
    expect(((await again.json()) as any).data.id).toBe(pilot.id);

    // AirMap.logout: the form to <issuer>protocol/openid-connect/logout at this service; the refresh
    // token no longer renews at the provider afterwards.
    const loggedOut = await fetch(`${baseUrl}/realms/airmap/protocol/openid-connect/logout`, {
      method: "POST",
      headers: {
        ...swiftHeaders(fresh.access_token),
        "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
      },
      body: new URLSearchParams({ client_id: DEV_CLIENT_ID, refresh_token: tokens.refresh_token }),
    });
    expect(loggedOut.status, await loggedOut.clone().text()).toBe(204);
    expect(loggedOut.headers.get("x-refresh-token-revoked")).toBe("true");
    const refused = await tokenForm({ grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).error).toBe("invalid_grant");
  });

  it("the provider refuses a redirect URI npm start did not configure", async () => {
    const config = (await (
      await fetch(`${baseUrl}/realms/airmap/.well-known/openid-configuration`)
    ).json()) as any;
    const authorize = new URL(config.authorization_endpoint);
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id: DEV_CLIENT_ID,
      redirect_uri: "com.example.other://oauth2/airmap",
      scope: "openid",
      code_challenge: createHash("sha256").update("x".repeat(43)).digest("base64url"),
      code_challenge_method: "S256",
    }))
      authorize.searchParams.set(k, v);
    const res = await fetch(authorize, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("redirect_uri");
  });
});

/**
 * The authorization code flow as a relying party runs it: PKCE challenge, the provider's sign-in
 * form with the pilot's credentials, the code at the redirect URI, the code and verifier exchanged.
 */
async function authorizationCodeLogin(idp: DevIdentityProvider, redirectUri: string, password: string) {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const state = randomBytes(8).toString("hex");
  const nonce = randomBytes(8).toString("hex");
  const authorize = new URL(`${idp.issuer}/auth`);
  for (const [k, v] of Object.entries({
    client_id: idp.clientId,
    response_type: "code",
    scope: "openid",
    redirect_uri: redirectUri,
    state,
    nonce,
    code_challenge: challenge,
    code_challenge_method: "S256",
  }))
    authorize.searchParams.set(k, v);
  const back = new URL(await signInAtProvider(idp, authorize.href, redirectUri, password));
  expect(back.searchParams.get("state")).toBe(state);
  const code = back.searchParams.get("code")!;
  const exchanged = await fetch(`${idp.issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      client_id: idp.clientId,
      code_verifier: verifier,
    }),
  });
  const tokens = (await exchanged.json()) as any;
  expect(exchanged.status).toBe(200);
  const claims = JSON.parse(Buffer.from(tokens.id_token.split(".")[1], "base64url").toString());
  expect(claims.nonce).toBe(nonce);
  lastCodeTokens = tokens;
  return tokens.id_token as string;
}

/**
 * A browser at the provider: the authorization request, its sign-in form with the pilot's
 * credentials, and the redirects until the provider sends the browser back to `redirectUri`.
 */
async function signInAtProvider(
  idp: Pick<DevIdentityProvider, "issuer" | "username">,
  authorizeUrl: string,
  redirectUri: string,
  password: string,
) {
  const jar = new Map<string, string>();
  const go = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
      },
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const [name, ...value] = pair!.split("=");
      jar.set(name!, value.join("="));
    }
    return res;
  };
  let res = await go(authorizeUrl);
  const interaction = new URL(res.headers.get("location")!, idp.issuer).href;
  expect(interaction).toMatch(/\/interaction\//);
  expect((await go(interaction)).status).toBe(200);
  res = await go(`${interaction}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: idp.username, password }).toString(),
  });
  for (let i = 0; i < 5 && !res.headers.get("location")?.startsWith(redirectUri); i++)
    res = await go(new URL(res.headers.get("location")!, idp.issuer).href);
  const location = res.headers.get("location")!;
  expect(location.startsWith(redirectUri)).toBe(true);
  return location;
}
