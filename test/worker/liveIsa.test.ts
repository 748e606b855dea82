import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { egm96, geoidHeight } from "../../worker/domain/geoid";
import { parsePolygonString, polygonCells } from "../../worker/dss/cells";
import { ridDssOf } from "../../worker/dss/ridDss";
import { OWN_ISA_OWNER } from "../../worker/services/ridDss";
import type { IsaOutbox } from "../../worker/telemetry/isaOutbox";
import { DP_BASE, DSS_BASE, type DssCall, standInDss, TOKEN_URL } from "./dssStandIn";
import { hour, iso } from "./flightFixtures";
import { call, createAccount, postRelayRows, RELAY, type TestAccount, tokenFor } from "./helpers";
import { componentErrors, F3411, requestErrors } from "./ridSchema";

/**
 * Identification Service Areas of ordinary live flights (worker/telemetry/isaOutbox.ts), through the
 * whole worker: start-comm, the relay's ingest, end-comm, the flight's end and deletion, against a
 * stand-in DSS that the flight's Durable Object is pointed at.
 */

const OWN_BASE = "https://windsock.example/rid/v2";
const ISA_PATH = `${DSS_BASE}/dss/identification_service_areas/`;
const TAKEOFF = { lat: 47.3769, lng: 8.5417 };
const GROUND_MSL = 410;
const MAX_ALTITUDE = 60;

const stubOf = (id: string) => env.FLIGHT_TELEMETRY.get(env.FLIGHT_TELEMETRY.idFromName(id));

let account: TestAccount;
let token: string;
beforeAll(async () => {
  account = await createAccount();
  ({ token } = await tokenFor(account, "isa-pilot"));
});

type Dss = ReturnType<typeof standInDss>;

/** Points the flight's Durable Object at the stand-in DSS with this configuration (default: all of it). */
async function pointAt(
  flightId: string,
  dss: Dss,
  config: Record<string, string> = {
    RID_DSS_BASE_URL: DSS_BASE,
    USS_AUTH_TOKEN_URL: TOKEN_URL,
    RID_USS_BASE_URL: OWN_BASE,
  },
): Promise<void> {
  await runInDurableObject(stubOf(flightId), (instance) => {
    const isa = (instance as unknown as { isa: IsaOutbox }).isa;
    isa.fetcher = dss.fetcher;
    isa.dss = { ...isa.dss, ...config };
  });
}

const entries = (flightId: string) =>
  runInDurableObject(stubOf(flightId), (instance) =>
    (instance as unknown as { isa: IsaOutbox }).isa.entries(),
  );

