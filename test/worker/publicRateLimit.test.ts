import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../worker/index";
import { PER_TICKET_PER_MINUTE } from "../../worker/middleware/publicRateLimit";
import { FREE_REFUSALS, tarpit } from "../../worker/middleware/tarpit";
import { BASE, call, createAccount } from "./helpers";

/** The whole worker with a small RATE_LIMIT_PER_MINUTE, from one client address. */
async function send(path: string, address: string, limit: number, headers: Record<string, string> = {}) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${BASE}${path}`, { headers: { "cf-connecting-ip": address, ...headers } }),
    { ...env, RATE_LIMIT_PER_MINUTE: String(limit) },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

async function expect429(res: Response, about: RegExp) {
  expect(res.status).toBe(429);
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  const body = (await res.json()) as { status: string; data: { message: string } };
  expect(body.status).toBe("fail");
  expect(body.data.message).toMatch(about);
}

describe("routes without an API key are rate limited", () => {
  it("per client address, across the public pages (deep-link page, live page, docs)", async () => {
    const address = "198.51.100.7";
    for (let i = 0; i < 5; i++) expect((await send("/.well-known/jwks.json", address, 5)).status).toBe(200);
    await expect429(await send("/.well-known/jwks.json", address, 5), /from this address/);
    await expect429(await send("/create_flight/v1/?geometry=x", address, 5), /from this address/);
    await expect429(await send("/flight/v2/flight%7Cx/live?ticket=v1.a.b", address, 5), /from this address/);
    // Another address is not affected; /health stays open for the supervisor's probe.
    expect((await send("/.well-known/jwks.json", "198.51.100.8", 5)).status).toBe(200);
    expect((await send("/health", address, 5)).status).toBe(200);
  });

  it("per ticket: the live page and stream with one ticket", async () => {
    const address = "198.51.100.9";
    const ticket = "v1.eyJ9.c2lnbmF0dXJl";
    const statuses: number[] = [];
    for (let i = 0; i <= PER_TICKET_PER_MINUTE; i++)
      statuses.push(
        (await send(`/flight/v2/flight%7Cx/telemetry/stream?ticket=${ticket}`, address, 100_000)).status,
      );
    // Refused as a bad ticket until the ticket's budget is spent, then 429 before any check.
    expect(statuses.slice(0, PER_TICKET_PER_MINUTE).every((s) => s === 401)).toBe(true);
    await expect429(
      await send(`/flight/v2/flight%7Cx/live?ticket=${ticket}`, address, 100_000),
      /with one ticket/,
    );
  });

  it("per account: the deep-link page once its link names the account", async () => {
    const account = await createAccount();
    const square = {
      type: "Polygon",
      coordinates: [
        [
          [-118.48, 34.01],
          [-118.47, 34.01],
          [-118.47, 34.02],
          [-118.48, 34.02],
          [-118.48, 34.01],
        ],
      ],
    };
    const built = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: account.apiKey,
      body: { geometry: square },
    });
    expect(built.status, built.text).toBe(200);
    const creation = new URL(new URL(built.json.data.link).searchParams.get("link")!);
    const page = `${creation.pathname}${creation.search}`;
    // Each address has its own budget; the account's is shared by all of them.
    const limit = 3;
    for (let i = 0; i < limit; i++)
      expect((await send(page, `203.0.113.${i}`, limit)).status, `load ${i}`).not.toBe(429);
    await expect429(await send(page, "203.0.113.50", limit), /this account's public pages/);
  });

  it("holds the refusals of a caller who keeps asking (the tarpit); another caller is answered at once", async () => {
    const address = "198.51.100.21";
    expect((await send("/.well-known/jwks.json", address, 1)).status).toBe(200);
    for (let i = 0; i < FREE_REFUSALS; i++)
      expect((await send("/.well-known/jwks.json", address, 1)).status, `refusal ${i + 1}`).toBe(429);
    expect(tarpit.holding).toBe(0);
    // One refusal too many: it waits before it goes out, and is still the same 429.
    const held = send("/.well-known/jwks.json", address, 1);
    await expect.poll(() => tarpit.holding).toBe(1);
    await expect429(await held, /from this address/);
    expect(tarpit.holding).toBe(0);
    // Another address meanwhile is answered at once (no hold was counted for it).
    expect((await send("/.well-known/jwks.json", "198.51.100.22", 1)).status).toBe(200);
  });
});

describe("a key header lifts no keyless limit unless the key is live (issue 37, item 1)", () => {
  /** Each route family that answers without a key, as an attacker floods it with a made-up key. */
  const FAMILIES: [name: string, path: string][] = [
    ["public keys", "/.well-known/jwks.json"],
    ["vector basemap tiles", "/maps/v1/basemap/1/0/1.mvt"],
    ["basemap style", "/maps/v1/basemap.json"],
    ["live page with a ticket", "/flight/v2/flight%7Cx/live?ticket=v1.eyJ9.c2ln"],
    ["live stream with a ticket", "/flight/v2/flight%7Cx/telemetry/stream?ticket=v1.eyJ9.c2lo"],
    ["deep-link page", "/create_flight/v1/?geometry=x"],
    ["page sign-in", "/create_flight/v1/sign_in?geometry=x"],
    ["docs", "/docs"],
    ["OpenAPI document", "/openapi.json"],
    ["F3411 flights without a token", "/rid/v2/uss/flights?view=1,1,1.001,1.001"],
    ["InterUSS interfaces without a token", "/interuss/geospatial_map/v1/status"],
  ];

  for (const [index, [name, path]] of FAMILIES.entries()) {
    it(`${name}: a bogus key is limited as keyless`, async () => {
      const address = `198.51.101.${index + 1}`;
      const bogus = { "x-api-key": "bogus" };
      for (let i = 0; i < 3; i++) expect((await send(path, address, 3, bogus)).status).not.toBe(429);
      await expect429(await send(path, address, 3, bogus), /from this address/);
    });
  }

  it("a live key on a keyless route counts against the key, not the address", async () => {
    const account = await createAccount("public-route-key", 3);
    const address = "198.51.101.99";
    const key = { "x-api-key": account.apiKey };
    for (let i = 0; i < 3; i++)
      expect((await send("/.well-known/jwks.json", address, 1000, key)).status).toBe(200);
    await expect429(await send("/.well-known/jwks.json", address, 1000, key), /requests a minute exceeded/);
    // The address's own keyless budget was not spent by the key's requests.
    expect((await send("/.well-known/jwks.json", address, 1000)).status).toBe(200);
  });

  it("a bogus key on a keyed route is refused (401), and limited as keyless too", async () => {
    const address = "198.51.101.98";
    const bogus = { "x-api-key": "bogus" };
    for (let i = 0; i < 2; i++) expect((await send("/pilot/v2/profile", address, 2, bogus)).status).toBe(401);
    await expect429(await send("/pilot/v2/profile", address, 2, bogus), /from this address/);
  });
});
