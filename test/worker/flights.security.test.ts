import { describe, expect, it } from "vitest";
import { createPlan, flightAt, hour, iso } from "./flightFixtures";
import { call, createAccount, tokenFor } from "./helpers";

/**
 * Who reaches which flight (worker/middleware/ownFlight.ts): another account's flights are 404,
 * another pilot's private ones 404, and another pilot's public ones readable but not theirs to change.
 */

describe("flights: security", () => {
  it("hides another pilot's private flight (404) and shows public ones", async () => {
    const account = await createAccount();
    const owner = await tokenFor(account, "owner");
    const other = await tokenFor(account, "other");
    const secret = await flightAt(account, owner.token);
    const open = await flightAt(account, owner.token, { public: true });
    expect(
      (await call(`/flight/v2/${secret.id}`, { apiKey: account.apiKey, token: other.token })).status,
    ).toBe(404);
    expect((await call(`/flight/v2/${secret.id}`, { apiKey: account.apiKey })).status).toBe(404);
    expect((await call(`/flight/v2/${open.id}`, { apiKey: account.apiKey })).status).toBe(200);
    expect(
      (await call(`/flight/v2/${secret.id}`, { apiKey: account.apiKey, token: owner.token })).status,
    ).toBe(200);
    const foreign = await createAccount();
    expect((await call(`/flight/v2/${open.id}`, { apiKey: foreign.apiKey })).status).toBe(404);
  });

  it("refuses to change another pilot's flight (403)", async () => {
    const account = await createAccount();
    const owner = await tokenFor(account, "owner");
    const other = await tokenFor(account, "intruder");
    const flight = await flightAt(account, owner.token, { start_time: iso(Date.now() + hour), public: true });
    for (const action of ["end", "delete"]) {
      const res = await call(`/flight/v2/${flight.id}/${action}`, {
        method: "POST",
        apiKey: account.apiKey,
        token: other.token,
      });
      expect(res.status, action).toBe(403);
    }
    expect(
      (await call(`/flight/v2/${flight.id}/end`, { method: "POST", apiKey: account.apiKey })).status,
    ).toBe(401);
  });

  it("keeps a flight's plan and telemetry to its pilot, also when the flight is public", async () => {
    const account = await createAccount();
    const owner = await tokenFor(account, "owner");
    const other = await tokenFor(account, "onlooker");
    const plan = await createPlan(account, owner.token);
    const submitted = await call(`/flight/v2/plan/${plan.id}/submit`, {
      method: "POST",
      apiKey: account.apiKey,
      token: owner.token,
      body: { public: true },
    });
    const open = submitted.json.data.flight_id;
    const secret = (await flightAt(account, owner.token)).id;
    const paths = (id: string) => [
      `/flight/v2/${id}/plan`,
      `/flight/v2/${id}/telemetry`,
      `/archive/v1/telemetry/position?flight_id=${encodeURIComponent(id)}`,
    ];
    for (const path of paths(open)) {
      expect((await call(path, { apiKey: account.apiKey, token: owner.token })).status, path).toBe(200);
      const res = await call(path, { apiKey: account.apiKey, token: other.token });
      expect(res.status, path).toBe(403);
      expect(res.json.data.message, path).toMatch(/^Only the flight's pilot may read its (plan|telemetry)$/);
    }
    for (const path of paths(secret))
      expect((await call(path, { apiKey: account.apiKey, token: other.token })).status, path).toBe(404);
    const foreign = await createAccount();
    const stranger = await tokenFor(foreign, "owner");
    for (const path of paths(open))
      expect((await call(path, { apiKey: foreign.apiKey, token: stranger.token })).status, path).toBe(404);
  });

  it("refuses another pilot's telemetry session before anything else", async () => {
    const account = await createAccount();
    const owner = await tokenFor(account, "owner");
    const other = await tokenFor(account, "intruder");
    const flight = await flightAt(account, owner.token, { start_time: iso(Date.now() + hour), public: true });
    for (const action of ["start-comm", "end-comm"]) {
      const res = await call(`/flight/v2/${flight.id}/${action}`, {
        method: "POST",
        apiKey: account.apiKey,
        token: other.token,
      });
      expect(res.status, action).toBe(403);
    }
    // An id no route could name is still the request's fault (400), not an unknown flight.
    const long = await call(`/flight/v2/${"x".repeat(65)}`, { apiKey: account.apiKey, token: owner.token });
    expect(long.status).toBe(400);
  });
});