/** A flight of the pilot around TAKEOFF, from a minute ago (or `startIn` ms ahead) for an hour. */
async function flight(startIn = -60_000): Promise<string> {
  const res = await call("/flight/v2/point", {
    method: "POST",
    apiKey: account.apiKey,
    token,
    body: {
      latitude: TAKEOFF.lat,
      longitude: TAKEOFF.lng,
      buffer: 200,
      max_altitude: MAX_ALTITUDE,
      start_time: iso(Date.now() + startIn),
      end_time: iso(Date.now() + startIn + hour),
    },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.id as string;
}

const pilotCall = (path: string, method = "POST") => call(path, { method, apiKey: account.apiKey, token });

/** start-comm, then the session the relay would look up. */
async function startComm(flightId: string): Promise<string> {
  expect((await pilotCall(`/flight/v2/${flightId}/start-comm`)).status).toBe(200);
  const session = await call(`/internal/v1/flights/${encodeURIComponent(flightId)}/session`, {
    headers: RELAY,
  });
  expect(session.status).toBe(200);
  return session.json.data.session_id as string;
}

let serial = 0;
/** Posts one position as the relay does (fields in proto order); `receivedAt` defaults to now. */
function relayPosition(
  flightId: string,
  sessionId: string,
  at: { lat: number; lng: number; agl?: number },
  receivedAt = Date.now(),
) {
  const agl = at.agl ?? 20;
  serial += 1;
  return postRelayRows(flightId, sessionId, [
    [serial, 0, "position", Date.now(), receivedAt, at.lat, at.lng, agl, GROUND_MSL + agl, 1.5],
  ]);
}

const dssCalls = (dss: Dss) => dss.calls.filter((c) => c.url.startsWith(ISA_PATH));
const describeCall = (c: DssCall) => `${c.method} ${c.url.slice(ISA_PATH.length)}`;

/** Runs the flight's alarm (it may also have fired by itself) until `check` passes. */
async function settle(flightId: string, check: () => void | Promise<void>): Promise<void> {
  await vi.waitFor(
    async () => {
      await runDurableObjectAlarm(stubOf(flightId));
      await check();
    },
    { timeout: 10_000, interval: 50 },
  );
}

/** The S2 cells of a small square around a point (a display provider's search). */
const cellsAround = (p: { lat: number; lng: number }, d = 0.002) =>
  polygonCells(
    parsePolygonString(
      [p.lat - d, p.lng - d, p.lat - d, p.lng + d, p.lat + d, p.lng + d, p.lat + d, p.lng - d].join(","),
    ),
  );

const box = (extents: any) => {
  const v = extents.volume.outline_polygon.vertices as { lat: number; lng: number }[];
  return {
    minLat: Math.min(...v.map((p) => p.lat)),
    maxLat: Math.max(...v.map((p) => p.lat)),
    minLng: Math.min(...v.map((p) => p.lng)),
    maxLng: Math.max(...v.map((p) => p.lng)),
  };
};

describe("ISAs of ordinary live flights", () => {
  it.each([
    ["when RID_DSS_BASE_URL is none", { RID_DSS_BASE_URL: "none", RID_USS_BASE_URL: OWN_BASE }],
    // Live flights are announced only where others can reach this service (its own DSS included).
    ["without this service's public base", { RID_DSS_BASE_URL: DSS_BASE, USS_AUTH_TOKEN_URL: TOKEN_URL }],
    ["without this service's public base, at its own DSS", {}],
  ])("registers nothing and calls nobody %s", async (_, config) => {
    const dss = standInDss();
    const id = await flight();
    await pointAt(id, dss, config);
    const session = await startComm(id);
    expect((await relayPosition(id, session, TAKEOFF)).status).toBe(200);
    await runDurableObjectAlarm(stubOf(id));
    expect((await pilotCall(`/flight/v2/${id}/end-comm`)).status).toBe(200);
    await runDurableObjectAlarm(stubOf(id));
    expect(dss.calls).toEqual([]);
    expect(await entries(id)).toEqual([]);
  });

  it("registers at the first position, widens on leaving the extents, deletes at end-comm", async () => {
    const dss = standInDss();
    const id = await flight();
    await pointAt(id, dss);
    const session = await startComm(id);
    // start-comm alone announces nothing: no data yet.
    expect(dssCalls(dss)).toEqual([]);

    const before = Date.now();
    expect((await relayPosition(id, session, TAKEOFF)).status).toBe(200);
    await settle(id, () => expect(dss.isas.size).toBe(1));
    const [isaId, stored] = [...dss.isas][0]!;
    const put = dssCalls(dss)[0]!;
    expect(describeCall(put)).toBe(`PUT ${isaId}`);
    expect(put.auth).toBe("Bearer tok");
    expect(put.body.uss_base_url).toBe(OWN_BASE);
    expect(componentErrors(F3411, "Volume4D", put.body.extents)).toEqual([]);
    // The flight's area (200 m around the take-off point) with the margin, from now to its end.
    const area = box(put.body.extents);
    expect(area.minLat).toBeLessThan(TAKEOFF.lat - 200 / 111_320);
    expect(area.maxLat).toBeGreaterThan(TAKEOFF.lat + 200 / 111_320);
    expect(area.minLng).toBeLessThan(TAKEOFF.lng);
    expect(area.maxLng).toBeGreaterThan(TAKEOFF.lng);
    expect(area.maxLat - area.minLat).toBeLessThan(0.05);
    expect(Date.parse(put.body.extents.time_start.value)).toBeGreaterThanOrEqual(before - 1000);
    const flightEnd = Date.parse((await pilotCall(`/flight/v2/${id}`, "GET")).json.data.end_time as string);
    expect(Date.parse(put.body.extents.time_end.value)).toBe(flightEnd + 60_000);
    // W84 altitudes: from below the ground to above the planned ceiling.
    const geoid = geoidHeight(egm96(), TAKEOFF.lat, TAKEOFF.lng);
    expect(put.body.extents.volume.altitude_lower.value).toBeLessThan(GROUND_MSL + geoid);
    expect(put.body.extents.volume.altitude_upper.value).toBeGreaterThanOrEqual(
      GROUND_MSL + geoid + MAX_ALTITUDE,
    );
    // The subscriber the DSS named is told.
    const notified = dss.calls.find((c) => c.url.startsWith(DP_BASE))!;
    expect(notified.url).toBe(`${DP_BASE}/uss/identification_service_areas/${isaId}`);
    expect(requestErrors(F3411, "/uss/identification_service_areas/{id}", "post", notified.body)).toEqual([]);
    expect(stored.version).toBe(1);

    // Inside the registered extents: nothing to do.
    dss.calls.length = 0;
    expect((await relayPosition(id, session, { lat: TAKEOFF.lat + 0.001, lng: TAKEOFF.lng })).status).toBe(
      200,
    );
    await runDurableObjectAlarm(stubOf(id));
    expect(dssCalls(dss)).toEqual([]);

    // 5 km north: outside, so the ISA is updated at its version and covers the new position.
    const away = { lat: TAKEOFF.lat + 0.045, lng: TAKEOFF.lng + 0.01, agl: 150 };
    expect((await relayPosition(id, session, away)).status).toBe(200);
    await settle(id, () => expect(dss.isas.get(isaId)?.version).toBe(2));
    const update = dssCalls(dss).find((c) => c.method === "PUT")!;
    expect(describeCall(update)).toBe(`PUT ${isaId}/v1`);
    const widened = box(update.body.extents);
    expect(widened.maxLat).toBeGreaterThan(away.lat);
    expect(widened.maxLng).toBeGreaterThan(away.lng);
    expect(widened.minLat).toBeLessThan(TAKEOFF.lat);
    expect(update.body.extents.volume.altitude_upper.value).toBeGreaterThan(GROUND_MSL + geoid + 150);
    expect((await entries(id))[0]).toMatchObject({ isa_id: isaId, status: "open", version: "v2" });

    // end-comm: the ISA is deleted at its version and the subscriber told.
    dss.calls.length = 0;
    const closedAt = Date.now();
    expect((await pilotCall(`/flight/v2/${id}/end-comm`)).status).toBe(200);
    await settle(id, () => expect(dss.isas.size).toBe(0));
    expect(
      dss.calls.filter((c) => c.method !== "POST" || c.url.startsWith(DP_BASE)).map(describeCallAny),
    ).toEqual([`DELETE ${ISA_PATH}${isaId}/v2`, `POST ${DP_BASE}/uss/identification_service_areas/${isaId}`]);
    expect((await entries(id))[0]).toMatchObject({ status: "done" });

    // A late record of the closed session (received before end-comm) opens nothing.
    expect((await relayPosition(id, session, TAKEOFF, closedAt - 1)).status).toBe(200);
    await runDurableObjectAlarm(stubOf(id));
    expect(await entries(id)).toHaveLength(1);

    // A new session's first position opens a new ISA.
    const next = await startComm(id);
    expect((await relayPosition(id, next, TAKEOFF)).status).toBe(200);
    await settle(id, () => expect(dss.isas.size).toBe(1));
    expect([...dss.isas.keys()][0]).not.toBe(isaId);
  });

  it("registers in this service's own DSS by default, with PUBLIC_URL's base, and deletes there at end-comm", async () => {
    const dss = standInDss();
    const id = await flight();
    await pointAt(id, dss, { PUBLIC_URL: "https://windsock.example" });
    const session = await startComm(id);
    expect((await relayPosition(id, session, TAKEOFF)).status).toBe(200);
    const own = ridDssOf(env);
    let isaId = "";
    await settle(id, async () => {
      const [entry] = await entries(id);
      expect(entry?.version).toMatch(/^[0-9a-f]{16}$/);
      isaId = entry!.isa_id;
    });
    const kept = await own.getIsa(isaId);
    expect(kept).toMatchObject({
      ok: true,
      value: { service_area: { owner: OWN_ISA_OWNER, uss_base_url: OWN_BASE } },
    });
    // Display providers find it by area, as they search any DSS.
    const found = await own.searchIsas(cellsAround(TAKEOFF), Date.now(), Date.now() + 60_000);
    expect(found.map((isa) => isa.id)).toContain(isaId);
    // No outside DSS and no token were needed.
    expect(dss.calls).toEqual([]);

    // Leaving the extents updates it there at its version.
    const version = (await entries(id))[0]!.version;
    expect((await relayPosition(id, session, { lat: TAKEOFF.lat + 0.045, lng: TAKEOFF.lng })).status).toBe(
      200,
    );
    await settle(id, async () => expect((await entries(id))[0]!.version).not.toBe(version));
    expect(await own.getIsa(isaId)).toMatchObject({
      ok: true,
      value: { service_area: { version: (await entries(id))[0]!.version } },
    });

    expect((await pilotCall(`/flight/v2/${id}/end-comm`)).status).toBe(200);
    await settle(id, async () => expect((await entries(id))[0]).toMatchObject({ status: "done" }));
    expect(await own.getIsa(isaId)).toMatchObject({ ok: false, status: 404 });
  });

  it("keeps telemetry fast while the DSS is down and registers once it is back", async () => {
    const dss = standInDss();
    dss.state.down = true;
    const id = await flight();
    await pointAt(id, dss);
    const session = await startComm(id);
    expect((await relayPosition(id, session, TAKEOFF)).status).toBe(200);
    await settle(id, async () => expect((await entries(id))[0]?.attempts).toBeGreaterThanOrEqual(1));
    const [failed] = await entries(id);
    expect(failed).toMatchObject({ status: "open", version: null });
    expect(failed!.last_error).toContain("503");
    // The retry waits on the alarm, with backoff.
    const alarm = await runInDurableObject(stubOf(id), (_, ctx) => ctx.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(failed!.next_at);
    expect(failed!.next_at).toBeGreaterThan(Date.now());
    // More telemetry meanwhile is stored as usual.
    expect((await relayPosition(id, session, TAKEOFF)).json.data.stored).toBe(1);

    dss.state.down = false;
    // Time passes: the retry is due.
    await runInDurableObject(stubOf(id), (_, ctx) => {
      ctx.storage.sql.exec("UPDATE isa_outbox SET next_at = 0");
    });
    await settle(id, () => expect(dss.isas.size).toBe(1));
    expect((await entries(id))[0]).toMatchObject({ status: "open", version: "v1", last_error: null });

    // Down again at the flight's end: the end answers at once, the deletion follows when it is back.
    dss.state.down = true;
    expect((await pilotCall(`/flight/v2/${id}/end`)).status).toBe(200);
    await settle(id, async () => expect((await entries(id))[0]).toMatchObject({ status: "closing" }));
    await settle(id, async () => expect((await entries(id))[0]?.attempts).toBeGreaterThanOrEqual(1));
    dss.state.down = false;
    await runInDurableObject(stubOf(id), (_, ctx) => {
      ctx.storage.sql.exec("UPDATE isa_outbox SET next_at = 0");
    });
    await settle(id, () => expect(dss.isas.size).toBe(0));
    expect((await entries(id))[0]).toMatchObject({ status: "done" });
  });

  it("registers a flight sending F3411 states over HTTP (no start-comm) alike", async () => {
    const dss = standInDss();
    const id = await flight();
    await pointAt(id, dss);
    const geoid = geoidHeight(egm96(), TAKEOFF.lat, TAKEOFF.lng);
    const sent = await call(`/flight/v2/${encodeURIComponent(id)}/telemetry`, {
      method: "POST",
      apiKey: account.apiKey,
      token,
      body: {
        states: [
          {
            timestamp: { value: iso(Date.now()), format: "RFC3339" },
            position: {
              lat: TAKEOFF.lat,
              lng: TAKEOFF.lng,
              alt: GROUND_MSL + 30 + geoid,
              accuracy_h: "HA3m",
            },
            track: 0,
            speed: 5,
            vertical_speed: 0,
          },
        ],
      },
    });
    expect(sent.status, sent.text).toBe(200);
    await settle(id, () => expect(dss.isas.size).toBe(1));
    const [, stored] = [...dss.isas][0]!;
    expect(stored.uss_base_url).toBe(OWN_BASE);
    expect(stored.extents.volume.altitude_upper.value).toBeGreaterThan(GROUND_MSL + 30 + geoid);
  });

  it("learns the DSS's version after a conflict and updates at it", async () => {
    const dss = standInDss();
    const id = await flight();
    await pointAt(id, dss);
    const session = await startComm(id);
    expect((await relayPosition(id, session, TAKEOFF)).status).toBe(200);
    await settle(id, () => expect(dss.isas.size).toBe(1));
    const [isaId, stored] = [...dss.isas][0]!;
    // Changed at the DSS behind this service's back: v1 is stale.
    stored.version = 5;
    dss.calls.length = 0;
    expect((await relayPosition(id, session, { lat: TAKEOFF.lat - 0.05, lng: TAKEOFF.lng })).status).toBe(
      200,
    );
    await settle(id, async () =>
      expect((await entries(id))[0]).toMatchObject({ version: "v5", attempts: 1 }),
    );
    expect(dssCalls(dss).map(describeCall)).toEqual([`PUT ${isaId}/v1`, `GET ${isaId}`]);
    await runInDurableObject(stubOf(id), (_, ctx) => {
      ctx.storage.sql.exec("UPDATE isa_outbox SET next_at = 0");
    });
    await settle(id, () => expect(dss.isas.get(isaId)?.version).toBe(6));
    expect(describeCall(dssCalls(dss).at(-1)!)).toBe(`PUT ${isaId}/v5`);
    expect(box(dss.isas.get(isaId)!.extents).minLat).toBeLessThan(TAKEOFF.lat - 0.05);
  });

  it("deletes the ISA of a flight deleted before take-off, then leaves nothing behind", async () => {
    const dss = standInDss();
    const id = await flight(hour);
    await pointAt(id, dss);
    const session = await startComm(id);
    expect((await relayPosition(id, session, TAKEOFF)).status).toBe(200);
    await settle(id, () => expect(dss.isas.size).toBe(1));
    const [isaId] = [...dss.isas.keys()];
    expect((await pilotCall(`/flight/v2/${id}`, "DELETE")).status).toBe(200);
    await settle(id, () => expect(dss.isas.size).toBe(0));
    expect(dssCalls(dss).at(-1)!.url).toBe(`${ISA_PATH}${isaId}/v1`);
    expect(await entries(id)).toEqual([]);
    const tables = await runInDurableObject(stubOf(id), (_, ctx) =>
      ctx.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'").toArray(),
    );
    expect(tables.filter((t) => !String(t.name).startsWith("_cf"))).toEqual([]);
  });

  it("leaves injected test flights to their own registration", async () => {
    const dss = standInDss();
    const id = await flight();
    await pointAt(id, dss);
    const stub = stubOf(id);
    // As ridInjection.ts does: declarations first, then the states as telemetry.
    await stub.keepRemoteId(JSON.stringify({ kind: "flight" }));
    await stub.ingest([
      {
        sessionId: "rid-test|t1",
        datagram: "rid a 0",
        serial: 0,
        index: 0,
        type: "position",
        timestamp: Date.now(),
        receivedAt: Date.now(),
        fields: { latitude: TAKEOFF.lat, longitude: TAKEOFF.lng, altitude_agl: 0, altitude_msl: GROUND_MSL },
      },
    ]);
    await runDurableObjectAlarm(stub);
    expect(await entries(id)).toEqual([]);
    expect(dss.calls).toEqual([]);
  });
});

function describeCallAny(c: DssCall): string {
  return `${c.method} ${c.url}`;
}
