import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createPlan, hour, iso } from "./flightFixtures";
import { BASE, call, createAccount, type TestAccount, tokenFor } from "./helpers";

let account: TestAccount;
let pilot: { token: string; pilotId: string };
beforeAll(async () => {
  account = await createAccount();
  pilot = await tokenFor(account, "plan-sdk-pilot");
});

/** A submit exactly as sent: the header and body bytes the SDK writes, nothing added. */
async function submitRaw(planId: string, headers: Record<string, string>, body?: string) {
  const res = await SELF.fetch(`${BASE}/flight/v2/plan/${planId}/submit`, {
    method: "POST",
    headers: { "X-API-Key": account.apiKey, Authorization: `Bearer ${pilot.token}`, ...headers },
    body,
  });
  return { status: res.status, json: (await res.json()) as any };
}

const flightOf = (flightId: string) =>
  call(`/flight/v2/${encodeURIComponent(flightId)}`, { apiKey: account.apiKey, token: pilot.token });

/** The plan members every SDK reads (C++ codec/json/flight_plan.cpp; Kotlin models/Flight.kt). */
const PLAN_FIELDS = [
  "id",
  "flight_id",
  "pilot_id",
  "aircraft_id",
  "takeoff_latitude",
  "takeoff_longitude",
  "max_altitude_agl",
  "min_altitude_agl",
  "buffer",
  "geometry",
  "start_time",
  "end_time",
  "rulesets",
  "flight_features",
  "created_at",
  "flight_description",
];

describe("POST /flight/v2/plan/{id}/submit as each SDK sends it", () => {
  const encodings: [string, Record<string, string>, string | undefined, boolean][] = [
    ["C++: JSON content type, empty body", { "Content-Type": "application/json" }, "", false],
    ["Swift: JSON {public: true}", { "Content-Type": "application/json" }, '{"public":true}', true],
    ["Swift: JSON {public: false}", { "Content-Type": "application/json" }, '{"public":false}', false],
    [
      "Kotlin: form public=true",
      { "Content-Type": "application/x-www-form-urlencoded" },
      "public=true",
      true,
    ],
    ["Kotlin: form without the field", { "Content-Type": "application/x-www-form-urlencoded" }, "", false],
    ["no body at all", {}, undefined, false],
    ["JSON with a charset, empty object", { "Content-Type": "application/json; charset=utf-8" }, "{}", false],
  ];
  it.each(encodings)("%s", async (_name, headers, body, isPublic) => {
    const plan = await createPlan(account, pilot.token);
    const res = await submitRaw(encodeURIComponent(plan.id), headers, body);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    for (const field of PLAN_FIELDS) expect(res.json.data, field).toHaveProperty(field);
    expect(res.json.data.flight_id).toMatch(/^flight\|/);
    const flight = await flightOf(res.json.data.flight_id);
    expect(flight.json.data.public).toBe(isPublic);
  });

  it("accepts the C++ SDK's raw `|` in the path", async () => {
    const plan = await createPlan(account, pilot.token);
    const res = await submitRaw(plan.id, { "Content-Type": "application/json" }, "");
    expect(res.status).toBe(200);
  });

  it("refuses what none of them sends: bad JSON, a non-boolean public, another content type", async () => {
    const cases: [Record<string, string>, string, number, string][] = [
      [{ "Content-Type": "application/json" }, "{nope", 400, "body"],
      [{ "Content-Type": "application/json" }, '{"public":"yes"}', 400, "public"],
      [{ "Content-Type": "application/x-www-form-urlencoded" }, "public=maybe", 400, "public"],
      [{ "Content-Type": "text/plain" }, "public=true", 415, "content-type"],
    ];
    for (const [headers, body, status, field] of cases) {
      const plan = await createPlan(account, pilot.token);
      const res = await submitRaw(encodeURIComponent(plan.id), headers, body);
      expect(res.status, body).toBe(status);
      expect(res.json.data.errors.map((e: { name: string }) => e.name)).toContain(field);
      // Refused before anything happened: the plan can still be submitted.
      const retry = await submitRaw(encodeURIComponent(plan.id), {});
      expect(retry.status).toBe(200);
    }
  });
});

describe("DELETE /flight/v2/plan/{id}", () => {
  const remove = (planId: string, token = pilot.token) =>
    call(`/flight/v2/plan/${encodeURIComponent(planId)}`, {
      method: "DELETE",
      apiKey: account.apiKey,
      token,
    });
  const submit = (planId: string) =>
    call(`/flight/v2/plan/${encodeURIComponent(planId)}/submit`, {
      method: "POST",
      apiKey: account.apiKey,
      token: pilot.token,
    });

  it("deletes an unsubmitted plan and answers its id", async () => {
    const plan = await createPlan(account, pilot.token);
    const res = await remove(plan.id);
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual({ id: plan.id });
    const read = await call(`/flight/v2/plan/${encodeURIComponent(plan.id)}`, {
      apiKey: account.apiKey,
      token: pilot.token,
    });
    expect(read.status).toBe(404);
    expect((await remove(plan.id)).status).toBe(404);
  });

  it("keeps the flight of a submitted plan, planned or started (CONTRACT §4: the SDKs end or delete it next)", async () => {
    const count = () =>
      env.DB.prepare("SELECT flight_count AS n FROM pilots WHERE id = ?").bind(pilot.pilotId).first("n");
    for (const times of [{}, { start_time: "now", end_time: iso(Date.now() + hour) }]) {
      const plan = await createPlan(account, pilot.token, times);
      const flightId = (await submit(plan.id)).json.data.flight_id;
      const before = (await count()) as number;
      const res = await remove(plan.id);
      expect(res.status, res.text).toBe(200);
      expect(res.json.data).toEqual({ id: plan.id });
      expect((await flightOf(flightId)).status).toBe(200);
      expect(await count()).toBe(before);
      const byFlight = await call(`/flight/v2/${encodeURIComponent(flightId)}/plan`, {
        apiKey: account.apiKey,
        token: pilot.token,
      });
      expect(byFlight.status).toBe(404);
    }
  });

  it("deletes a submitted plan whose flight was deleted before", async () => {
    const plan = await createPlan(account, pilot.token);
    const flightId = (await submit(plan.id)).json.data.flight_id;
    const deleted = await call(`/flight/v2/${encodeURIComponent(flightId)}/delete`, {
      method: "POST",
      apiKey: account.apiKey,
      token: pilot.token,
    });
    expect(deleted.status).toBe(200);
    const count = () =>
      env.DB.prepare("SELECT flight_count AS n FROM pilots WHERE id = ?").bind(pilot.pilotId).first("n");
    const before = await count();
    expect((await remove(plan.id)).status).toBe(200);
    expect(await count()).toBe(before);
  });

  it("is the pilot's own: 403 for another pilot, 404 for another account", async () => {
    const plan = await createPlan(account, pilot.token);
    const other = await tokenFor(account, "plan-sdk-other");
    expect((await remove(plan.id, other.token)).status).toBe(403);
    const foreign = await createAccount();
    const stranger = await tokenFor(foreign, "plan-sdk-pilot");
    const cross = await call(`/flight/v2/plan/${encodeURIComponent(plan.id)}`, {
      method: "DELETE",
      apiKey: foreign.apiKey,
      token: stranger.token,
    });
    expect(cross.status).toBe(404);
    expect((await remove(plan.id)).status).toBe(200);
  });
});
