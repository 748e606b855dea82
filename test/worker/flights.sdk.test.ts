import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createRouter } from "../../worker/app";
import { flightPlanRoutes } from "../../worker/routes/flightPlans";
import { flightRoutes } from "../../worker/routes/flights";
import { FALLON_CELL_AREA, loadAirspaceFixtures } from "./airspaceFixtures";
import { createPlan, flightAt, hour, iso, square } from "./flightFixtures";
import { call, createAccount, type TestAccount, tokenFor } from "./helpers";

/** The C++ SDK's body (codec/json/flights.cpp): microsecond times, `100.0` doubles, every flag sent. */
function sdkBody(geometry: unknown, overrides: Record<string, unknown> = {}) {
  const now = Date.now();
  const start = new Date(now + hour).toISOString().replace("Z", "309Z");
  const end = new Date(now + 2 * hour).toISOString().replace("Z", "309Z");
  return JSON.stringify({
    latitude: 34.015,
    longitude: -118.485,
    max_altitude: 100.0,
    start_time: start,
    end_time: end,
    public: false,
    notify: false,
    buffer: 100.0,
    geometry,
    ...overrides,
  }).replace(/"(max_altitude|buffer)":(\d+)([,}])/g, '"$1":$2.0$3');
}

const line = {
  type: "LineString",
  coordinates: [
    [-118.49, 34.01],
    [-118.48, 34.015],
    [-118.47, 34.01],
  ],
};

/** The members the Kotlin SDK's `Flight` requires (models/Flight.kt); a missing one fails its decoder. */
const KOTLIN_REQUIRED = [
  "id",
  "pilot_id",
  "latitude",
  "longitude",
  "max_altitude",
  "created_at",
  "start_time",
  "end_time",
];

let account: TestAccount;
let pilot: { token: string; pilotId: string };
beforeAll(async () => {
  await loadAirspaceFixtures();
  account = await createAccount();
  pilot = await tokenFor(account, "sdk-pilot");
});

const post = (path: string, body: string, token = pilot.token) =>
  call(path, { method: "POST", apiKey: account.apiKey, token, body });
const get = (path: string, token = pilot.token) => call(path, { apiKey: account.apiKey, token });

