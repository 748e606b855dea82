import { env } from "cloudflare:test";
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../../worker/env";
import { limitPerSubject } from "../../worker/interuss/rateLimit";
import { RID_SCOPES } from "../../worker/rid/constants";
import { distanceKm } from "../../worker/rid/view";
import { flightAt, hour, iso } from "./flightFixtures";
import { call, createAccount, interussToken, tokenFor } from "./helpers";
import { F3411, INJECTION, requestErrors, responseErrors } from "./ridSchema";

/**
 * ASTM F3411-22a network Remote ID as the qualifier's netrid suite drives a Service Provider: inject
 * a test flight (rid/v1 injection), then poll `/rid/v2/uss/flights` for a view over it and a view
 * elsewhere, read its details, ask for too large a view, and delete the test. Ordinary flights (the
 * UDP relay's path and HTTP ingest) appear the same way, private ones included. Every request and
 * response is checked against the documents under test/fixtures/interuss/ with Ajv.
 */

const USS = "/rid/v2/uss";
const INJECT = "/interuss/rid/v1";
const RELAY = { Authorization: `Bearer ${env.RELAY_SECRET}` };

let display: string;
let inject: string;
let serviceProvider: string;

beforeAll(async () => {
  display = await interussToken([RID_SCOPES.displayProvider]);
  inject = await interussToken([RID_SCOPES.injectTestData]);
  serviceProvider = await interussToken([RID_SCOPES.serviceProvider]);
});

/** A box of `halfKm` around a point, as `view=`. */
function viewAround(lat: number, lng: number, halfKm = 0.5): string {
  const dLat = halfKm / 111.32;
  const dLng = halfKm / (111.32 * Math.cos((lat * Math.PI) / 180));
  return [lat - dLat, lng - dLng, lat + dLat, lng + dLng].map((v) => v.toFixed(6)).join(",");
}

async function flights(view: string, extra = "", token = display) {
  const res = await call(`${USS}/flights?view=${view}${extra}`, { token });
  expect(responseErrors(F3411, "/uss/flights", "get", res.status, res.json)).toEqual([]);
  return res;
}

/** A flight going east at 10 m/s, one state a second, from 20 s ago to 60 s ahead. */
function testFlight(injectionId: string, lat: number, lng: number, now: number) {
  const telemetry = [];
  for (let t = -20; t <= 60; t++) {
    const east = (10 * t) / (111_320 * Math.cos((lat * Math.PI) / 180));
    telemetry.push({
      timestamp: iso(now + t * 1000),
      timestamp_accuracy: 0.1,
      operational_status: "Airborne",
      position: {
        lat,
        lng: lng + east,
        alt: 520.5,
        extrapolated: false,
        pressure_altitude: 510,
      },
      height: { distance: 50, reference: "TakeoffLocation" },
      // Where injection v0.1 requires them (F3411-22a has them on the position).
      accuracy_h: "HA3m",
      accuracy_v: "VA10m",
      track: 90,
      speed: 10,
      speed_accuracy: "SA1mps",
      vertical_speed: 0.5,
    });
  }
  return {
    injection_id: injectionId,
    aircraft_type: "Helicopter",
    telemetry,
    details_responses: [
      {
        effective_after: iso(now - 60_000),
        details: {
          id: "uss1.test",
          operator_id: "CHEm1234567abcdef",
          operator_location: { lat: lat - 0.001, lng },
          operation_description: "Qualifier test flight",
          serial_number: "INTCJ123-4567-890",
          registration_number: "CHE87yth4irsi8w",
        },
      },
    ],
  };
}

