import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { activeFlight, hour, iso } from "./flightFixtures";
import { call, createAccount, RELAY, tokenFor } from "./helpers";

/** The traffic broker's admission of MQTT clients (POST /internal/v1/traffic/clients). */

function admit(flightId: string, token: string, headers: Record<string, string> = RELAY) {
  return call("/internal/v1/traffic/clients", {
    method: "POST",
    headers,
    body: { flight_id: flightId, token },
  });
}

async function pilotWithFlight(name = "pilot") {
  const account = await createAccount();
  const { token, pilotId } = await tokenFor(account, name);
  const flightId = await activeFlight({ apiKey: account.apiKey, token });
  return { account, token, pilotId, flightId };
}

describe("admission to the traffic broker", () => {
  it("admits the flight's own pilot while the flight is on, until the earlier of its end and the token's", async () => {
    const p = await pilotWithFlight();
    const res = await admit(p.flightId, p.token);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      flight_id: p.flightId,
      pilot_id: p.pilotId,
      ends_at: expect.any(Number),
      token_expires_at: expect.any(Number),
    });
    expect(res.json.data.ends_at).toBeGreaterThan(Date.now() + hour - 60_000);
    expect(res.json.data.token_expires_at).toBeGreaterThan(Date.now());
  });

  it("refuses another pilot of the same application (403), and a pilot of another application (401)", async () => {
    const p = await pilotWithFlight();
    const other = await tokenFor(p.account, "someone-else");
    const stranger = await tokenFor(await createAccount(), "stranger");
    const sameApp = await admit(p.flightId, other.token);
    expect(sameApp.status).toBe(403);
    expect(sameApp.json.data.message).toContain("another pilot");
    const otherApp = await admit(p.flightId, stranger.token);
    expect(otherApp.status).toBe(401);
    expect(otherApp.json.data.message).toContain("another application");
  });

  it("refuses a bad token (401), an unknown flight (404) and an ended one (403)", async () => {
    const p = await pilotWithFlight();
    expect((await admit(p.flightId, "not-a-token")).status).toBe(401);
    expect((await admit("flight|nosuchflight0000000000", p.token)).status).toBe(404);
    const ended = await call(`/flight/v2/${p.flightId}/end`, {
      method: "POST",
      apiKey: p.account.apiKey,
      token: p.token,
    });
    expect(ended.status).toBe(200);
    const res = await admit(p.flightId, p.token);
    expect(res.status).toBe(403);
    expect(res.json.data.message).toContain("ended");
  });

  it("refuses once the application's key is revoked", async () => {
    const p = await pilotWithFlight();
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?")
      .bind(Date.now(), p.account.keyId)
      .run();
    const res = await admit(p.flightId, p.token);
    expect(res.status).toBe(403);
    expect(res.json.data.message).toContain("no live API key");
  });

  it("answers only the relay credential, and validates the body", async () => {
    const p = await pilotWithFlight();
    expect((await admit(p.flightId, p.token, { Authorization: `Bearer ${p.token}` })).status).toBe(401);
    expect((await admit(p.flightId, p.token, {})).status).toBe(401);
    const bad = await call("/internal/v1/traffic/clients", {
      method: "POST",
      headers: RELAY,
      body: { flight_id: "" },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.status).toBe("fail");
  });

  it("admits a flight planned to start later (the SDKs monitor right after submitting)", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "early");
    const flightId = await activeFlight(
      { apiKey: account.apiKey, token },
      { start_time: iso(Date.now() + 10 * 60_000), end_time: iso(Date.now() + hour) },
    );
    expect((await admit(flightId, token)).status).toBe(200);
  });
});

describe("the live page's nearby traffic", () => {
  it("admits the page's watch ticket for its own flight only", async () => {
    const p = await pilotWithFlight();
    const other = await pilotWithFlight("other");
    const issued = await call(`/flight/v2/${p.flightId}/ticket`, {
      method: "POST",
      apiKey: p.account.apiKey,
      token: p.token,
    });
    expect(issued.status).toBe(200);
    const ticket: string = issued.json.data.ticket;
    const res = await admit(p.flightId, ticket);
    expect(res.status).toBe(200);
    expect(res.json.data.token_expires_at).toBeGreaterThan(Date.now());
    expect((await admit(other.flightId, ticket)).status).toBe(403);
    expect((await admit(p.flightId, `${ticket.slice(0, -4)}AAAA`)).status).toBe(401);
  });
});