describe("POST /flight/v2/polygon and /flight/v2/path", () => {
  it("creates a flight over a polygon as the C++ SDK sends it, answering the flight as GET reads it", async () => {
    const res = await post("/flight/v2/polygon", sdkBody(square));
    expect(res.status, res.text).toBe(200);
    const flight = res.json.data;
    expect(flight.id).toMatch(/^flight\|/);
    for (const field of KOTLIN_REQUIRED) expect(flight[field], field).not.toBeNull();
    expect(flight).toMatchObject({
      pilot_id: pilot.pilotId,
      latitude: 34.015,
      longitude: -118.485,
      max_altitude: 100,
      buffer: 100,
      flight_plan_id: null,
      aircraft_id: null,
      geometry: square,
      public: false,
      notify: false,
      permits: [],
      statuses: [],
    });
    expect(Date.parse(flight.end_time) - Date.parse(flight.start_time)).toBe(hour);
    const read = await get(`/flight/v2/${flight.id}`);
    expect(read.json.data).toEqual(flight);
  });

  it("buffers a path into the flight area", async () => {
    const res = await post("/flight/v2/path", sdkBody(line, { buffer: 50 }));
    expect(res.status, res.text).toBe(200);
    const area = res.json.data.geometry;
    expect(area.type).toBe("Polygon");
    const lats = area.coordinates[0].map((p: number[]) => p[1]);
    // 50 m either side of the path: about 0.00045° beyond its southernmost and northernmost points.
    expect(Math.min(...lats)).toBeCloseTo(34.01 - 0.00045, 4);
    expect(Math.max(...lats)).toBeCloseTo(34.015 + 0.00045, 4);
    const wider = await post("/flight/v2/path", sdkBody(line, { buffer: 200 }));
    const widerLats = wider.json.data.geometry.coordinates[0].map((p: number[]) => p[1]);
    expect(Math.min(...widerLats)).toBeLessThan(Math.min(...lats));
  });

  it("defaults like a point flight: now, four hours, 100 m buffer", async () => {
    const res = await call("/flight/v2/path", {
      method: "POST",
      apiKey: account.apiKey,
      token: pilot.token,
      body: { latitude: 34.01, longitude: -118.49, geometry: line },
    });
    expect(res.status, res.text).toBe(200);
    const flight = res.json.data;
    expect(flight.buffer).toBe(100);
    expect(Date.parse(flight.end_time) - Date.parse(flight.start_time)).toBe(4 * hour);
    expect(Math.abs(Date.parse(flight.start_time) - Date.now())).toBeLessThan(60_000);
  });

  it("decides place and LAANC as for every flight, with Kotlin's statuses from the authorizations", async () => {
    const accepted = await post(
      "/flight/v2/polygon",
      sdkBody(FALLON_CELL_AREA, { latitude: 39.479, longitude: -118.787, max_altitude: 60 }),
    );
    expect(accepted.json.data).toMatchObject({ city: "Fallon", state: "Nevada", country: "USA" });
    expect(accepted.json.data.authorizations.map((a: any) => a.status)).toEqual(["accepted"]);
    expect(accepted.json.data.statuses).toEqual([
      { id: `${accepted.json.data.id}#1`, manager_id: "faa-laanc", status: "accepted" },
    ]);
    // More than 90 days ahead LAANC takes no request: spec 2.6 says not_requested, Kotlin reads rejected.
    const far = Date.now() + 120 * 24 * hour;
    const early = await call("/flight/v2/polygon", {
      method: "POST",
      apiKey: account.apiKey,
      token: pilot.token,
      body: {
        latitude: 39.479,
        longitude: -118.787,
        max_altitude: 60,
        start_time: iso(far),
        end_time: iso(far + hour),
        geometry: FALLON_CELL_AREA,
      },
    });
    expect(early.json.data.authorizations.map((a: any) => a.status)).toEqual(["not_requested"]);
    expect(early.json.data.statuses.map((s: any) => s.status)).toEqual(["rejected"]);
  });

  it("names what is wrong with the body", async () => {
    const cases: [string, unknown, string, number][] = [
      ["/flight/v2/polygon", JSON.parse(sdkBody(line)), "geometry", 400],
      ["/flight/v2/path", JSON.parse(sdkBody(square)), "geometry", 400],
      ["/flight/v2/path", JSON.parse(sdkBody(line, { buffer: 0 })), "geometry", 400],
      ["/flight/v2/polygon", { latitude: 34, longitude: -118 }, "geometry", 400],
      ["/flight/v2/polygon", JSON.parse(sdkBody(square, { latitude: 91 })), "latitude", 400],
      ["/flight/v2/polygon", JSON.parse(sdkBody(square, { buffer: -1 })), "buffer", 400],
      [
        "/flight/v2/polygon",
        JSON.parse(sdkBody(square, { start_time: "2031-01-01T10:00:00" })),
        "start_time",
        400,
      ],
      [
        "/flight/v2/polygon",
        JSON.parse(sdkBody(square, { start_time: iso(Date.now() + 2 * hour), end_time: iso(Date.now()) })),
        "end_time",
        400,
      ],
      [
        "/flight/v2/polygon",
        JSON.parse(sdkBody(square, { aircraft_id: "aircraft|nope" })),
        "aircraft_id",
        400,
      ],
      [
        "/flight/v2/polygon",
        JSON.parse(
          sdkBody({
            type: "Polygon",
            coordinates: [
              [
                [0, 0],
                [1, 0],
                [1, 1],
                [0, 0.5],
              ],
            ],
          }),
        ),
        "geometry",
        400,
      ],
      [
        "/flight/v2/polygon",
        JSON.parse(
          sdkBody({
            type: "Polygon",
            coordinates: [
              [
                [-120, 34],
                [-118, 34],
                [-118, 35],
                [-120, 34],
              ],
            ],
          }),
        ),
        "geometry",
        400,
      ],
    ];
    for (const [path, body, field, status] of cases) {
      const res = await call(path, { method: "POST", apiKey: account.apiKey, token: pilot.token, body });
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      expect(res.json.data.errors.map((e: { name: string }) => e.name)).toContain(field);
    }
    const tooMany = Array.from({ length: 10_001 }, (_, i) => [-118 + i * 1e-6, 34]);
    const huge = await call("/flight/v2/path", {
      method: "POST",
      apiKey: account.apiKey,
      token: pilot.token,
      body: { latitude: 34, longitude: -118, geometry: { type: "LineString", coordinates: tooMany } },
    });
    expect(huge.status).toBe(413);
    const noToken = await call("/flight/v2/polygon", {
      method: "POST",
      apiKey: account.apiKey,
      body: JSON.parse(sdkBody(square)),
    });
    expect(noToken.status).toBe(401);
  });
});

