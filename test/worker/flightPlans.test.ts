import { describe, expect, it } from "vitest";
import { bowTie } from "../geometries";
import { createPlan, hour, iso, planBody, square } from "./flightFixtures";
import { call, createAccount, tokenFor } from "./helpers";

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
    expect(typeof data.flight_features["accept-language"]).toBe("string");
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
    const plan = await createPlan(account, token, {
      start_time: "2030-01-01T10:00:00+02:00",
      end_time: "2030-01-01T11:30:00.250+0200",
    });
    expect(plan.start_time).toBe("2030-01-01T08:00:00.000Z");
    expect(plan.end_time).toBe("2030-01-01T09:30:00.250Z");
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

describe("flight plans: errors", () => {
  it("names each invalid field", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "sloppy");
    const cases: [Record<string, unknown>, string][] = [
      [{ takeoff_latitude: 91 }, "takeoff_latitude"],
      [{ takeoff_longitude: "east" }, "takeoff_longitude"],
      [{ start_time: "2030-01-01T10:00:00" }, "start_time"],
      [{ end_time: "tomorrow" }, "end_time"],
      [{ start_time: iso(Date.now() + 2 * hour), end_time: iso(Date.now() + hour) }, "end_time"],
      [{ max_altitude_agl: -1 }, "max_altitude_agl"],
      [{ min_altitude_agl: 200, max_altitude_agl: 100 }, "min_altitude_agl"],
      [
        {
          geometry: {
            type: "Polygon",
            coordinates: [
              [
                [0, 0],
                [1, 0],
                [1, 1],
                [0, 2],
              ],
            ],
          },
        },
        "geometry",
      ],
      [
        {
          geometry: {
            type: "Polygon",
            coordinates: [
              [
                [0, 0],
                [1, 0],
                [0, 0],
              ],
            ],
          },
        },
        "geometry",
      ],
      [
        {
          geometry: bowTie,
        },
        "geometry",
      ],
      [
        {
          geometry: {
            type: "Polygon",
            coordinates: [
              [
                [0, 0],
                [200, 0],
                [1, 1],
                [0, 0],
              ],
            ],
          },
        },
        "geometry",
      ],
      [
        {
          geometry: {
            type: "LineString",
            coordinates: [
              [0, 0],
              [1, 1],
            ],
          },
          buffer: 0,
        },
        "geometry",
      ],
      [{ geometry: { type: "Circle", coordinates: [] } }, "geometry"],
      [{ aircraft_id: "aircraft|nope" }, "aircraft_id"],
    ];
    for (const [override, field] of cases) {
      const res = await call("/flight/v2/plan", {
        method: "POST",
        apiKey: account.apiKey,
        token,
        body: planBody(override),
      });
      expect(res.status, JSON.stringify(override)).toBe(400);
      expect(res.json.status).toBe("fail");
      expect(
        res.json.data.errors.map((e: { name: string }) => e.name),
        JSON.stringify(override),
      ).toContain(field);
    }
    const missing = await call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      token,
      body: {},
    });
    expect(missing.json.data.errors.map((e: { name: string }) => e.name)).toEqual(
      expect.arrayContaining([
        "takeoff_latitude",
        "takeoff_longitude",
        "start_time",
        "end_time",
        "max_altitude_agl",
        "geometry",
      ]),
    );
  });

  it("answers 413 for a geometry over 10,000 positions and for a body over 1 MiB", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "big");
    const ring = Array.from({ length: 10_001 }, (_, i) => {
      const a = (2 * Math.PI * i) / 10_000;
      return [Math.cos(a) * 0.01, Math.sin(a) * 0.01];
    });
    ring[ring.length - 1] = ring[0]!;
    const res = await call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      token,
      body: planBody({ geometry: { type: "Polygon", coordinates: [ring] } }),
    });
    expect(res.status).toBe(413);
    expect(res.json.data.errors[0].name).toBe("geometry");
    const huge = await call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      token,
      body: planBody({ flight_description: "x".repeat(1_100_000) }),
    });
    expect(huge.status).toBe(413);
  });

  it("refuses malformed JSON (400) and other content types (415)", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "garbled");
    const bad = await call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      token,
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    const text = await call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      token,
      body: JSON.stringify(planBody()),
      headers: { "Content-Type": "text/plain" },
    });
    expect(text.status).toBe(415);
    expect(text.json.status).toBe("fail");
  });

  it("refuses to patch or submit a submitted plan (409)", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "twice");
    const plan = await createPlan(account, token);
    await call(`/flight/v2/plan/${plan.id}/submit`, { method: "POST", apiKey: account.apiKey, token });
    const again = await call(`/flight/v2/plan/${plan.id}/submit`, {
      method: "POST",
      apiKey: account.apiKey,
      token,
    });
    expect(again.status).toBe(409);
    const patch = await call(`/flight/v2/plan/${plan.id}`, {
      method: "PATCH",
      apiKey: account.apiKey,
      token,
      body: { max_altitude_agl: 50 },
    });
    expect(patch.status).toBe(409);
  });
});

describe("flight plans: security", () => {
  it("keeps plans to their pilot and account", async () => {
    const account = await createAccount();
    const owner = await tokenFor(account, "owner");
    const other = await tokenFor(account, "other");
    const plan = await createPlan(account, owner.token);
    const read = await call(`/flight/v2/plan/${plan.id}`, { apiKey: account.apiKey, token: other.token });
    expect(read.status).toBe(403);
    const submit = await call(`/flight/v2/plan/${plan.id}/submit`, {
      method: "POST",
      apiKey: account.apiKey,
      token: other.token,
    });
    expect(submit.status).toBe(403);
    const foreign = await createAccount();
    const stranger = await tokenFor(foreign, "owner");
    const cross = await call(`/flight/v2/plan/${plan.id}`, { apiKey: foreign.apiKey, token: stranger.token });
    expect(cross.status).toBe(404);
    const spoof = await call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      token: other.token,
      body: planBody({ pilot_id: owner.pilotId }),
    });
    expect(spoof.status).toBe(403);
    const noToken = await call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      body: planBody(),
    });
    expect(noToken.status).toBe(401);
    const ownGeometry = await call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      token: owner.token,
      body: planBody({ geometry: square }),
    });
    expect(ownGeometry.status).toBe(200);
  });
});
