import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { RID_SCOPES } from "../../worker/rid/constants";
import {
  CellThrottle,
  cellOf,
  cellsOfView,
  INDEX_REFRESH_MS,
  INDEX_WINDOW_MS,
} from "../../worker/rid/liveIndex";
import { parseView } from "../../worker/rid/view";
import { MAX_FLIGHTS_PER_VIEW } from "../../worker/services/remoteId";
import { flightsReportingIn } from "../../worker/store/livePositions";
import { flightAt, hour, iso } from "./flightFixtures";
import { call, createAccount, interussToken, type TestAccount, tokenFor } from "./helpers";
import { F3411, responseErrors } from "./ridSchema";

/**
 * The live-position index behind /rid/v2/uss/flights (worker/rid/liveIndex.ts): a view asks only
 * the flights that reported in its cells, however many fly elsewhere; rows are throttled per cell,
 * leave with the flight's end or deletion, and injected test flights are indexed like telemetry.
 */

const USS = "/rid/v2/uss";
const INJECT = "/interuss/rid/v1";

/** The display provider's token (subject "dp"). */
function devToken(scopes: string[]): Promise<string> {
  return interussToken(scopes, { sub: "dp" });
}

function viewAround(lat: number, lng: number, halfKm = 0.5): string {
  const dLat = halfKm / 111.32;
  const dLng = halfKm / (111.32 * Math.cos((lat * Math.PI) / 180));
  return [lat - dLat, lng - dLng, lat + dLat, lng + dLng].map((v) => v.toFixed(6)).join(",");
}

interface Row {
  cell_x: number;
  cell_y: number;
  latitude: number;
  longitude: number;
  reported_at: number;
}

async function rowsOf(flightId: string): Promise<Row[]> {
  const { results } = await env.DB.prepare(
    "SELECT cell_x, cell_y, latitude, longitude, reported_at FROM live_positions WHERE flight_id = ? ORDER BY reported_at",
  )
    .bind(flightId)
    .all<Row>();
  return results;
}

let display: string;
let account: TestAccount;
let pilotToken: string;

beforeAll(async () => {
  display = await devToken([RID_SCOPES.displayProvider]);
  account = await createAccount();
  pilotToken = (await tokenFor(account, "rid-index")).token;
});

async function ids(view: string): Promise<string[]> {
  const res = await call(`${USS}/flights?view=${view}`, { token: display });
  expect(res.status, res.text).toBe(200);
  expect(responseErrors(F3411, "/uss/flights", "get", 200, res.json)).toEqual([]);
  return res.json.flights.map((f: { id: string }) => f.id);
}

/** Positions sent over HTTP as F3411 states: [ms relative to now, lat, lng]. */
async function send(flightId: string, positions: [number, number, number][]) {
  const now = Date.now();
  const states = positions.map(([t, lat, lng]) => ({
    timestamp: { value: iso(now + t), format: "RFC3339" },
    position: { lat, lng, alt: 80, accuracy_h: "HA10m" },
    track: 90,
    speed: 5,
    vertical_speed: 0,
  }));
  const res = await call(`/flight/v2/${encodeURIComponent(flightId)}/telemetry`, {
    method: "POST",
    apiKey: account.apiKey,
    token: pilotToken,
    body: { states },
  });
  expect(res.status, res.text).toBe(200);
  return now;
}

/**
 * `count` copies of a live flight row (ids `<prefix><n>`, started a millisecond after it), copy n with
 * one index row reported now in the cell `stepCells` × n east of (lat, lng): live flights without
 * telemetry, written straight into D1.
 */
async function copiesOf(
  flightId: string,
  prefix: string,
  count: number,
  lat: number,
  lng: number,
  stepCells = 0,
) {
  const { results } = await env.DB.prepare("SELECT name FROM pragma_table_info('flights')").all<{
    name: string;
  }>();
  const columns = results.map((c) => c.name);
  const values = columns.map((c) =>
    c === "id"
      ? "?1 || n.i"
      : c === "flight_plan_id"
        ? "NULL"
        : c === "start_time"
          ? "f.start_time + 1"
          : `f.${c}`,
  );
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?3)
     INSERT INTO flights (${columns.join(", ")}) SELECT ${values.join(", ")} FROM flights f, n WHERE f.id = ?2`,
  )
    .bind(prefix, flightId, count)
    .run();
  const cell = cellOf(lat, lng);
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
     INSERT INTO live_positions (flight_id, cell_y, cell_x, latitude, longitude, reported_at)
     SELECT ?1 || i, ?3, ?4 + i * ?5, ?6, ?7 + i * ?5 / 100.0, ?8 FROM n`,
  )
    .bind(prefix, count, cell.y, cell.x, stepCells, lat, lng, Date.now())
    .run();
}