describe("flights made with the pilot's own aircraft", () => {
  it("returns the aircraft with enhance=true, in the list too", async () => {
    const aircraft = await call(`/pilot/v2/${encodeURIComponent(pilot.pilotId)}/aircraft`, {
      method: "POST",
      apiKey: account.apiKey,
      token: pilot.token,
      body: { nickname: "Survey", model_id: "model|parrot-anafi" },
    });
    expect(aircraft.status).toBe(200);
    const aircraftId = aircraft.json.data.id;
    const flight = await post("/flight/v2/polygon", sdkBody(square, { aircraft_id: aircraftId }));
    expect(flight.json.data.aircraft_id).toBe(aircraftId);
    const rich = await get(`/flight/v2/${flight.json.data.id}?enhance=true`);
    expect(rich.json.data.aircraft).toEqual({
      id: aircraftId,
      nickname: "Survey",
      model: {
        id: "model|parrot-anafi",
        name: "ANAFI",
        manufacturer: { id: "manufacturer|parrot", name: "Parrot", url: "https://www.parrot.com" },
      },
    });
    expect(rich.json.data.pilot.id).toBe(pilot.pilotId);
    const list = await get("/flight/v2/?enhance=true&limit=1000");
    const listed = list.json.data.results.find((f: any) => f.id === flight.json.data.id);
    expect(listed.aircraft.model.manufacturer.name).toBe("Parrot");
  });
});

