import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { type Answer, planBody, type TypicalRequest, typicalRoutes } from "../../tools/bench/typicalRequests";
import { RoundTrips, withRoundTrips } from "../../worker/dev/storageTrace";
import { LOG_HEADER, parseDelays, ROUND_TRIPS_HEADER, tracedFetch } from "../../worker/dev/tracedFetch";
import { loadAirspaceFixtures } from "./airspaceFixtures";
import { BASE, createAccount, type TestAccount, tokenFor } from "./helpers";

/**
 * Sequential storage round trips (D1, Durable Object calls, R2) each public route makes at its
 * typical input, counted by the test-only wrapper (worker/dev/storageTrace.ts) with the isolate's
 * caches warm, as a client calling again finds them. A route that makes more fails here: each
 * costs a consumer far from the primary 100–250 ms (docs/benchmarks.md, "Storage round trips").
 */
const EXPECTED: Record<string, number> = {
  "GET /pilot/v2/profile": 1,
  "GET /flight/v2/{flight_id}": 1,
  "GET /flight/v2 (the pilot's, 25)": 1,
  "GET /flight/v2/plan/{plan_id}": 1,
  // The airspace read beside the plan, from the plan as this isolate saw it when it was made.
  "GET /flight/v2/plan/{plan_id}/briefing": 1,
  "POST /rules/v1 (an area)": 0,
  // Rulesets and the manufacturers' list kept per isolate (60 s).
  "GET /rules/v1/{ruleset_id}": 0,
  "GET /status/v2/point": 1,
  "GET /advisory/v1/airspace (an area)": 1,
  "GET /aircraft/v2/manufacturer": 0,
  "POST /flight/v2/point": 2,
  "POST /flight/v2/plan": 1,
  "POST /flight/v2/plan/{plan_id}/submit": 2,
  "POST /flight/v2/{flight_id}/start-comm": 2,
  "POST /flight/v2/{flight_id}/end": 2,
};

let account: TestAccount;
let token: string;

async function send(request: TypicalRequest): Promise<Answer> {
  const headers: Record<string, string> = { "x-api-key": account.apiKey, ...request.headers };
  if (request.withToken) headers.authorization = `Bearer ${token}`;
  if (request.body !== undefined) headers["content-type"] = "application/json";
  const ctx = createExecutionContext();
  const response = await tracedFetch(
    new Request(`${BASE}${request.path}`, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    }),
    env,
    ctx,
  );
  const text = await response.text();
  await waitOnExecutionContext(ctx);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, headers: response.headers, json };
}

beforeAll(async () => {
  await loadAirspaceFixtures();
  account = await createAccount("round-trips");
  token = (await tokenFor(account, "round-trip-pilot")).token;
});

describe("storage round trips per route", () => {
  for (const route of typicalRoutes()) {
    it(`${route.name}: at most its counted round trips`, async () => {
      const made = route.prepare ? await route.prepare(send) : "";
      // Once to warm the isolate's caches (key look-up, rulesets), then the counted request.
      const warm = route.kind === "read" ? await send(route.request(made)) : undefined;
      if (warm) expect(warm.status, JSON.stringify(warm.json)).toBe(200);
      const answer = await send(route.request(made));
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      const trips = Number(answer.headers.get(ROUND_TRIPS_HEADER));
      const calls = decodeURIComponent(answer.headers.get(LOG_HEADER) ?? "");
      expect(EXPECTED, "every typical route has its expected count").toHaveProperty([route.name]);
      expect(trips, `the calls (depth kind what):\n${calls}`).toBeLessThanOrEqual(EXPECTED[route.name]!);
    });
  }
});

describe("the round-trip counter", () => {
  const call = (trips: RoundTrips) => trips.track("primary", "test", () => Promise.resolve(1));

  it("counts calls issued together as one round trip and calls in a row as one each", async () => {
    const trips = new RoundTrips();
    await withRoundTrips(trips, async () => {
      await Promise.all([call(trips), call(trips), call(trips)]);
      await call(trips);
    });
    expect(trips.sequential).toBe(2);
    expect(trips.calls.primary).toBe(4);
  });

  it("counts the D1 binding's calls in a row when the worker's env is traced", async () => {
    const { tracedEnv } = await import("../../worker/dev/storageTrace");
    const traced = tracedEnv(env);
    const trips = new RoundTrips();
    await withRoundTrips(trips, async () => {
      await traced.DB.prepare("SELECT 1").first();
      await traced.DB.batch([traced.DB.prepare("SELECT 1"), traced.DB.prepare("SELECT 2")]);
      await Promise.all([
        traced.DB.prepare("SELECT 1").all(),
        traced.DB.withSession("first-unconstrained").prepare("SELECT 1").all(),
      ]);
    });
    expect(trips.sequential).toBe(3);
    expect(trips.calls).toMatchObject({ primary: 3, replica: 1 });
  });

  it("sends a first-primary session's first query to the primary and its later reads to a replica", async () => {
    const { tracedEnv } = await import("../../worker/dev/storageTrace");
    const session = tracedEnv(env).DB.withSession("first-primary");
    const trips = new RoundTrips();
    await withRoundTrips(trips, async () => {
      await session.prepare("SELECT 1").first();
      await session.prepare("SELECT 2").first();
    });
    expect(trips.calls).toMatchObject({ primary: 1, replica: 1 });
  });

  it("reads the simulated delays a bench asks for, and refuses what it cannot read", () => {
    expect(parseDelays("primary=150,replica=20")).toMatchObject({ primaryMs: 150, replicaMs: 20, r2Ms: 0 });
    expect(parseDelays("primary=fast")).toContain("is not one of");
  });
});

describe("reads started from the plan this isolate last saw", () => {
  it("decide again from the fresh plan when it changed behind the isolate's back", async () => {
    const made = await send({ method: "POST", path: "/flight/v2/plan", body: planBody(), withToken: true });
    expect(made.status).toBe(200);
    const id = made.json.data.id as string;
    // Another isolate's change, as far as this one knows: the take-off moves to London.
    await env.DB.prepare(
      "UPDATE flight_plans SET takeoff_latitude = 51.5, takeoff_longitude = -0.12 WHERE id = ?",
    )
      .bind(id)
      .run();
    const submitted = await send({ method: "POST", path: `/flight/v2/plan/${id}/submit`, withToken: true });
    expect(submitted.status).toBe(200);
    const flight = await send({
      method: "GET",
      path: `/flight/v2/${submitted.json.data.flight_id}`,
      withToken: true,
    });
    expect(flight.json.data.latitude).toBe(51.5);
    expect(flight.json.data.country).not.toBe(made.json.data.country ?? "USA");
    expect(flight.json.data.country).toMatch(/GB|UK|United Kingdom/i);
  });
});
