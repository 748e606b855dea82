import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createPlan, hour, iso, square } from "./flightFixtures";
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

/**
 * The C++ SDK's plan requests, byte for byte as captured from the real `airmap plan-flight` (create)
 * and `plan-flight --update` (PATCH) on 2026-11-29: headers from `src/airmap/net/http/boost/requester.cpp`
 * (User-Agent `AirMap/2.0.0`, Accept, Content-Type; no Accept-Language), the create body from
 * `src/airmap/codec/json/flight_plans.cpp` (`encode(Create::Parameters)`: no `rulesets` key for an
 * empty list), the PATCH body from `src/airmap/codec/json/flight_plan.cpp` (`encode(FlightPlan)` of the
 * plan it decoded, every `flight_features` entry it was answered sent back). nlohmann's `dump()` sorts
 * keys and writes every double with a fraction; times carry six digits (`src/airmap/date_time.cpp`).
 */
describe("a plan stores no request header (issue 35: accept-language in flight_features)", () => {
  const cppHeaders = {
    "User-Agent": "AirMap/2.0.0",
    Accept: "application/json",
    "Content-Type": "application/json",
  };
  const cppTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

  /** JSON as nlohmann::json::dump() writes the SDK's doubles and maps. */
  function cppJson(value: unknown): string {
    if (typeof value === "number") return Number.isInteger(value) ? `${value}.0` : String(value);
    if (Array.isArray(value)) return `[${value.map(cppJson).join(",")}]`;
    if (value && typeof value === "object") {
      const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${cppJson(v)}`).join(",")}}`;
    }
    return JSON.stringify(value);
  }

  async function raw(method: string, path: string, body: string, headers: Record<string, string> = {}) {
    const res = await SELF.fetch(`${BASE}${path}`, {
      method,
      headers: {
        ...cppHeaders,
        "X-API-Key": account.apiKey,
        Authorization: `Bearer ${pilot.token}`,
        ...headers,
      },
      body,
    });
    return { status: res.status, json: (await res.json()) as any };
  }

  function cppCreateBody() {
    const start = Date.now() + hour;
    return cppJson({
      buffer: 0,
      end_time: cppTime(start + 5 * 60_000),
      flight_features: { uav_weight: 1.5 },
      geometry: square,
      max_altitude_agl: 50,
      min_altitude_agl: 0,
      pilot_id: pilot.pilotId,
      start_time: cppTime(start),
      takeoff_latitude: 34.0150001525879,
      takeoff_longitude: -118.485000610352,
    });
  }

  /** What `encode(FlightPlan)` writes back from the decoded answer. */
  function cppUpdateBody(plan: any, changes: Record<string, unknown>) {
    return cppJson({
      buffer: plan.buffer,
      end_time: plan.end_time,
      flight_features: plan.flight_features,
      geometry: plan.geometry,
      id: plan.id,
      max_altitude_agl: plan.max_altitude_agl,
      min_altitude_agl: plan.min_altitude_agl,
      pilot_id: plan.pilot_id,
      rulesets: plan.rulesets,
      start_time: plan.start_time,
      takeoff_latitude: plan.takeoff_latitude,
      takeoff_longitude: plan.takeoff_longitude,
      ...changes,
    });
  }

  const storedRow = (id: string) =>
    env.DB.prepare("SELECT * FROM flight_plans WHERE id = ?").bind(id).first<Record<string, unknown>>();

  it("answers and keeps no accept-language when the C++ SDK sends none, through create and PATCH", async () => {
    const created = await raw("POST", "/flight/v2/plan", cppCreateBody());
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const plan = created.json.data;
    expect(plan.flight_features).not.toHaveProperty("accept-language");
    expect(plan.flight_features).toMatchObject({
      uav_weight: 1.5,
      flight_max_altitude_agl: 50,
      flight_min_altitude_agl: 0,
    });

    const patched = await raw(
      "PATCH",
      `/flight/v2/plan/${plan.id}`,
      cppUpdateBody(plan, { max_altitude_agl: 40 }),
    );
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect(patched.json.data.flight_features).not.toHaveProperty("accept-language");
    expect(patched.json.data.flight_features.flight_max_altitude_agl).toBe(40);

    const row = await storedRow(plan.id);
    expect(row).not.toBeNull();
    expect(Object.keys(row!)).not.toContain("accept_language");
    expect(JSON.parse(row!.flight_features as string)).not.toHaveProperty("accept-language");
  });

  it("keeps nothing of an Accept-Language header a client does send", async () => {
    const created = await raw("POST", "/flight/v2/plan", cppCreateBody(), { "Accept-Language": "de-CH" });
    expect(created.status).toBe(200);
    expect(created.json.data.flight_features).not.toHaveProperty("accept-language");
    const plan = created.json.data;
    const patched = await raw("PATCH", `/flight/v2/plan/${plan.id}`, cppUpdateBody(plan, {}), {
      "Accept-Language": "fr-CH",
    });
    expect(patched.status).toBe(200);
    const stored = JSON.stringify(await storedRow(plan.id));
    expect(stored).not.toContain("de-CH");
    expect(stored).not.toContain("fr-CH");
    const read = await call(`/flight/v2/plan/${plan.id}`, { apiKey: account.apiKey, token: pilot.token });
    expect(JSON.stringify(read.json.data)).not.toMatch(/accept-language|de-CH|fr-CH/);
  });
});