describe("Remote ID authentication and rate limit", () => {
  const routes: [string, string, unknown, string][] = [
    ["GET", `${USS}/flights?view=${viewAround(47.4, 8.55)}`, undefined, RID_SCOPES.displayProvider],
    ["GET", `${USS}/flights/flight%7Cx/details`, undefined, RID_SCOPES.displayProvider],
    [
      "POST",
      `${USS}/identification_service_areas/4a7b9a2e-6c9b-4c5e-9d3f-1b2c3d4e5f60`,
      { subscriptions: [{ subscription_id: "4a7b9a2e-6c9b-4c5e-9d3f-1b2c3d4e5f61" }] },
      RID_SCOPES.serviceProvider,
    ],
    ["PUT", `${INJECT}/tests/t-auth`, { requested_flights: [] }, RID_SCOPES.injectTestData],
    ["DELETE", `${INJECT}/tests/t-auth/1`, undefined, RID_SCOPES.injectTestData],
    ["GET", `${INJECT}/user_notifications?after=${iso(Date.now())}`, undefined, RID_SCOPES.injectTestData],
  ];

  it.each(routes)(
    "%s %s: 401 without a token, 403 without its scope, no API key asked",
    async (method, path, body, scope) => {
      const none = await call(path, { method, body });
      expect(none.status).toBe(401);
      expect(none.json).toEqual({ message: expect.any(String) });
      const other = scope === RID_SCOPES.displayProvider ? inject : display;
      const wrong = await call(path, { method, body, token: other });
      expect(wrong.status).toBe(403);
      expect(wrong.headers.get("WWW-Authenticate")).toContain("insufficient_scope");
      const right = await call(path, { method, body, token: await interussToken([scope]) });
      expect([401, 403]).not.toContain(right.status);
    },
  );

  it("refuses a token for another audience", async () => {
    const token = await interussToken([RID_SCOPES.displayProvider], { sub: "x", aud: "elsewhere.example" });
    expect((await call(`${USS}/flights?view=${viewAround(47.4, 8.55)}`, { token })).status).toBe(401);
  });

  it("limits each token subject, answering 429 with Retry-After in the interface's error body", async () => {
    const app = new Hono<AppEnv>();
    app.get("/x", limitPerSubject(2), (c) => c.json({ ok: true }));
    const tokenA = await interussToken([RID_SCOPES.displayProvider], { sub: "dp-a" });
    const tokenB = await interussToken([RID_SCOPES.displayProvider], { sub: "dp-b" });
    const get = (token: string) =>
      app.request("/x", { headers: { Authorization: `Bearer ${token}` } }, {
        RATE_LIMIT_PER_MINUTE: "1200",
      } as never);
    expect((await get(tokenA)).status).toBe(200);
    expect((await get(tokenA)).status).toBe(200);
    const limited = await get(tokenA);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    const body = await limited.json();
    expect(responseErrors(F3411, "/uss/flights", "get", 400, body)).toEqual([]);
    expect(body).toEqual({ message: expect.stringContaining("Rate limit") });
    // Another subject has its own bucket.
    expect((await get(tokenB)).status).toBe(200);
  });
});

describe("/rid/v2/uss/flights: views", () => {
  it("answers 413 for a view whose diagonal is over 7 km, 200 just under", async () => {
    const big = await flights(viewAround(47.4, 8.55, 2.5));
    expect(big.status).toBe(413);
    expect(big.json.message).toMatch(/7 km/);
    const fits = await flights(viewAround(47.4, 8.55, 2.4));
    expect(fits.status, fits.text).toBe(200);
  });

  it("answers 400 for a malformed view or recent_positions_duration", async () => {
    for (const view of ["", "47.4,8.55,47.41", "a,b,c,d", "95,8.55,95.01,8.56", "47.4,190,47.41,190.01"]) {
      const res = await flights(view);
      expect(res.status, view).toBe(400);
    }
    const view = viewAround(47.4, 8.55);
    expect((await flights(view, "&recent_positions_duration=61")).status).toBe(400);
    expect((await flights(view, "&recent_positions_duration=-1")).status).toBe(400);
    expect((await flights(view, "&recent_positions_duration=60")).status).toBe(200);
  });
});