describe("DELETE /flight/v2/{id}", () => {
  it("deletes a planned flight as POST …/delete does, then the flight is gone", async () => {
    const planned = await flightAt(account, pilot.token, { start_time: iso(Date.now() + hour) });
    const res = await call(`/flight/v2/${planned.id}`, {
      method: "DELETE",
      apiKey: account.apiKey,
      token: pilot.token,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual({ id: planned.id });
    expect((await get(`/flight/v2/${planned.id}`)).status).toBe(404);
    const again = await call(`/flight/v2/${encodeURIComponent(planned.id)}`, {
      method: "DELETE",
      apiKey: account.apiKey,
      token: pilot.token,
    });
    expect(again.status).toBe(404);
  });

  it("refuses a started flight (409) and another pilot's (403), and keeps the pilot's count right", async () => {
    const active = await flightAt(account, pilot.token, { start_time: iso(Date.now() - hour) });
    const started = await call(`/flight/v2/${active.id}`, {
      method: "DELETE",
      apiKey: account.apiKey,
      token: pilot.token,
    });
    expect(started.status).toBe(409);
    const other = await tokenFor(account, "sdk-neighbour");
    const planned = await flightAt(account, pilot.token, { start_time: iso(Date.now() + hour) });
    const foreign = await call(`/flight/v2/${planned.id}`, {
      method: "DELETE",
      apiKey: account.apiKey,
      token: other.token,
    });
    expect(foreign.status).toBe(403);
    const countOf = () =>
      env.DB.prepare("SELECT flight_count AS n FROM pilots WHERE id = ?").bind(pilot.pilotId).first("n");
    const before = await countOf();
    // Both ways of deleting at once: one deletes, the other finds nothing; the count moves once.
    const both = await Promise.all([
      call(`/flight/v2/${planned.id}`, { method: "DELETE", apiKey: account.apiKey, token: pilot.token }),
      call(`/flight/v2/${planned.id}/delete`, { method: "POST", apiKey: account.apiKey, token: pilot.token }),
    ]);
    expect(both.map((r) => r.status).sort()).toContain(200);
    expect(await countOf()).toBe((before as number) - 1);
  });
});

describe("POST /flight/v2/{id}/end", () => {
  it("answers the ended flight: `end_time` for the C++ SDK, the whole flight for Kotlin", async () => {
    const active = await flightAt(account, pilot.token, { start_time: iso(Date.now() - hour) });
    const res = await call(`/flight/v2/${active.id}/end`, {
      method: "POST",
      apiKey: account.apiKey,
      token: pilot.token,
    });
    expect(res.status).toBe(200);
    for (const field of KOTLIN_REQUIRED) expect(res.json.data[field], field).not.toBeNull();
    expect(Math.abs(Date.parse(res.json.data.end_time) - Date.now())).toBeLessThan(60_000);
  });
});

describe("GET /flight/v2/{id}/plan", () => {
  it("answers the plan a flight was submitted from, in the plan shape", async () => {
    const plan = await createPlan(account, pilot.token, { flight_description: "from a plan" });
    const submitted = await call(`/flight/v2/plan/${plan.id}/submit`, {
      method: "POST",
      apiKey: account.apiKey,
      token: pilot.token,
    });
    const flightId = submitted.json.data.flight_id;
    const res = await get(`/flight/v2/${flightId}/plan`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual(submitted.json.data);
    expect(res.json.data).toMatchObject({
      id: plan.id,
      flight_id: flightId,
      flight_description: "from a plan",
    });
  });

  it("is 404 for a flight made without a plan, 404 for another pilot's private flight, 403 for a public one", async () => {
    const byPoint = await flightAt(account, pilot.token);
    const none = await get(`/flight/v2/${byPoint.id}/plan`);
    expect(none.status).toBe(404);
    expect(none.json.data.message).toMatch(/plan/i);
    const plan = await createPlan(account, pilot.token);
    const submitted = await call(`/flight/v2/plan/${plan.id}/submit`, {
      method: "POST",
      apiKey: account.apiKey,
      token: pilot.token,
      body: { public: true },
    });
    const other = await tokenFor(account, "sdk-reader");
    const publicFlight = submitted.json.data.flight_id;
    expect((await get(`/flight/v2/${publicFlight}/plan`, other.token)).status).toBe(403);
    const privatePlan = await createPlan(account, pilot.token);
    const privateFlight = (
      await call(`/flight/v2/plan/${privatePlan.id}/submit`, {
        method: "POST",
        apiKey: account.apiKey,
        token: pilot.token,
      })
    ).json.data.flight_id;
    expect((await get(`/flight/v2/${privateFlight}/plan`, other.token)).status).toBe(404);
    expect((await get("/flight/v2/flight%7Cnope/plan")).status).toBe(404);
  });
});

describe("the OpenAPI document", () => {
  it("declares the SDK routes with their bodies", () => {
    // Built from these routers alone, so the check does not hang on other areas' schemas.
    const doc = createRouter()
      .route("/", flightRoutes)
      .route("/", flightPlanRoutes)
      .getOpenAPI31Document({ openapi: "3.1.0", info: { title: "flights", version: "1" } });
    const paths = doc.paths!;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining(["/flight/v2/polygon", "/flight/v2/path", "/flight/v2/{flight_id}/plan"]),
    );
    expect(paths["/flight/v2/{flight_id}"]!.delete).toBeDefined();
    expect(paths["/flight/v2/plan/{plan_id}"]!.delete).toBeDefined();
    const submit = paths["/flight/v2/plan/{plan_id}/submit"]!.post!.requestBody as { content: object };
    expect(Object.keys(submit.content).sort()).toEqual([
      "application/json",
      "application/x-www-form-urlencoded",
    ]);
  });
});
