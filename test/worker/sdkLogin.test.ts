import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { FREE_FAILURES_PER_ADDRESS, FREE_FAILURES_PER_USER } from "../../worker/domain/loginThrottle";
import type { Bindings } from "../../worker/env";
import app from "../../worker/index";
import { type FakeProvider, fakeProvider } from "./fakeProvider";
import { BASE, call, createAccount, type TestAccount } from "./helpers";

/**
 * The SDK login routes as the SDKs call them (issue #35 item 2, issue #37 item 5), against a provider
 * standing in for the application's own (its token endpoint and JWKS answered here, as Keycloak and
 * Auth0 answer: `invalid_grant` for a wrong password). The bodies are the C++ SDK's
 * (platform-sdk src/airmap/codec/json/authenticator.cpp 57–78), sent as its SSO requester sends them:
 * without X-API-Key (src/airmap/rest/client.cpp 28–30, `requesters.sso`). The answers are read as its
 * decoder reads them (src/airmap/codec/json/token.cpp; a 4xx shows `error_description`).
 */

const PASSWORD = "correct horse";
const USER = "pilot-a";
let provider: FakeProvider;
let account: TestAccount;
let publicId: string;
let clientId: string;
let asked: string[];

const serveProvider = () => {
  asked = provider.serve({ [USER]: PASSWORD });
};

/** One request to the worker as deployed with `settings`, from the client address `address`. */
async function send(
  path: string,
  init: { body?: string; type?: string; headers?: Record<string, string>; method?: string } = {},
  settings: Partial<Bindings> = {},
  address = "198.51.100.7",
) {
  const ctx = createExecutionContext();
  const response = await app.fetch(
    new Request(`${BASE}${path}`, {
      method: init.method ?? "POST",
      headers: {
        "cf-connecting-ip": address,
        ...(init.body ? { "content-type": init.type ?? "application/json" } : {}),
        ...init.headers,
      },
      body: init.body,
    }),
    { ...env, ...settings },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: JSON.parse(text), text };
}

/** The C++ SDK's `/oauth/ro` body (codec/json/authenticator.cpp 57–66). */
const oauthRo = (username: string, password: string, client = clientId) =>
  JSON.stringify({
    username,
    password,
    client_id: client,
    device: "device-1",
    grant_type: "password",
    scope: "openid offline_access",
    connection: "Username-Password-Authentication",
  });

/** token.cpp's Token::OAuth through jsend's parse_to_outcome: `data` when `status` is success. */
const oauthToken = (json: any) => ({ id: json.data.id_token, bearer: json.data.token_type === "bearer" });

beforeAll(async () => {
  provider = await fakeProvider("https://login-sdk.example.com");
  clientId = provider.clientId;
  account = await createAccount("sdk login", 100_000);
  await provider.trustedBy(account.accountId);
  publicId = (await env.DB.prepare("SELECT public_id FROM accounts WHERE id = ?")
    .bind(account.accountId)
    .first<{ public_id: string }>())!.public_id;
});
afterEach(() => vi.restoreAllMocks());

