import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../worker/lib/hash";
import { CLOCK_LEEWAY_SECONDS, signingKey, signToken, type TokenClaims } from "../../worker/lib/jwt";
import { call, createAccount, type TestAccount, tokenFor } from "./helpers";

/** Tokens signed with the service's own key, claims chosen by the test. */
async function tokenWith(
  account: TestAccount,
  pilotId: string,
  claims: Partial<TokenClaims> & { nbf?: number },
) {
  const now = Math.floor(Date.now() / 1000);
  return signToken(
    { iss: env.JWT_ISSUER, sub: pilotId, aud: account.accountId, iat: now, exp: now + 3600, ...claims },
    await signingKey(env.JWT_PRIVATE_KEY),
  );
}

const asPilot = (account: TestAccount, pilotId: string, token: string) =>
  call(`/pilot/v2/${encodeURIComponent(pilotId)}`, { apiKey: account.apiKey, token });

describe("token times", () => {
  it("accepts a token issued now or a moment ahead, and one living exactly 24 hours", async () => {
    const account = await createAccount();
    const { pilotId } = await tokenFor(account, "on-time");
    const now = Math.floor(Date.now() / 1000);
    for (const claims of [
      {},
      { iat: now + CLOCK_LEEWAY_SECONDS - 5, exp: now + 7200 },
      { nbf: now + CLOCK_LEEWAY_SECONDS - 5 },
      { nbf: now - 600 },
      { iat: now - 60, exp: now - 60 + 24 * 3600 },
    ]) {
      const res = await asPilot(account, pilotId, await tokenWith(account, pilotId, claims));
      expect(res.status, JSON.stringify(claims)).toBe(200);
    }
  });

  it.each([
    ["iat in the future", (now: number) => ({ iat: now + 3600, exp: now + 7200 }), "issued in the future"],
    [
      "iat past the leeway",
      (now: number) => ({ iat: now + CLOCK_LEEWAY_SECONDS + 30 }),
      "issued in the future",
    ],
    ["nbf in the future", (now: number) => ({ nbf: now + 3600 }), "not valid yet"],
    ["nbf past the leeway", (now: number) => ({ nbf: now + CLOCK_LEEWAY_SECONDS + 30 }), "not valid yet"],
    ["a lifetime over 24 hours", (now: number) => ({ iat: now, exp: now + 24 * 3600 + 1 }), "over 24 hours"],
    [
      "a lifetime of a year",
      (now: number) => ({ iat: now - 60, exp: now + 365 * 24 * 3600 }),
      "over 24 hours",
    ],
    ["an nbf that is not a number", () => ({ nbf: "soon" as unknown as number }), "lacks required claims"],
  ])("refuses a token with %s (401, saying why)", async (_, claimsAt, reason) => {
    const account = await createAccount();
    const { pilotId } = await tokenFor(account, "early");
    const token = await tokenWith(account, pilotId, claimsAt(Math.floor(Date.now() / 1000)));
    const res = await asPilot(account, pilotId, token);
    expect(res.status).toBe(401);
    expect(res.json.status).toBe("fail");
    expect(res.json.data.message).toContain(reason);
  });

  it("issues tokens that pass its own checks: iat now, 24 hours of life", async () => {
    const account = await createAccount();
    const { token, pilotId } = await tokenFor(account, "issued");
    const claims = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
    expect(claims.exp - claims.iat).toBe(24 * 3600);
    expect(Math.abs(claims.iat - Date.now() / 1000)).toBeLessThan(CLOCK_LEEWAY_SECONDS);
    expect((await asPilot(account, pilotId, token)).status).toBe(200);
  });
});

describe("POST /auth/v1/key/revoke", () => {
  it("refuses the revoked key from the very next request of this isolate, and only that key", async () => {
    const account = await createAccount("revoking");
    const { token, pilotId } = await tokenFor(account, "holder");
    // Warm this isolate's key cache: without the revocation clearing it, the next call would pass.
    expect((await asPilot(account, pilotId, token)).status).toBe(200);

    const res = await call("/auth/v1/key/revoke", { method: "POST", apiKey: account.apiKey });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toMatchObject({ key_id: account.keyId, elsewhere_within_seconds: 10 });
    expect(Date.parse(res.json.data.revoked_at)).toBeGreaterThan(Date.now() - 60_000);

    const after = await asPilot(account, pilotId, token);
    expect(after.status).toBe(401);
    expect(after.json.data.message).toContain("revoked");
    expect((await call("/auth/v1/key/revoke", { method: "POST", apiKey: account.apiKey })).status).toBe(401);
    const row = await env.DB.prepare("SELECT revoked_at FROM api_keys WHERE id = ?")
      .bind(account.keyId)
      .first();
    expect(row?.revoked_at).toBe(Date.parse(res.json.data.revoked_at));
  });

  it("keeps a sibling key of the same account working", async () => {
    const account = await createAccount("two keys");
    // A second key of the same account, as keys:create --account mints it.
    const sibling = { ...account, keyId: "key|sibling-of-revoked", apiKey: `wsk_${"s".repeat(40)}` };
    await env.DB.prepare(
      "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    )
      .bind(
        sibling.keyId,
        account.accountId,
        "sibling",
        await sha256Hex(sibling.apiKey),
        "wsk_ssss",
        Date.now(),
      )
      .run();
    const { token, pilotId } = await tokenFor(account, "shared");
    expect((await call("/auth/v1/key/revoke", { method: "POST", apiKey: account.apiKey })).status).toBe(200);
    expect((await asPilot(account, pilotId, token)).status).toBe(401);
    expect((await asPilot(sibling, pilotId, token)).status).toBe(200);
  });
});