describe("RID injection → /rid/v2 (the netrid nominal behavior)", () => {
  const lat = 47.3769;
  const lng = 8.5417;
  let version: string;
  let injected: Record<string, any>;
  let flightId: string;
  let before: number;

  beforeAll(async () => {
    before = Date.now();
    const body = {
      requested_flights: [testFlight("a7b8c9d0-0000-4000-8000-000000000001", lat, lng, before)],
    };
    expect(requestErrors(INJECTION, "/tests/{test_id}", "put", body)).toEqual([]);
    const res = await call(`${INJECT}/tests/nominal-1`, { method: "PUT", token: inject, body });
    expect(res.status, res.text).toBe(200);
    expect(responseErrors(INJECTION, "/tests/{test_id}", "put", 200, res.json)).toEqual([]);
    version = res.json.version;
    injected = res.json.injected_flights[0];
    flightId = injected.details_responses[0].details.id;
  });

  it("echoes the injected flight, keeping its injection_id, naming this service's flight id", () => {
    expect(injected.injection_id).toBe("a7b8c9d0-0000-4000-8000-000000000001");
    expect(flightId).toMatch(/^flight\|/);
    expect(injected.telemetry).toHaveLength(81);
  });

  it("shows the flight in a view over it, with its current (not future) state", async () => {
    const res = await flights(viewAround(lat, lng + 0.002));
    const after = Date.now();
    expect(res.status, res.text).toBe(200);
    const flight = res.json.flights.find((f: { id: string }) => f.id === flightId);
    expect(flight, res.text).toBeDefined();
    expect(flight.aircraft_type).toBe("Helicopter");
    expect(flight.simulated).toBe(true);
    const state = flight.current_state;
    const at = Date.parse(state.timestamp.value);
    // ≥ 1 Hz: the state served is the latest injected second that has come.
    expect(at).toBeLessThanOrEqual(after);
    expect(after - at).toBeLessThan(2000 + (after - before));
    expect(state.speed).toBeCloseTo(10, 1);
    expect(state.track).toBeCloseTo(90, 0);
    expect(state.vertical_speed).toBeCloseTo(0.5, 2);
    expect(state.position.alt).toBeCloseTo(520.5, 1);
    expect(state.position.accuracy_h).toBe("HA3m");
    expect(state.position.accuracy_v).toBe("VA10m");
    expect(state.position.height).toEqual({ distance: 50, reference: "TakeoffLocation" });
    expect(state.operational_status).toBe("Airborne");
    expect(state.timestamp_accuracy).toBe(0.1);
    expect(state.speed_accuracy).toBe("SA1mps");
    expect(flight.recent_positions).toEqual([]);
  });

  it("gives recent positions only within the asked duration", async () => {
    const res = await flights(viewAround(lat, lng + 0.002), "&recent_positions_duration=5");
    const flight = res.json.flights.find((f: { id: string }) => f.id === flightId);
    const now = Date.now();
    expect(flight.recent_positions.length).toBeGreaterThanOrEqual(4);
    for (const p of flight.recent_positions) {
      expect(Date.parse(p.time.value)).toBeGreaterThanOrEqual(now - 6000);
      expect(Date.parse(p.time.value)).toBeLessThanOrEqual(now);
    }
  });

  it("does not show it in a view elsewhere", async () => {
    const res = await flights(viewAround(lat + 0.05, lng));
    expect(res.status).toBe(200);
    expect(res.json.flights.map((f: { id: string }) => f.id)).not.toContain(flightId);
  });

  it("answers its details as injected, as F3411-22a shapes them", async () => {
    const res = await call(`${USS}/flights/${encodeURIComponent(flightId)}/details`, { token: display });
    expect(res.status, res.text).toBe(200);
    expect(responseErrors(F3411, "/uss/flights/{id}/details", "get", 200, res.json)).toEqual([]);
    expect(res.json.details).toEqual({
      id: flightId,
      operator_id: "CHEm1234567abcdef",
      operation_description: "Qualifier test flight",
      operator_location: { position: { lat: lat - 0.001, lng } },
      uas_id: { serial_number: "INTCJ123-4567-890", registration_id: "CHE87yth4irsi8w" },
    });
    const unknown = await call(`${USS}/flights/flight%7Cnosuchflight/details`, { token: display });
    expect(unknown.status).toBe(404);
    expect(responseErrors(F3411, "/uss/flights/{id}/details", "get", 404, unknown.json)).toEqual([]);
  });

  it("refuses the same test id again (409) and a wrong version on delete (404)", async () => {
    const again = await call(`${INJECT}/tests/nominal-1`, {
      method: "PUT",
      token: inject,
      body: { requested_flights: [testFlight("other", lat, lng, Date.now())] },
    });
    expect(again.status).toBe(409);
    expect(
      (await call(`${INJECT}/tests/nominal-1/not-the-version`, { method: "DELETE", token: inject })).status,
    ).toBe(404);
  });

  it("removes the flight when the test is deleted", async () => {
    const res = await call(`${INJECT}/tests/nominal-1/${encodeURIComponent(version)}`, {
      method: "DELETE",
      token: inject,
    });
    expect(res.status, res.text).toBe(200);
    expect(responseErrors(INJECTION, "/tests/{test_id}/{version}", "delete", 200, res.json)).toEqual([]);
    expect(res.json.injected_flights[0].injection_id).toBe(injected.injection_id);
    const after = await flights(viewAround(lat, lng + 0.002));
    expect(after.json.flights.map((f: { id: string }) => f.id)).not.toContain(flightId);
    expect(
      (await call(`${USS}/flights/${encodeURIComponent(flightId)}/details`, { token: display })).status,
    ).toBe(404);
    // The id is free again.
    expect(
      (
        await call(`${INJECT}/tests/nominal-1/${encodeURIComponent(version)}`, {
          method: "DELETE",
          token: inject,
        })
      ).status,
    ).toBe(404);
  });
});

