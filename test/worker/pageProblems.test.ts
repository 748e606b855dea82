import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { issueTicket } from "../../worker/telemetry/tickets";
import { activeFlight } from "./flightFixtures";
import { call, createAccount, tokenFor } from "./helpers";

/**
 * A flight's pages refused in a browser (issue 38): an expired or broken link gets a page in words
 * saying what happened and how to get a new link; API clients still get JSend.
 */

const HTML = { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };

async function expiredLink() {
  const account = await createAccount("page-problems");
  const { token, pilotId } = await tokenFor(account, "expired-link");
  const flightId = await activeFlight({ apiKey: account.apiKey, token });
  // The ticket POST /flight/v2/{id}/ticket would give, made 6 minutes ago: expired a minute ago.
  const ticket = await issueTicket(env.TELEMETRY_MASTER_KEY, {
    flightId,
    accountId: account.accountId,
    pilotId,
    keyId: account.keyId,
    tokenExpiresAt: null,
    exp: Math.floor(Date.now() / 1000) - 60,
  });
  return { flightId, ticket };
}

describe("a flight's page opened with a link that no longer works", () => {
  for (const page of ["live", "briefing"]) {
    it(`${page}: an expired link gets a page saying so and how to get a new one; JSON clients JSend`, async () => {
      const { flightId, ticket } = await expiredLink();
      const path = `/flight/v2/${encodeURIComponent(flightId)}/${page}?ticket=${ticket}`;
      const browser = await call(path, { headers: HTML });
      expect(browser.status).toBe(401);
      expect(browser.headers.get("content-type")).toMatch(/^text\/html/);
      expect(browser.text).toContain('<h1 id="problem">This link has expired</h1>');
      expect(browser.text).toContain("work for 5 minutes");
      expect(browser.text).toContain(`POST /flight/v2/${encodeURIComponent(flightId)}/ticket`);
      const client = await call(path);
      expect(client.status).toBe(401);
      expect(client.json).toMatchObject({ status: "fail", data: { code: 401 } });
      expect(client.json.data.message).toMatch(/ticket expired/);
    });
  }

  it("a changed link and another flight's link are explained too", async () => {
    const { flightId, ticket } = await expiredLink();
    const broken = await call(`/flight/v2/${encodeURIComponent(flightId)}/live?ticket=${ticket}x`, {
      headers: HTML,
    });
    expect(broken.status).toBe(401);
    expect(broken.text).toContain("This link is not valid");
    const other = await call("/flight/v2/flight%7Cnone/live", { headers: HTML });
    expect(other.status).toBe(401);
    expect(other.headers.get("content-type")).toMatch(/^text\/html/);
  });
});
