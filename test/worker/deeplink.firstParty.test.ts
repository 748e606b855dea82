import { env, SELF } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import * as schema from "../../schema";
import { FIRST_PARTY_ACCOUNT_ID, FIRST_PARTY_PUBLIC_ID } from "../../worker/domain/deeplink/firstParty";
import { createApiKey } from "../../worker/services/apiKeys";
import { BASE, call, createAccount, tokenFor } from "./helpers";

/** Spec 4.7's own creation link: `geometry` is JSON text with the GeoJSON geometry under `geometry`. */
const point = { type: "Point", coordinates: [-84.3, 36.6] };
const plainLink = (extra = "") =>
  `/create_flight/v1/?geometry=${encodeURIComponent(JSON.stringify({ geometry: point }))}${extra}`;
const callbackParam = (url: string) => `&callback_url=${encodeURIComponent(url)}`;

/** What `npm run callbacks -- add <url> --account app_windsock` writes. */
async function operatorAllows(url: string) {
  await env.DB.prepare("INSERT INTO callback_prefixes (account_id, url, created_at) VALUES (?, ?, ?)")
    .bind(FIRST_PARTY_ACCOUNT_ID, url, Date.now())
    .run();
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/**
 * A single-use sign-in for a pilot of the service's own application, as its app gets one: the
 * builder called with the application's key and the pilot's token.
 */
async function firstPartyGrant(userId: string): Promise<string> {
  const key = await createApiKey(drizzle(env.DB, { schema }), {
    name: "app",
    accountId: FIRST_PARTY_ACCOUNT_ID,
  });
  const account = { accountId: FIRST_PARTY_ACCOUNT_ID, apiKey: key!.apiKey, keyId: key!.keyId };
  const { token } = await tokenFor(account, userId);
  const res = await call("/deeplink/v1/create_flight", {
    method: "POST",
    apiKey: account.apiKey,
    token,
    body: { geometry: point },
  });
  expect(res.status, res.text).toBe(200);
  return new URL(new URL(res.json.data.link).searchParams.get("link")!).searchParams.get("grant")!;
}

describe("the spec's plain creation link (no client_id)", () => {
  it("opens the page for the service's own application, which migration 0008 created", async () => {
    const row = await env.DB.prepare("SELECT public_id, name FROM accounts WHERE id = ?")
      .bind(FIRST_PARTY_ACCOUNT_ID)
      .first();
    expect(row).toEqual({ public_id: FIRST_PARTY_PUBLIC_ID, name: "Windsock" });
    const res = await call(plainLink("&altitude=60&buffer=40"), { headers: { "accept-language": "de-DE" } });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.text).toContain("Requested by <strong>Windsock</strong>");
    expect(res.text).not.toContain('name="user_id"');
    expect(res.text).toMatch(/id="buffer"[^>]*value="40"/);
    expect(res.headers.get("content-security-policy")).toContain("form-action 'self';");
    // Naming the first-party application explicitly is the same link.
    const named = await call(plainLink(`&client_id=${FIRST_PARTY_PUBLIC_ID}`));
    expect(named.status).toBe(200);
    expect(named.text).toContain("Requested by <strong>Windsock</strong>");
  });

  it("creates the flight for a pilot of the service's own application and shows it", async () => {
    const res = await call(plainLink(`&grant=${await firstPartyGrant("web-first")}`), {
      method: "POST",
      body: form({
        altitude: "30",
        buffer: "40",
        start: "0",
        duration: "30",
        action: "create",
      }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", "accept-language": "de-DE" },
    });
    expect(res.status, res.text.slice(0, 800)).toBe(200);
    expect(res.text).toContain("<h1>Flight created</h1>");
    const flightId = /id="flight-id">([^<]+)</.exec(res.text)![1]!;
    const flight = await env.DB.prepare("SELECT account_id, max_altitude FROM flights WHERE id = ?")
      .bind(flightId)
      .first();
    expect(flight).toEqual({ account_id: FIRST_PARTY_ACCOUNT_ID, max_altitude: 30 });
    // The application has no API key: its page's ticket still opens the flight's live page.
    const live = /<a id="live-link" href="([^"]+)"/.exec(res.text)![1]!.replace(/&amp;/g, "&");
    const opened = await SELF.fetch(live);
    expect(opened.status, (await opened.text()).slice(0, 300)).toBe(200);
  });

  it("refuses a callback the operator has not allowed, saying how to allow it, with no redirect", async () => {
    // A partner's allowed prefix is the partner's alone: it does not open the plain link's callback.
    const partner = await createAccount("partner");
    const added = await call("/deeplink/v1/callbacks", {
      method: "POST",
      apiKey: partner.apiKey,
      body: { url: "https://partner.example/cb" },
    });
    expect(added.status).toBe(200);
    for (const callback of ["https://partner.example/cb", "https://evil.example/cb"]) {
      const shown = await call(plainLink(callbackParam(callback)));
      expect(shown.status, callback).toBe(400);
      expect(shown.text).toContain("callback_url");
      expect(shown.text).toContain(`--account ${FIRST_PARTY_PUBLIC_ID}`);
      expect(shown.text).not.toContain("<form");
      const posted = await SELF.fetch(`${BASE}${plainLink(callbackParam(callback))}`, {
        method: "POST",
        body: form({
          altitude: "30",
          buffer: "40",
          start: "0",
          duration: "30",
          action: "create",
        }),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        redirect: "manual",
      });
      expect(posted.status).toBe(400);
      expect(posted.headers.get("location")).toBeNull();
      await posted.body?.cancel();
    }
  });

  it("honours an allowed callback: the result page returns to it with flight_id and the spec's authorization statuses", async () => {
    await operatorAllows("https://windsock-app.example/done");
    const link = plainLink(
      `${callbackParam("https://windsock-app.example/done/flight?state=s2")}&grant=${await firstPartyGrant("web-first")}`,
    );
    const page = await call(link);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self';");
    const res = await SELF.fetch(`${BASE}${link}`, {
      method: "POST",
      body: form({
        altitude: "30",
        buffer: "40",
        start: "0",
        duration: "30",
        action: "create",
      }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", "accept-language": "de-DE" },
    });
    const text = await res.text();
    expect(res.status, text.slice(0, 800)).toBe(200);
    expect(text).toContain("Return to Windsock");
    const href = /<a id="return-link"[^>]* href="([^"]+)"/.exec(text)![1]!.replace(/&amp;/g, "&");
    const location = new URL(href);
    expect(`${location.origin}${location.pathname}`).toBe("https://windsock-app.example/done/flight");
    expect(location.searchParams.get("state")).toBe("s2");
    const flightId = location.searchParams.get("flight_id")!;
    const owner = await env.DB.prepare("SELECT account_id FROM flights WHERE id = ?").bind(flightId).first();
    expect(owner).toEqual({ account_id: FIRST_PARTY_ACCOUNT_ID });
    const authorizations = JSON.parse(location.searchParams.get("authorizations")!);
    expect(Array.isArray(authorizations)).toBe(true);
    for (const a of authorizations)
      expect(["pending", "accepted", "rejected", "not_requested", "cancelled"]).toContain(a.status);
  });

  it("still names every other problem of a plain link", async () => {
    const res = await call("/create_flight/v1/?geometry=%7Bnope&altitude=-3");
    expect(res.status).toBe(400);
    expect(res.text).toContain("geometry");
    expect(res.text).toContain("altitude");
    expect(res.text).not.toContain("client_id");
    const unknown = await call(plainLink("&client_id=app_nobody"));
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain("names no active application");
  });
});
