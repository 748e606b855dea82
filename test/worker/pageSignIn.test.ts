import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import app from "../../worker/index";
import { SIGN_INS_PER_MINUTE } from "../../worker/middleware/publicRateLimit";
import { BASE, call, createAccount, type TestAccount } from "./helpers";

/**
 * Issue 37, items 3 and 6: the deep-link page's sign-in at the account's provider. Each start wrote
 * a row of the whole link, forever (4,500 GETs: 4,500 rows, no 429), and a `signed_in` URL handed to
 * another browser signed that browser in as the attacker's pilot.
 */

let account: TestAccount;
/** `/create_flight/v1/sign_in?…` for a link of the account, with a long geometry (a big query). */
let signInPath: string;

beforeAll(async () => {
  account = await createAccount("page-sign-in");
  const now = Date.now();
  await env.DB.prepare(
    `INSERT INTO identity_providers (account_id, issuer, jwks_url, token_endpoint, authorization_endpoint,
       audience, user_claim, client_id, allow_loopback, created_at, updated_at)
     VALUES (?, 'https://login.example.com', 'https://login.example.com/jwks', 'https://login.example.com/token',
       'https://login.example.com/authorize', 'windsock', 'sub', 'windsock', 0, ?, ?)`,
  )
    .bind(account.accountId, now, now)
    .run();
  // A ring of 200 positions: a link of about 8 KB of query (the attack used 380).
  const ring = Array.from({ length: 200 }, (_, i) => {
    const a = (2 * Math.PI * i) / 200;
    return [8.54 + 0.01 * Math.cos(a), 47.37 + 0.01 * Math.sin(a)];
  });
  ring.push(ring[0]!);
  const built = await call("/deeplink/v1/create_flight", {
    method: "POST",
    apiKey: account.apiKey,
    body: { geometry: { type: "Polygon", coordinates: [ring] } },
  });
  expect(built.status, built.text).toBe(200);
  const creation = new URL(new URL(built.json.data.link).searchParams.get("link")!);
  expect(creation.search.length).toBeGreaterThan(5000);
  signInPath = `/create_flight/v1/sign_in${creation.search}`;
});

