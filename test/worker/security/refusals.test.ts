import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { clearKeyCache } from "../../../worker/middleware/apiKey";
import { call, createAccount } from "../helpers";
import { fixture } from "./matrix";

describe("revoking a key", () => {
  it("takes effect once the isolate's key cache expires (cleared here)", async () => {
    const account = await createAccount();
    const first = await call("/aircraft/v2/manufacturer", { apiKey: account.apiKey });
    expect(first.status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?")
      .bind(Date.now(), account.keyId)
      .run();
    clearKeyCache();
    const after = await call("/aircraft/v2/manufacturer", { apiKey: account.apiKey });
    expect(after.status).toBe(401);
  });
});

describe("what a refused caller learns", () => {
  it("gets no profile data from a 403 or 401", async () => {
    const f = await fixture();
    for (const credentials of [
      { apiKey: f.victim.apiKey, token: f.samePilotAccount.token },
      { apiKey: f.victim.apiKey, token: f.forged["alg none"] },
    ]) {
      const res = await call(f.victim.path, { method: "PATCH", body: { first_name: "x" }, ...credentials });
      expect(res.text).not.toContain("+13105551212");
      expect(res.text).not.toContain("v@example.com");
    }
  });

  it("sees only the public profile when reading another pilot with its own token", async () => {
    const f = await fixture();
    const res = await call(f.victim.path, { apiKey: f.victim.apiKey, token: f.samePilotAccount.token });
    expect(Object.keys(res.json.data).sort()).toEqual(["id", "statistics", "username"]);
  });

  it("validates nothing before authorizing: a stranger's invalid body is still 403", async () => {
    const f = await fixture();
    const res = await call(f.victim.path, {
      method: "PATCH",
      body: { app_metadata: { admin: true } },
      apiKey: f.victim.apiKey,
      token: f.samePilotAccount.token,
    });
    expect(res.status).toBe(403);
  });
});