describe("RID injection: after the last state, and the DSS", () => {
  it("keeps showing a flight for NetMaxNearRealTimeDataPeriod after its last state, announced in the own DSS", async () => {
    const now = Date.now();
    const [flat, flng] = [46.2, 6.1];
    const flight = testFlight("ended", flat, flng, now);
    // Every state already past: the last one 5 s ago.
    flight.telemetry = flight.telemetry.slice(0, 16);
    const res = await call(`${INJECT}/tests/ended-1`, {
      method: "PUT",
      token: inject,
      body: { requested_flights: [flight] },
    });
    expect(res.status, res.text).toBe(200);
    const flightId = res.json.injected_flights[0].details_responses[0].details.id as string;
    const seen = await flights(viewAround(flat, flng), "&recent_positions_duration=60");
    expect(seen.json.flights.map((f: { id: string }) => f.id)).toContain(flightId);
    const details = await call(`${USS}/flights/${encodeURIComponent(flightId)}/details`, { token: display });
    expect(details.status).toBe(200);

    // Display providers find this service through its own DSS, until the last state's period ends.
    const dp = await interussToken([RID_SCOPES.displayProvider]);
    const d = 0.01;
    const area = [flat - d, flng - d, flat - d, flng + d, flat + d, flng + d, flat + d, flng - d].join(",");
    const isas = await call(`/rid/v2/dss/identification_service_areas?area=${area}`, { token: dp });
    expect(isas.status).toBe(200);
    const mine = isas.json.service_areas.filter((a: { owner: string }) => a.owner === "windsock");
    expect(mine).toHaveLength(1);
    expect(mine[0].uss_base_url).toMatch(/\/rid\/v2$/);
    expect(Date.parse(mine[0].time_end.value)).toBeGreaterThanOrEqual(now - 5000 + 60_000 - 1);

    const deleted = await call(`${INJECT}/tests/ended-1/${encodeURIComponent(res.json.version)}`, {
      method: "DELETE",
      token: inject,
    });
    expect(deleted.status).toBe(200);
    const after = await call(`/rid/v2/dss/identification_service_areas?area=${area}`, { token: dp });
    expect(after.json.service_areas.filter((a: { owner: string }) => a.owner === "windsock")).toEqual([]);
  });
});

describe("RID injection: data older than the DSS takes", () => {
  it("injects a flight whose states ended ten minutes ago and announces it from now in the own DSS", async () => {
    // The qualifier freezes its flights when the suite starts: a scenario run after others injects
    // states long past. The DSS refuses an ISA starting minutes ago or already ended.
    const now = Date.now();
    const [flat, flng] = [46.4, 6.3];
    const flight = testFlight("long-past", flat, flng, now - 11 * 60_000);
    const res = await call(`${INJECT}/tests/long-past-1`, {
      method: "PUT",
      token: inject,
      body: { requested_flights: [flight] },
    });
    expect(res.status, res.text).toBe(200);
    const dp = await interussToken([RID_SCOPES.displayProvider]);
    const d = 0.01;
    const area = [flat - d, flng - d, flat - d, flng + d, flat + d, flng + d, flat + d, flng - d].join(",");
    const isas = await call(`/rid/v2/dss/identification_service_areas?area=${area}`, { token: dp });
    const mine = isas.json.service_areas.filter((a: { owner: string }) => a.owner === "windsock");
    expect(mine).toHaveLength(1);
    expect(Date.parse(mine[0].time_start.value)).toBeGreaterThanOrEqual(now - 1000);
    expect(Date.parse(mine[0].time_end.value)).toBeGreaterThanOrEqual(now + 60_000 - 1000);
    const deleted = await call(`${INJECT}/tests/long-past-1/${encodeURIComponent(res.json.version)}`, {
      method: "DELETE",
      token: inject,
    });
    expect(deleted.status).toBe(200);
  });
});