async function send(path: string, address: string, headers: Record<string, string> = {}, settings = {}) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${BASE}${path}`, {
      headers: { "cf-connecting-ip": address, ...headers },
      redirect: "manual",
    }),
    { ...env, ...settings },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

const count = async (sql: string, ...params: unknown[]) =>
  (await env.DB.prepare(sql)
    .bind(...params)
    .first<{ n: number }>())!.n;

const statesOf = (accountId: string) =>
  count("SELECT count(*) AS n FROM sign_in_states WHERE account_id = ?", accountId);

describe("page sign-ins are bounded (item 3)", () => {
  it("the 4,500-request flood from one address: a few rows, the rest 429, the link stored once", async () => {
    const before = await statesOf(account.accountId);
    const startedAt = Date.now();
    const statuses: number[] = [];
    // In waves: refusals to a caller who keeps asking are held a second each (the tarpit).
    for (let wave = 0; wave < 9; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 500 }, () => send(signInPath, "203.0.113.77").then((r) => r.status)),
      );
      statuses.push(...answers);
    }
    expect(statuses).toHaveLength(4500);
    const started = statuses.filter((s) => s === 303).length;
    expect(started).toBeGreaterThanOrEqual(1);
    // The minute's budget, and what the bucket refilled while the flood lasted.
    const refilled = Math.ceil(((Date.now() - startedAt) / 60_000) * SIGN_INS_PER_MINUTE);
    expect(started).toBeLessThanOrEqual(SIGN_INS_PER_MINUTE + refilled);
    expect(statuses.filter((s) => s === 429).length).toBe(4500 - started);
    expect((await statesOf(account.accountId)) - before).toBe(started);
    // The link's 12.6 KB are kept once; each sign-in row is small.
    expect(await count("SELECT count(*) AS n FROM sign_in_links WHERE length(link_query) > 5000")).toBe(1);
    const widest = await count(
      `SELECT max(length(state) + length(nonce) + length(code_verifier) + length(link_hash) + length(browser_hash)) AS n
       FROM sign_in_states WHERE account_id = ?`,
      account.accountId,
    );
    expect(widest).toBeLessThan(400);
  });

  it("expired sign-ins, links and grants are deleted by the Cron Trigger; live ones stay", async () => {
    const past = Date.now() - 1000;
    const future = Date.now() + 600_000;
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO sign_in_links (link_hash, link_query, expires_at) VALUES ('old-link', 'q', ?)",
      ).bind(past),
      env.DB.prepare(
        `INSERT INTO sign_in_states (state, account_id, nonce, code_verifier, link_hash, browser_hash, expires_at)
         VALUES ('expired-state', ?, 'n', 'v', 'old-link', 'b', ?), ('live-state', ?, 'n', 'v', 'old-link', 'b', ?)`,
      ).bind(account.accountId, past, account.accountId, future),
      env.DB.prepare(
        `INSERT INTO pilot_link_grants (grant_hash, account_id, pilot_id, expires_at, used_at)
         VALUES ('expired-grant', ?, 'p', ?, NULL), ('used-expired-grant', ?, 'p', ?, ?), ('live-grant', ?, 'p', ?, NULL)`,
      ).bind(account.accountId, past, account.accountId, past, past, account.accountId, future),
    ]);
    const ctx = createExecutionContext();
    await app.scheduled(
      createScheduledController({ scheduledTime: Date.now(), cron: "*/10 * * * *" }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(await count("SELECT count(*) AS n FROM sign_in_states WHERE state = 'expired-state'")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM sign_in_states WHERE state = 'live-state'")).toBe(1);
    expect(await count("SELECT count(*) AS n FROM sign_in_links WHERE link_hash = 'old-link'")).toBe(0);
    expect(
      await count(
        "SELECT count(*) AS n FROM pilot_link_grants WHERE grant_hash IN ('expired-grant', 'used-expired-grant')",
      ),
    ).toBe(0);
    expect(await count("SELECT count(*) AS n FROM pilot_link_grants WHERE grant_hash = 'live-grant'")).toBe(
      1,
    );
  });
});

describe("a page sign-in is bound to the browser that started it (item 6)", () => {
  /** Starts a sign-in from a fresh address: its state and the cookie its browser got. */
  async function start(address: string, settings = {}) {
    const res = await send(signInPath, address, {}, settings);
    expect(res.status).toBe(303);
    const state = new URL(res.headers.get("location")!).searchParams.get("state")!;
    const setCookie = res.headers.get("set-cookie")!;
    return { state, setCookie, cookie: setCookie.split(";")[0]! };
  }

  it("sets an HttpOnly, SameSite=Lax cookie for the return path only, Secure over https and in production", async () => {
    const { state, setCookie } = await start("203.0.113.80");
    expect(setCookie).toMatch(new RegExp(`^windsock_sign_in_${state}=\\w{32};`));
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Path=\/create_flight\/v1\/signed_in/);
    expect(setCookie).toMatch(/Secure/);
    const production = await start("203.0.113.81", { ENVIRONMENT: "production", PUBLIC_URL: BASE });
    expect(production.setCookie).toMatch(/Secure/);
  });

  it("a signed_in URL opened in another browser (no cookie, or another's) is an error page and no grant", async () => {
    const attacker = await start("203.0.113.82");
    const grantsBefore = await count(
      "SELECT count(*) AS n FROM pilot_link_grants WHERE account_id = ?",
      account.accountId,
    );
    const victim = await send(
      `/create_flight/v1/signed_in?state=${attacker.state}&code=attackers-code`,
      "198.51.100.1",
    );
    expect(victim.status).toBe(400);
    expect(await victim.text()).toContain("started in another browser");
    // The state is spent: the attacker cannot use it afterwards either.
    expect(await count("SELECT count(*) AS n FROM sign_in_states WHERE state = ?", attacker.state)).toBe(0);

    const other = await start("203.0.113.83");
    const victimWithOwnCookie = await send(
      `/create_flight/v1/signed_in?state=${other.state}&code=attackers-code`,
      "198.51.100.1",
      { cookie: `windsock_sign_in_${other.state}=${"x".repeat(32)}` },
    );
    expect(victimWithOwnCookie.status).toBe(400);
    expect(await victimWithOwnCookie.text()).toContain("started in another browser");
    expect(
      await count("SELECT count(*) AS n FROM pilot_link_grants WHERE account_id = ?", account.accountId),
    ).toBe(grantsBefore);
  });
});
