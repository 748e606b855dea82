import { describe, expect, it } from "vitest";
import {
  grantForm,
  passwordGrant,
  providerUrlProblem,
  refreshGrant,
  sdkTokens,
  tokenEndpointGrant,
} from "../../worker/domain/identityProvider";

const PUBLIC = { allowLoopback: false };
const DEV = { allowLoopback: true };

describe("providerUrlProblem", () => {
  it("accepts public https addresses", () => {
    for (const url of [
      "https://login.example.com/realms/pilots",
      "https://example.auth0.com/.well-known/jwks.json",
      "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_abc/.well-known/openid-configuration",
      "https://team.cloudflareaccess.com/cdn-cgi/access/certs",
    ])
      expect(providerUrlProblem(url, PUBLIC), url).toBeNull();
  });

  it("refuses, through the one outbound check, plain http, credentials, private, link-local, internal and loopback addresses", () => {
    const refused: [string, string][] = [
      ["http://login.example.com/", "https"],
      ["https://user:pw@login.example.com/", "user name or password"],
      ["https://10.0.0.5/jwks", "public host"],
      ["https://192.168.1.1/jwks", "public host"],
      ["https://172.20.0.1/jwks", "public host"],
      ["https://169.254.169.254/latest", "public host"],
      ["https://100.64.0.1/", "public host"],
      ["https://[fd00::1]/", "public host"],
      ["https://[::ffff:127.0.0.1]/", "public host"],
      ["https://keycloak.internal/", "public host"],
      ["https://intranet/", "public host"],
      ["http://127.0.0.1:8790/jwks", "https"],
      ["https://localhost/jwks", "public host"],
      ["not a url", "https://"],
    ];
    for (const [url, reason] of refused) expect(providerUrlProblem(url, PUBLIC), url).toContain(reason);
  });

  it("lets a development provider live on this machine only when opted in", () => {
    expect(providerUrlProblem("http://127.0.0.1:8790/token", DEV)).toBeNull();
    expect(providerUrlProblem("http://10.0.0.1/token", DEV)).toContain("https");
  });
});

describe("grants from the SDKs' bodies", () => {
  it("reads the C++ SDK's /oauth/ro JSON and always asks for openid and offline_access", () => {
    const parsed = passwordGrant({
      username: "pilot@example.com",
      password: "pw",
      client_id: "sdk",
      device: "d1",
      grant_type: "password",
      scope: "openid",
      connection: "Username-Password-Authentication",
    });
    expect(parsed).toEqual({
      ok: true,
      grant: {
        grantType: "password",
        username: "pilot@example.com",
        password: "pw",
        scope: "openid offline_access",
      },
    });
  });

  it("takes the OIDC authenticator's `scopes`, the legacy jwt-bearer refresh and the form refresh", () => {
    const form = tokenEndpointGrant({
      grant_type: "password",
      username: "u",
      password: "p",
      scopes: "openid profile",
    });
    expect(form.ok && form.grant.scope).toBe("openid profile offline_access");
    const legacy = refreshGrant({
      refresh_token: "r",
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
    });
    expect(legacy.ok && legacy.grant.grantType).toBe("refresh_token");
    expect(tokenEndpointGrant({ grant_type: "refresh_token", refresh_token: "r" }).ok).toBe(true);
  });

  it("posts the password only in the token endpoint's form, with the configured client", () => {
    const parsed = passwordGrant({ username: "u", password: "p w&=" });
    if (!parsed.ok) throw new Error("expected a grant");
    const form = grantForm(parsed.grant, "windsock", "secret");
    expect(Object.fromEntries(form)).toEqual({
      grant_type: "password",
      client_id: "windsock",
      scope: "openid offline_access",
      username: "u",
      password: "p w&=",
      client_secret: "secret",
    });
  });
});

describe("sdkTokens", () => {
  it("answers the fields the C++ decoders read, with their token_type spelling", () => {
    const body = {
      id_token: "a.b.c",
      access_token: "at",
      refresh_token: "rt",
      expires_in: 300,
      token_type: "Bearer",
    };
    expect(sdkTokens(200, body, "bearer")).toEqual({
      ok: true,
      tokens: {
        id_token: "a.b.c",
        access_token: "at",
        refresh_token: "rt",
        token_type: "bearer",
        expires_in: 300,
      },
    });
    const refreshed = sdkTokens(200, body, "Bearer");
    expect(refreshed.ok && refreshed.tokens.token_type).toBe("Bearer");
  });

  it("passes the provider's error and description on; a provider failure is a 502", () => {
    expect(
      sdkTokens(
        401,
        { error: "invalid_client", error_description: "client authentication failed" },
        "bearer",
      ),
    ).toEqual({
      ok: false,
      status: 401,
      error: "invalid_client",
      description: "client authentication failed",
    });
    const down = sdkTokens(503, "maintenance", "bearer");
    expect(!down.ok && down.status).toBe(502);
    const noId = sdkTokens(200, { access_token: "at" }, "bearer");
    expect(!noId.ok && noId.description).toContain("openid");
  });
});