describe("RID injection: invalid test data", () => {
  it("answers 400 naming the field, and creates nothing", async () => {
    const now = Date.now();
    const flight = testFlight("bad", 46.9, 7.4, now);
    (flight.telemetry[3]!.position as Record<string, unknown>).lat = 123;
    const res = await call(`${INJECT}/tests/bad-1`, {
      method: "PUT",
      token: inject,
      body: { requested_flights: [flight] },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain("requested_flights[0].telemetry[3].position.lat");
    const empty = await call(`${INJECT}/tests/bad-1`, {
      method: "PUT",
      token: inject,
      body: { requested_flights: [] },
    });
    expect(empty.status).toBe(400);
    const good = await call(`${INJECT}/tests/bad-1`, {
      method: "PUT",
      token: inject,
      body: { requested_flights: [testFlight("good", 46.9, 7.4, now)] },
    });
    expect(good.status, good.text).toBe(200);
    await call(`${INJECT}/tests/bad-1/${encodeURIComponent(good.json.version)}`, {
      method: "DELETE",
      token: inject,
    });
  });

  it("answers 400 naming the state dated 1970 or 9999", async () => {
    const now = Date.now();
    for (const [i, absurd] of [
      [5, "1970-01-01T00:00:00Z"],
      [70, "9999-12-31T23:59:59Z"],
    ] as const) {
      const flight = testFlight("dated", 46.9, 7.4, now);
      flight.telemetry[i]!.timestamp = absurd;
      const res = await call(`${INJECT}/tests/dated-${i}`, {
        method: "PUT",
        token: inject,
        body: { requested_flights: [flight] },
      });
      expect(res.status, res.text).toBe(400);
      expect(res.json.message).toContain(`requested_flights[0].telemetry[${i}].timestamp`);
    }
  });

  it("answers user notifications (none) and 400 without `after`", async () => {
    const res = await call(`${INJECT}/user_notifications?after=${iso(Date.now() - hour)}`, { token: inject });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ user_notifications: [] });
    expect((await call(`${INJECT}/user_notifications`, { token: inject })).status).toBe(400);
  });
});

