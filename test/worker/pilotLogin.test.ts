import { beforeAll, describe, expect, it } from "vitest";
import { call, createAccount, type TestAccount } from "./helpers";

/**
 * The SDK login routes as far as the worker alone answers them: without an identity provider, with
 * bodies that name no usable grant. The provider's own answers are tested end to end against the
 * development OpenID Provider (test/e2e/pilots.test.ts).
 */

let account: TestAccount;
beforeAll(async () => {
  account = await createAccount("no provider");
});

const PASSWORD = "hunter2-secret";

describe("SDK login routes without an identity provider", () => {
  it("answer 400 naming the setting, in the OAuth shape the C++ client reads, never echoing the password", async () => {
    const routes: [string, Record<string, string>, boolean][] = [
      [
        "/oauth/ro",
        { username: "pilot", password: PASSWORD, grant_type: "password", scope: "openid" },
        false,
      ],
      [
        "/delegation",
        { refresh_token: "r", grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer" },
        false,
      ],
      [
        "/realms/airmap/protocol/openid-connect/token",
        { grant_type: "password", username: "pilot", password: PASSWORD, scopes: "openid", device_id: "d" },
        true,
      ],
    ];
    for (const [path, fields, form] of routes) {
      const res = await call(path, {
        method: "POST",
        apiKey: account.apiKey,
        body: form ? new URLSearchParams(fields).toString() : fields,
        headers: form ? { "Content-Type": "application/x-www-form-urlencoded" } : {},
      });
      expect(res.status, path).toBe(400);
      expect(res.json.error).toBe("unauthorized_client");
      expect(res.json.error_description).toContain("npm run pilots:provider");
      expect(res.json.status).toBe("fail");
      expect(res.text).not.toContain(PASSWORD);
    }
  });

  it("name what is missing or unsupported before any provider is asked", async () => {
    const cases: [string, Record<string, string>, string, string][] = [
      ["/oauth/ro", { username: "pilot" }, "invalid_request", "username and password are required"],
      ["/oauth/ro", { grant_type: "client_credentials" }, "unsupported_grant_type", "client_credentials"],
      ["/delegation", { grant_type: "refresh_token" }, "invalid_request", "refresh_token is required"],
      [
        "/realms/x/protocol/openid-connect/token",
        { grant_type: "implicit" },
        "unsupported_grant_type",
        "password or refresh_token",
      ],
    ];
    for (const [path, body, error, description] of cases) {
      const res = await call(path, { method: "POST", apiKey: account.apiKey, body });
      expect(res.status, path).toBe(400);
      expect(res.json.error).toBe(error);
      expect(res.json.error_description).toContain(description);
    }
  });

  it("without an API key, need a client_id (or realm) that names the application", async () => {
    const res = await call("/oauth/ro", { method: "POST", body: { username: "p", password: "p" } });
    expect(res.status).toBe(401);
    expect(res.json.error).toBe("invalid_client");
  });

  it("keep anonymous user ids apart from federated pilots", async () => {
    const res = await call("/auth/v1/anonymous/token", {
      method: "POST",
      apiKey: account.apiKey,
      body: { user_id: "oidc:https://idp.example#someone" },
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain("identity provider");
  });
});