describe("live index, pure: cells and the write throttle", () => {
  it("covers a view's edges with its cells", () => {
    const view = parseView("47.3951,8.5349,47.4149,8.5651");
    if (!view.ok) throw new Error("view");
    const cells = cellsOfView(view.value);
    expect(cells).toEqual({ ys: [4739, 4740, 4741], minX: 853, maxX: 856 });
    for (const [lat, lng] of [
      [47.3951, 8.5349],
      [47.4149, 8.5651],
      [47.3951, 8.5651],
    ] as const) {
      const c = cellOf(lat, lng);
      expect(cells.ys).toContain(c.y);
      expect(c.x).toBeGreaterThanOrEqual(cells.minX);
      expect(c.x).toBeLessThanOrEqual(cells.maxX);
    }
    expect(cellOf(-33.855, -151.215)).toEqual({ x: -15122, y: -3386 });
  });

  it("writes a new cell at once, the same cell again only after 10 s of record time", () => {
    const throttle = new CellThrottle();
    const t0 = 1_000_000;
    const first = throttle.due([{ latitude: 47.401, longitude: 8.541, timestamp: t0 }], 0);
    expect(first).toEqual([
      { cell: { x: 854, y: 4740 }, latitude: 47.401, longitude: 8.541, reportedAt: t0 },
    ]);
    throttle.wrote(first);
    expect(throttle.due([{ latitude: 47.4011, longitude: 8.5411, timestamp: t0 + 2000 }], 0)).toEqual([]);
    const moved = throttle.due(
      [
        { latitude: 47.4012, longitude: 8.5412, timestamp: t0 + 3000 },
        { latitude: 47.411, longitude: 8.5412, timestamp: t0 + 4000 },
      ],
      0,
    );
    expect(moved.map((r) => r.cell)).toEqual([{ x: 854, y: 4741 }]);
    throttle.wrote(moved);
    const refreshed = throttle.due(
      [{ latitude: 47.4013, longitude: 8.5413, timestamp: t0 + INDEX_REFRESH_MS }],
      0,
    );
    expect(refreshed.map((r) => r.reportedAt)).toEqual([t0 + INDEX_REFRESH_MS]);
    // A failed write is due again; positions too old or invalid never are.
    throttle.failed(refreshed);
    expect(throttle.due([{ latitude: 47.4013, longitude: 8.5413, timestamp: t0 + 5000 }], 0)).toHaveLength(1);
    expect(throttle.due([{ latitude: 10, longitude: 10, timestamp: t0 }], t0 + 1)).toEqual([]);
    expect(throttle.due([{ latitude: Number.NaN, longitude: 10, timestamp: t0 }], 0)).toEqual([]);
  });

  it("keeps the latest position of each cell of a batch (an injected path arrives whole)", () => {
    const throttle = new CellThrottle();
    const due = throttle.due(
      [
        { latitude: 47.4, longitude: 8.5005, timestamp: 3000 },
        { latitude: 47.4, longitude: 8.5001, timestamp: 1000 },
        { latitude: 47.4, longitude: 8.5105, timestamp: 2000 },
      ],
      0,
    );
    expect(due).toHaveLength(2);
    expect(due.find((r) => r.cell.x === 850)).toMatchObject({ longitude: 8.5005, reportedAt: 3000 });
  });
});

