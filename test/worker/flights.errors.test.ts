import { describe, expect, it } from "vitest";
import { hour, iso, knoxville, square, swapped } from "./flightFixtures";
import { call, createAccount, tokenFor } from "./helpers";

/** Flights refused: each bad field named, and the sanity checks that catch real mistakes. */

describe("flights: invalid fields", () => {
  it("names bad fields", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "bad");
    for (const [body, field] of [
      [{ latitude: 100, longitude: 0 }, "latitude"],
      [{ latitude: 0 }, "longitude"],
      [{ latitude: 0, longitude: 0, buffer: 0 }, "buffer"],
      [{ latitude: 0, longitude: 0, start_time: "2031-05-01 12:00" }, "start_time"],
      [{ latitude: 0, longitude: 0, public: "yes" }, "public"],
    ] as const) {
      const res = await call("/flight/v2/point", { method: "POST", apiKey: account.apiKey, token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.data.errors.map((e: { name: string }) => e.name)).toContain(field);
    }
  });

  it("names bad list parameters", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "lister");
    for (const [query, name] of [
      ["?limit=0", "limit"],
      ["?limit=1001", "limit"],
      ["?start_before=yesterday", "start_before"],
      ["?end_after=2030-01-01T00:00:00", "end_after"],
      ["?cursor=garbage", "cursor"],
      ["?geometry=%7Bbad", "geometry"],
    ]) {
      const res = await call(`/flight/v2/${query}`, { apiKey: account.apiKey, token });
      expect(res.status, query).toBe(400);
      expect(res.json.data.errors.map((e: { name: string }) => e.name)).toContain(name);
    }
  });
});

describe("flights: sanity checks", () => {
  async function post(shape: string, body: Record<string, unknown>) {
    const account = await createAccount();
    const { token } = await tokenFor(account, "careless");
    return call(`/flight/v2/${shape}`, { method: "POST", apiKey: account.apiKey, token, body });
  }

  function expectProblem(res: Awaited<ReturnType<typeof call>>, field: string, message: RegExp) {
    expect(res.status, res.text).toBe(400);
    expect(res.json.data.errors).toEqual([{ name: field, message: expect.stringMatching(message) }]);
  }

  it("accepts a take-off point far outside the area (CONTRACT §4)", async () => {
    // The square spans latitudes 34.01 to 34.02: 0.18° north is 20 km away.
    const far = await post("polygon", { latitude: 34.2, longitude: -118.485, geometry: square });
    expect(far.status, far.text).toBe(200);
  });

  it("names the geometry when its positions look like [latitude, longitude]", async () => {
    const line = { type: "LineString", coordinates: knoxville.coordinates[0]!.slice(0, 3) };
    const res = await post("path", { latitude: 35.965, longitude: -83.915, geometry: swapped(line) });
    expectProblem(
      res,
      "geometry",
      /look like \[latitude, longitude\].*GeoJSON positions are \[longitude, latitude\]/,
    );
  });

  it("refuses start and end times more than a year ahead", async () => {
    const start = await post("point", {
      latitude: 34.015,
      longitude: -118.485,
      start_time: iso(Date.now() + 400 * 24 * hour),
    });
    expectProblem(start, "start_time", /is more than a year ahead/);
    const end = await post("point", {
      latitude: 34.015,
      longitude: -118.485,
      start_time: iso(Date.now() + hour),
      end_time: iso(Date.now() + 370 * 24 * hour),
    });
    expectProblem(end, "end_time", /is more than a year ahead/);
  });
});