describe("Windsock flights in /rid/v2: relay and HTTP ingest, private included", () => {
  const lat = 34.015;
  const lng = -118.485;

  it("shows a private flight sending over HTTP (F3411 states) until it ends", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "rid-http");
    const flight = await flightAt(account, token, {
      latitude: lat,
      longitude: lng,
      public: false,
      buffer: 200,
    });
    const now = Date.now();
    const states = [-2, -1, 0].map((t) => ({
      timestamp: { value: iso(now + t * 1000), format: "RFC3339" },
      position: { lat, lng: lng + t * 1e-5, alt: 80, accuracy_h: "HA10m" },
      track: 45,
      speed: 5,
      vertical_speed: 0,
    }));
    const sent = await call(`/flight/v2/${encodeURIComponent(flight.id)}/telemetry`, {
      method: "POST",
      apiKey: account.apiKey,
      token,
      body: { states },
    });
    expect(sent.status, sent.text).toBe(200);
    const res = await flights(viewAround(lat, lng), "&recent_positions_duration=10");
    const seen = res.json.flights.find((f: { id: string }) => f.id === flight.id);
    expect(seen, res.text).toBeDefined();
    expect(seen.simulated).toBe(false);
    expect(seen.current_state.position.lat).toBeCloseTo(lat, 6);
    expect(seen.current_state.position.alt).toBeCloseTo(80, 1);
    expect(seen.current_state.position.accuracy_h).toBe("HA10m");
    expect(seen.current_state.track).toBeCloseTo(45, 0);
    expect(seen.recent_positions).toHaveLength(3);
    const details = await call(`${USS}/flights/${encodeURIComponent(flight.id)}/details`, { token: display });
    expect(details.status).toBe(200);
    expect(responseErrors(F3411, "/uss/flights/{id}/details", "get", 200, details.json)).toEqual([]);
    expect(details.json.details.operator_location.position).toEqual({ lat, lng });

    const ended = await call(`/flight/v2/${encodeURIComponent(flight.id)}/end`, {
      method: "POST",
      apiKey: account.apiKey,
      token,
    });
    expect(ended.status, ended.text).toBe(200);
    await new Promise((r) => setTimeout(r, 5));
    const later = await flights(viewAround(lat, lng));
    expect(later.json.flights.map((f: { id: string }) => f.id)).not.toContain(flight.id);
    const gone = await call(`${USS}/flights/${encodeURIComponent(flight.id)}/details`, { token: display });
    expect(gone.status).toBe(404);
  });

  it("shows a flight whose telemetry came through the UDP relay", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "rid-relay");
    const rlat = 34.05;
    const rlng = -118.3;
    const flight = await flightAt(account, token, {
      latitude: rlat,
      longitude: rlng,
      start_time: iso(Date.now() + hour),
      end_time: iso(Date.now() + 2 * hour),
      buffer: 200,
    });
    const comm = await call(`/flight/v2/${flight.id}/start-comm`, {
      method: "POST",
      apiKey: account.apiKey,
      token,
    });
    expect(comm.status, comm.text).toBe(200);
    const session = await call(`/internal/v1/flights/${encodeURIComponent(flight.id)}/session`, {
      headers: RELAY,
    });
    const sessionId = session.json.data.session_id;
    const now = Date.now();
    const records = [
      [1, 0, "position", now - 500, now, rlat, rlng, 30, 120.5, 2],
      [1, 1, "speed", now - 500, now, 0, 3, -1],
    ];
    const posted = await call("/internal/v1/telemetry", {
      method: "POST",
      headers: RELAY,
      body: { sessions: [{ flight_id: flight.id, session_id: sessionId, records }] },
    });
    expect(posted.status, posted.text).toBe(200);
    // A planned flight with an open session is live: its telemetry is reported.
    const res = await flights(viewAround(rlat, rlng));
    const seen = res.json.flights.find((f: { id: string }) => f.id === flight.id);
    expect(seen, res.text).toBeDefined();
    const state = seen.current_state;
    expect(state.speed).toBeCloseTo(3, 2);
    expect(state.track).toBeCloseTo(90, 1);
    expect(state.vertical_speed).toBeCloseTo(1, 2);
    expect(state.position.height).toEqual({ distance: 30, reference: "GroundLevel" });
    expect(state.position.accuracy_h).toBe("HA3m");
    expect(distanceKm(state.position.lat, state.position.lng, rlat, rlng)).toBeLessThan(0.001);
  });
});

describe("ISA notifications", () => {
  it("acknowledges a well-formed notification with 204 and refuses one without subscriptions", async () => {
    const path = `${USS}/identification_service_areas/4a7b9a2e-6c9b-4c5e-9d3f-1b2c3d4e5f60`;
    const body = {
      subscriptions: [{ subscription_id: "4a7b9a2e-6c9b-4c5e-9d3f-1b2c3d4e5f61", notification_index: 3 }],
    };
    expect(requestErrors(F3411, "/uss/identification_service_areas/{id}", "post", body)).toEqual([]);
    const ok = await call(path, { method: "POST", token: serviceProvider, body });
    expect(ok.status).toBe(204);
    expect(responseErrors(F3411, "/uss/identification_service_areas/{id}", "post", 204, undefined)).toEqual(
      [],
    );
    const bad = await call(path, { method: "POST", token: serviceProvider, body: { subscriptions: [] } });
    expect(bad.status).toBe(400);
    expect(responseErrors(F3411, "/uss/identification_service_areas/{id}", "post", 400, bad.json)).toEqual(
      [],
    );
    expect(
      (
        await call(`${USS}/identification_service_areas/not-a-uuid`, {
          method: "POST",
          token: serviceProvider,
          body,
        })
      ).status,
    ).toBe(400);
  });
});