describe("/rid/v2/uss/flights asks only the flights near the view", () => {
  const lat = 46.95;
  const lng = 7.45;

  it("shows a near flight and leaves out one 100 km away, whose Durable Object is never asked", async () => {
    const near = await flightAt(account, pilotToken, { latitude: lat, longitude: lng, buffer: 300 });
    const far = await flightAt(account, pilotToken, { latitude: lat + 0.9, longitude: lng, buffer: 300 });
    await send(near.id, [[-1000, lat, lng]]);
    await send(far.id, [[-1000, lat + 0.9, lng]]);
    expect(await ids(viewAround(lat, lng))).toContain(near.id);
    expect(await ids(viewAround(lat, lng))).not.toContain(far.id);
    // The far flight is live: a view over it shows it.
    expect(await ids(viewAround(lat + 0.9, lng))).toContain(far.id);
    // The flights whose Durable Objects a view asks are the index's answer: the near one only.
    const view = parseView(viewAround(lat, lng));
    if (!view.ok) throw new Error("view");
    const now = Date.now();
    const asked = await flightsReportingIn(env.DB, cellsOfView(view.value), now - INDEX_WINDOW_MS, now, 10);
    expect(asked).toContain(near.id);
    expect(asked).not.toContain(far.id);
  });

  it("shows the view's flight however many live flights report elsewhere (600, over the old 500 cap)", async () => {
    const flight = await flightAt(account, pilotToken, { latitude: lat, longitude: lng + 0.2, buffer: 300 });
    await send(flight.id, [[-500, lat, lng + 0.2]]);
    // Started later than the view's flight: a global "most recent 500" would have dropped it.
    await copiesOf(flight.id, "flight|elsewhere-", 600, 40.005, -100.005, 1);
    const { results } = await env.DB.prepare(
      "SELECT count(*) AS n FROM live_positions WHERE flight_id LIKE 'flight|elsewhere-%'",
    ).all<{ n: number }>();
    expect(results[0]!.n).toBe(600);
    expect(await ids(viewAround(lat, lng + 0.2))).toEqual([flight.id]);
  });

  it(`answers 413 when over ${MAX_FLIGHTS_PER_VIEW} live flights report in the view's cells`, async () => {
    const crowdLat = 45.5;
    const crowdLng = 6.5;
    const flight = await flightAt(account, pilotToken, {
      latitude: crowdLat,
      longitude: crowdLng,
      buffer: 300,
    });
    await send(flight.id, [[-500, crowdLat, crowdLng]]);
    // With the view's own flight, one over the bound: refused before any Durable Object is asked.
    await copiesOf(flight.id, "flight|crowd-", MAX_FLIGHTS_PER_VIEW, crowdLat, crowdLng);
    const res = await call(`${USS}/flights?view=${viewAround(crowdLat, crowdLng)}`, { token: display });
    expect(res.status).toBe(413);
    expect(responseErrors(F3411, "/uss/flights", "get", 413, res.json)).toEqual([]);
    expect(res.json.message).toContain(`more than ${MAX_FLIGHTS_PER_VIEW}`);
    // A view next to the crowd is unaffected.
    expect(
      (await call(`${USS}/flights?view=${viewAround(crowdLat + 0.05, crowdLng)}`, { token: display })).status,
    ).toBe(200);
  });
});

