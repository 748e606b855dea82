import { describe, expect, it } from "vitest";
import { createPlan, hour, iso } from "./flightFixtures";
import { call, createAccount, tokenFor } from "./helpers";

/** Flight plans as they should go: create, read, patch, submit, delete. */

describe("flight plans: happy paths", () => {
  it("creates, reads, patches and submits a plan with every field of the submit response", async () => {
    const account = await createAccount();
    const { token, pilotId } = await tokenFor(account, "planner");
    const plan = await createPlan(account, token, {
      pilot_id: pilotId,
      flight_description: "survey",
      flight_features: { uav_weight: 0.9 },
    });
    expect(plan.id).toMatch(/^flight_plan\|/);
    expect(plan.flight_id).toBeNull();

    const read = await call(`/flight/v2/plan/${plan.id}`, { apiKey: account.apiKey, token });
    expect(read.json.data.id).toBe(plan.id);

    const patched = await call(`/flight/v2/plan/${encodeURIComponent(plan.id)}`, {
      method: "PATCH",
      apiKey: account.apiKey,
      token,
      body: { max_altitude_agl: 60, min_altitude_agl: 10 },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.data.max_altitude_agl).toBe(60);

    const submitted = await call(`/flight/v2/plan/${plan.id}/submit`, {
      method: "POST",
      apiKey: account.apiKey,
      token,
      headers: { "Accept-Language": "de-CH" },
    });
    expect(submitted.status).toBe(200);
    const data = submitted.json.data;
    for (const field of [
      "id",
      "flight_id",
      "pilot_id",
      "aircraft_id",
      "buffer",
      "start_time",
      "end_time",
      "takeoff_latitude",
      "takeoff_longitude",
      "min_altitude_agl",
      "max_altitude_agl",
      "flight_description",
      "geometry",
      "rulesets",
      "flight_features",
    ]) {
      expect(data, field).toHaveProperty(field);
    }
    expect(data.flight_id).toMatch(/^flight\|/);
    expect(data.pilot_id).toBe(pilotId);
    expect(data.flight_features).toMatchObject({
      uav_weight: 0.9,
      flight_max_altitude_agl: 60,
      flight_min_altitude_agl: 10,
    });
    expect(data.flight_features).not.toHaveProperty("accept-language");
    // The square is about 0.01° × 0.01°: its diagonal is roughly 1.45 km.
    expect(data.flight_features.max_linear_extent).toBeGreaterThan(1300);
    expect(data.flight_features.max_linear_extent).toBeLessThan(1600);

    const flight = await call(`/flight/v2/${data.flight_id}`, { apiKey: account.apiKey, token });
    expect(flight.json.data).toMatchObject({ id: data.flight_id, flight_plan_id: plan.id, max_altitude: 60 });
  });

  it("buffers a LineString and a Point into the flight area", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "liner");
    const line = await createPlan(account, token, {
      buffer: 50,
      geometry: {
        type: "LineString",
        coordinates: [
          [-118.49, 34.01],
          [-118.48, 34.02],
        ],
      },
    });
    const submitted = await call(`/flight/v2/plan/${line.id}/submit`, {
      method: "POST",
      apiKey: account.apiKey,
      token,
    });
    const flight = await call(`/flight/v2/${submitted.json.data.flight_id}`, {
      apiKey: account.apiKey,
      token,
    });
    expect(flight.json.data.geometry.type).toBe("Polygon");
    const point = await createPlan(account, token, {
      buffer: 30,
      geometry: { type: "Point", coordinates: [-118.485, 34.015] },
    });
    expect(point.geometry.type).toBe("Point");
  });

  it("accepts times with offsets and `now`", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "clock");
    const day = iso(Date.now() + 30 * 24 * hour).slice(0, 10);
    const plan = await createPlan(account, token, {
      start_time: `${day}T10:00:00+02:00`,
      end_time: `${day}T11:30:00.250+0200`,
    });
    expect(plan.start_time).toBe(`${day}T08:00:00.000Z`);
    expect(plan.end_time).toBe(`${day}T09:30:00.250Z`);
    const now = await createPlan(account, token, { start_time: "now", end_time: iso(Date.now() + hour) });
    expect(Math.abs(Date.parse(now.start_time) - Date.now())).toBeLessThan(60_000);
  });

  it("creates exactly one flight when two submits race", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "racer");
    const plan = await createPlan(account, token);
    const submits = await Promise.all(
      Array.from({ length: 4 }, () =>
        call(`/flight/v2/plan/${plan.id}/submit`, { method: "POST", apiKey: account.apiKey, token }),
      ),
    );
    const statuses = submits.map((s) => s.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(3);
    const list = await call("/flight/v2/", { apiKey: account.apiKey, token });
    expect(list.json.data.paging.total).toBe(1);
  });
});