describe("SDK login without an API key (C++ SDK requesters.sso)", () => {
  it("POST /oauth/ro: client_id names the application; the token works for the app's later calls", async () => {
    serveProvider();
    const res = await send("/oauth/ro", { body: oauthRo(USER, PASSWORD) }, {}, "198.51.100.1");
    expect(res.status, res.text).toBe(200);
    const token = oauthToken(res.json);
    expect(token.bearer).toBe(true);
    expect(asked).toEqual(["password"]);
    // Later calls go through the key-wrapped requesters (client.cpp 22–40): the app's key and the token.
    const me = await call("/pilot/v2/profile", { apiKey: account.apiKey, token: token.id });
    expect(me.status, me.text).toBe(200);
    expect(me.json.data.id).toMatch(/^pilot\|/);
  });

  it("POST /delegation: the C++ renew body (authenticator.cpp 72–78) renews without a key", async () => {
    serveProvider();
    const res = await send(
      "/delegation",
      {
        body: JSON.stringify({
          client_id: clientId,
          refresh_token: "refresh-good",
          grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
          scope: "openid offline_access",
        }),
      },
      {},
      "198.51.100.2",
    );
    expect(res.status, res.text).toBe(200);
    // Token::Refreshed: token_type "Bearer", expires_in, id_token.
    expect(res.json.data.token_type).toBe("Bearer");
    expect(res.json.data.expires_in).toBe(3600);
    expect(res.json.data.id_token.split(".")).toHaveLength(3);
  });

  it("the realm may name the application by its public id; SDK_LOGIN_APPLICATION names it when nothing else does", async () => {
    serveProvider();
    const form = (extra: Record<string, string> = {}) =>
      new URLSearchParams({
        grant_type: "password",
        username: USER,
        password: PASSWORD,
        scopes: "openid",
        ...extra,
      }).toString();
    const type = "application/x-www-form-urlencoded";
    const byRealm = await send(
      `/realms/${publicId}/protocol/openid-connect/token`,
      { body: form(), type },
      {},
      "198.51.100.3",
    );
    expect(byRealm.status, byRealm.text).toBe(200);
    const nothing = await send(
      "/realms/airmap/protocol/openid-connect/token",
      { body: form(), type },
      {},
      "198.51.100.3",
    );
    expect(nothing.status).toBe(401);
    expect(nothing.json.error).toBe("invalid_client");
    expect(nothing.json.error_description).toContain("client_id");
    const byDefault = await send(
      "/realms/airmap/protocol/openid-connect/token",
      { body: form(), type },
      { SDK_LOGIN_APPLICATION: publicId },
      "198.51.100.3",
    );
    expect(byDefault.status, byDefault.text).toBe(200);
    expect(asked).toEqual(["password", "password"]);
  });

  it("GET /realms/airmap/.well-known/openid-configuration without a key: the provider's document (Swift Constants.swift 89, AppAuth discovery)", async () => {
    serveProvider();
    const found = await send(
      "/realms/airmap/.well-known/openid-configuration",
      { method: "GET" },
      { SDK_LOGIN_APPLICATION: publicId },
    );
    expect(found.status, found.text).toBe(200);
    // What AppAuth's OIDServiceDiscovery requires: issuer, authorization and token endpoints, jwks_uri…
    expect(found.json.issuer).toBe(provider.issuer);
    expect(found.json.jwks_uri).toBe(`${provider.issuer}/jwks`);
    expect(found.json.token_endpoint).toBe(`${provider.issuer}/token`);
    for (const field of [
      "response_types_supported",
      "subject_types_supported",
      "id_token_signing_alg_values_supported",
    ])
      expect(found.json[field]).toBeInstanceOf(Array);
    const byRealm = await send(`/realms/${publicId}/.well-known/openid-configuration`, { method: "GET" });
    expect(byRealm.json.issuer).toBe(provider.issuer);
    const nobody = await send("/realms/airmap/.well-known/openid-configuration", { method: "GET" });
    expect(nobody.status).toBe(401);
    expect(nobody.json.error).toBe("invalid_client");
  });

  it("an unknown client_id is refused in the OAuth shape, before any provider is asked", async () => {
    serveProvider();
    const res = await send(
      "/oauth/ro",
      { body: oauthRo(USER, PASSWORD, "nobody's-client") },
      {},
      "198.51.100.4",
    );
    expect(res.status).toBe(401);
    expect(res.json.error).toBe("invalid_client");
    expect(res.json.error_description).toContain("nobody's-client");
    expect(res.text).not.toContain(PASSWORD);
    expect(asked).toEqual([]);
  });

  it("keyless sign-ins are held to the application's own rate limit, as its key is", async () => {
    const limited = await createAccount("sdk login limited", 3);
    const limitedClient = `sdk-login-limited-${crypto.randomUUID()}`;
    await provider.trustedBy(limited.accountId, limitedClient);
    serveProvider();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (
          await send(
            "/delegation",
            { body: JSON.stringify({ client_id: limitedClient, refresh_token: "refresh-good" }) },
            {},
            `198.51.100.${50 + i}`,
          )
        ).status,
      );
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});

describe("password guessing (issue #37 item 5)", () => {
  it("1 address, 1 user, 200 wrong passwords at once: the provider hears the free few, the rest wait with Retry-After", async () => {
    serveProvider();
    const address = "203.0.113.10";
    const before = (await call("/system/v1/sign_in_metrics", { apiKey: account.apiKey })).json.data;
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        send("/oauth/ro", { body: oauthRo(USER, `guess-${i}`) }, {}, address),
      ),
    );
    const refused = answers.filter((a) => a.status === 400);
    const held = answers.filter((a) => a.status === 429);
    expect(refused.length).toBe(FREE_FAILURES_PER_USER);
    expect(asked.length).toBe(FREE_FAILURES_PER_USER);
    expect(held.length).toBe(200 - FREE_FAILURES_PER_USER);
    for (const answer of held) {
      expect(answer.json.error).toBe("too_many_attempts");
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    // Even the right password waits out the back-off: the guesser learns nothing from it.
    const right = await send("/oauth/ro", { body: oauthRo(USER, PASSWORD) }, {}, "203.0.113.11");
    expect(right.status).toBe(429);
    expect(asked.length).toBe(FREE_FAILURES_PER_USER);
    const after = (await call("/system/v1/sign_in_metrics", { apiKey: account.apiKey })).json.data;
    expect(after.failed - before.failed).toBe(FREE_FAILURES_PER_USER);
    expect(after.throttled - before.throttled).toBe(201 - FREE_FAILURES_PER_USER);
  });

  it("a name the provider does not know backs off exactly as a known one: the answers do not tell them apart", async () => {
    serveProvider();
    const shapes = [];
    for (const [user, address] of [
      ["someone-real", "203.0.113.20"],
      ["nobody-at-all", "203.0.113.21"],
    ]) {
      const answers = [];
      for (let i = 0; i < FREE_FAILURES_PER_USER + 2; i++)
        answers.push(await send("/oauth/ro", { body: oauthRo(user!, `x${i}`) }, {}, address));
      shapes.push(answers.map((a) => [a.status, a.json.error, a.headers.get("retry-after")]));
    }
    expect(shapes[0]).toEqual(shapes[1]);
  });

  it("one address guessing many names is held back after its own free failures", async () => {
    serveProvider();
    const address = "203.0.113.30";
    const statuses = [];
    for (let i = 0; i < FREE_FAILURES_PER_ADDRESS + 3; i++)
      statuses.push(
        (await send("/oauth/ro", { body: oauthRo(`spray-${i}`, "Password1") }, {}, address)).status,
      );
    expect(statuses.slice(0, FREE_FAILURES_PER_ADDRESS)).toEqual(Array(FREE_FAILURES_PER_ADDRESS).fill(400));
    expect(statuses.slice(FREE_FAILURES_PER_ADDRESS)).toEqual([429, 429, 429]);
    // Another address still reaches the provider meanwhile.
    const other = await send("/oauth/ro", { body: oauthRo("spray-elsewhere", "x") }, {}, "203.0.113.31");
    expect(other.status).toBe(400);
    expect(other.json.error).toBe("invalid_grant");
  });
});
