import { describe, expect, it } from "vitest";
import { call, createAccount, tokenFor } from "./helpers";

describe("anonymous token", () => {
  it("issues an ES256 token whose sub is a stable pilot id per account", async () => {
    const account = await createAccount();
    const first = await tokenFor(account, "alice");
    const again = await tokenFor(account, "alice");
    expect(first.pilotId).toMatch(/^pilot\|[0-9A-Za-z]{22}$/);
    expect(again.pilotId).toBe(first.pilotId);
    const other = await tokenFor(await createAccount(), "alice");
    expect(other.pilotId).not.toBe(first.pilotId);
    const header = JSON.parse(atob(first.token.split(".")[0]!));
    expect(header.alg).toBe("ES256");
    expect(typeof header.kid).toBe("string");
  });

  it("accepts a form-encoded body", async () => {
    const account = await createAccount();
    const res = await call("/auth/v1/anonymous/token", {
      method: "POST",
      apiKey: account.apiKey,
      body: "user_id=bob",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(200);
    expect(res.json.data.id_token.split(".")).toHaveLength(3);
  });

  it("names user_id when it is missing or too long", async () => {
    const account = await createAccount();
    for (const body of [{}, { user_id: "" }, { user_id: "x".repeat(129) }, { user_id: 5 }]) {
      const res = await call("/auth/v1/anonymous/token", { method: "POST", apiKey: account.apiKey, body });
      expect(res.status).toBe(400);
      expect(res.json.status).toBe("fail");
      expect(res.json.data.errors.map((e: { name: string }) => e.name)).toContain("user_id");
    }
  });

  it("publishes the verifying key", async () => {
    const res = await call("/.well-known/jwks.json");
    expect(res.status).toBe(200);
    expect(res.json.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256" });
    expect(res.json.keys[0].d).toBeUndefined();
  });
});