describe("the index's rows: throttled writes, removal with the flight", () => {
  const lat = 45.9;
  const lng = 8.9;

  it("writes a cell once per 10 s: a second position there within 10 s writes nothing", async () => {
    const flight = await flightAt(account, pilotToken, { latitude: lat, longitude: lng, buffer: 2000 });
    const t0 = await send(flight.id, [[-30_000, lat, lng]]);
    const first = await rowsOf(flight.id);
    const cell = cellOf(lat, lng);
    expect(first).toEqual([
      { cell_x: cell.x, cell_y: cell.y, latitude: lat, longitude: lng, reported_at: t0 - 30_000 },
    ]);
    await send(flight.id, [[-28_000, lat + 0.0001, lng]]);
    expect(await rowsOf(flight.id)).toEqual(first);
    const t2 = await send(flight.id, [[-19_000, lat + 0.0002, lng]]);
    const refreshed = await rowsOf(flight.id);
    expect(refreshed).toHaveLength(1);
    expect(refreshed[0]!.reported_at).toBe(t2 - 19_000);
    expect(refreshed[0]!.latitude).toBeCloseTo(lat + 0.0002, 7);
    // A new cell is written at once.
    const t3 = await send(flight.id, [[-18_000, lat + 0.011, lng]]);
    const moved = await rowsOf(flight.id);
    expect(moved).toHaveLength(2);
    expect(moved[1]).toMatchObject({ cell_y: cell.y + 1, reported_at: t3 - 18_000 });
  });

  it("removes a flight's rows when it ends", async () => {
    const flight = await flightAt(account, pilotToken, { latitude: lat + 0.1, longitude: lng, buffer: 300 });
    await send(flight.id, [[-1000, lat + 0.1, lng]]);
    expect(await rowsOf(flight.id)).toHaveLength(1);
    const ended = await call(`/flight/v2/${encodeURIComponent(flight.id)}/end`, {
      method: "POST",
      apiKey: account.apiKey,
      token: pilotToken,
    });
    expect(ended.status, ended.text).toBe(200);
    expect(await rowsOf(flight.id)).toEqual([]);
    // A record arriving after the end writes no row.
    await send(flight.id, [[0, lat + 0.2, lng]]);
    expect(await rowsOf(flight.id)).toEqual([]);
  });

  it("removes a planned flight's rows when it is deleted (it was live through an open session)", async () => {
    const flight = await flightAt(account, pilotToken, {
      latitude: lat + 0.3,
      longitude: lng,
      buffer: 300,
      start_time: iso(Date.now() + hour),
      end_time: iso(Date.now() + 2 * hour),
    });
    const comm = await call(`/flight/v2/${encodeURIComponent(flight.id)}/start-comm`, {
      method: "POST",
      apiKey: account.apiKey,
      token: pilotToken,
    });
    expect(comm.status, comm.text).toBe(200);
    await send(flight.id, [[-1000, lat + 0.3, lng]]);
    expect(await rowsOf(flight.id)).toHaveLength(1);
    expect(await ids(viewAround(lat + 0.3, lng))).toContain(flight.id);
    const deleted = await call(`/flight/v2/${encodeURIComponent(flight.id)}`, {
      method: "DELETE",
      apiKey: account.apiKey,
      token: pilotToken,
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await rowsOf(flight.id)).toEqual([]);
    expect(await ids(viewAround(lat + 0.3, lng))).not.toContain(flight.id);
  });
});

describe("injected test flights are indexed like telemetry", () => {
  const lat = 47.05;
  const lng = 9.05;

  it("indexes the injected path's cells at injection and removes them with the test", async () => {
    const inject = await devToken([RID_SCOPES.injectTestData]);
    const now = Date.now();
    // Due east at 50 m/s for a minute: about 3 km, so through several cells of 0.01° of longitude.
    const telemetry = Array.from({ length: 61 }, (_, i) => ({
      timestamp: iso(now + (i - 10) * 1000),
      timestamp_accuracy: 0,
      operational_status: "Airborne",
      position: { lat, lng: lng + (50 * (i - 10)) / (111_320 * Math.cos((lat * Math.PI) / 180)), alt: 600 },
      accuracy_h: "HA3m",
      accuracy_v: "VA10m",
      track: 90,
      speed: 50,
      speed_accuracy: "SA1mps",
      vertical_speed: 0,
      height: { distance: 50, reference: "TakeoffLocation" },
    }));
    const body = {
      requested_flights: [
        {
          injection_id: "b1b2b3b4-0000-4000-8000-000000000001",
          aircraft_type: "Helicopter",
          telemetry,
          details_responses: [{ effective_after: iso(now - 60_000), details: { id: "x" } }],
        },
      ],
    };
    const res = await call(`${INJECT}/tests/index-1`, { method: "PUT", token: inject, body });
    expect(res.status, res.text).toBe(200);
    const flightId = res.json.injected_flights[0].details_responses[0].details.id;
    const rows = await rowsOf(flightId);
    const cells = new Set(
      telemetry.map((s) => {
        const c = cellOf(s.position.lat, s.position.lng);
        return `${c.x},${c.y}`;
      }),
    );
    expect(rows.map((r) => `${r.cell_x},${r.cell_y}`).sort()).toEqual([...cells].sort());
    expect(cells.size).toBeGreaterThan(2);
    expect(await ids(viewAround(lat, lng, 0.3))).toContain(flightId);
    const deleted = await call(`${INJECT}/tests/index-1/${encodeURIComponent(res.json.version)}`, {
      method: "DELETE",
      token: inject,
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await rowsOf(flightId)).toEqual([]);
  });
});
