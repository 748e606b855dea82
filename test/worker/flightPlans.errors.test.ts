import { describe, expect, it } from "vitest";
import { bowTie } from "../geometries";
import { createPlan, hour, iso, knoxville, planBody, swapped } from "./flightFixtures";
import { call, createAccount, tokenFor } from "./helpers";

/** Flight plans refused: each bad field named, sizes, content types, states, and sanity checks. */

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

describe("flight plans: sanity checks", () => {
  async function planned(overrides: Record<string, unknown>) {
    const account = await createAccount();
    const { token } = await tokenFor(account, "careless");
    return call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      token,
      body: planBody(overrides),
    });
  }

  function expectProblem(res: Awaited<ReturnType<typeof call>>, field: string, message: RegExp) {
    expect(res.status, res.text).toBe(400);
    expect(res.json.data.errors).toEqual([{ name: field, message: expect.stringMatching(message) }]);
  }

  const inKnoxville = { takeoff_latitude: 35.965, takeoff_longitude: -83.915 };

  it("accepts a far take-off point and reports it in the briefing's validations (CONTRACT §4)", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "far-away");
    const res = await call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      token,
      body: planBody({ takeoff_latitude: 34.2 }),
    });
    expect(res.status, res.text).toBe(200);
    const briefing = await call(`/flight/v2/plan/${encodeURIComponent(res.json.data.id)}/briefing`, {
      apiKey: account.apiKey,
      token,
    });
    expect(briefing.json.data.validations).toContainEqual(
      expect.objectContaining({
        status: "invalid",
        feature: expect.objectContaining({ code: "takeoff_position" }),
        message: expect.stringMatching(/lies 20(\.\d)? km outside the flight area/),
      }),
    );
  });

  it("names the geometry when its positions are [latitude, longitude] (the area lies in Antarctica)", async () => {
    const res = await planned({ ...inKnoxville, geometry: swapped(knoxville) });
    expectProblem(
      res,
      "geometry",
      /look like \[latitude, longitude\]: as sent, the area lies 1[0-9],[0-9]{3}(\.[0-9])? km/,
    );
  });

  it("refuses start and end times more than a year ahead", async () => {
    const year = 365 * 24 * hour;
    const start = await planned({
      start_time: iso(Date.now() + year + 24 * hour),
      end_time: iso(Date.now() + year + 25 * hour),
    });
    expectProblem(start, "start_time", /is more than a year ahead/);
    const end = await planned({ end_time: iso(Date.now() + year + 24 * hour) });
    expectProblem(end, "end_time", /is more than a year ahead/);
  });

  it("checks a change as the whole plan it makes: a swapped area stays a 400", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "mover");
    const plan = await createPlan(account, token);
    const res = await call(`/flight/v2/plan/${plan.id}`, {
      method: "PATCH",
      apiKey: account.apiKey,
      token,
      body: { geometry: knoxville },
    });
    // Moved to the other side of the country: accepted, and reported by the briefing.
    expect(res.status, res.text).toBe(200);
    const swappedMove = await call(`/flight/v2/plan/${plan.id}`, {
      method: "PATCH",
      apiKey: account.apiKey,
      token,
      body: { geometry: swapped(knoxville), takeoff_latitude: 35.965, takeoff_longitude: -83.915 },
    });
    expectProblem(swappedMove, "geometry", /look like \[latitude, longitude\]/);
  });
});
