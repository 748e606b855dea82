import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RecordRow } from "../../proto/ingest";
import {
  ByteWriter,
  PACKED_BATCH_TYPE,
  packBatchHeader,
  packRecord,
  packSession,
} from "../../proto/packedBatch";
import { flightAt, hour, iso } from "./flightFixtures";
import { call, createAccount, postRelayRows, RELAY, type TestAccount, tokenFor } from "./helpers";

interface Pilot {
  account: TestAccount;
  token: string;
  pilotId: string;
}

async function pilot(name = "pilot"): Promise<Pilot> {
  const account = await createAccount();
  return { account, ...(await tokenFor(account, name)) };
}

function comm(p: Pilot, flightId: string, action: "start-comm" | "end-comm") {
  return call(`/flight/v2/${flightId}/${action}`, {
    method: "POST",
    apiKey: p.account.apiKey,
    token: p.token,
  });
}

function relaySession(flightId: string) {
  return call(`/internal/v1/flights/${encodeURIComponent(flightId)}/session`, { headers: RELAY });
}

interface Posted {
  flight_id: string;
  session_id: string;
  serial: number;
  index: number;
  type: string;
  timestamp: number;
  received_at: number;
  fields: Record<string, number>;
}

/** Posts records as the relay does: rows grouped by session, field values in proto order. */
function ingest(records: Posted[]) {
  const sessions = new Map<string, { flight_id: string; session_id: string; records: unknown[][] }>();
  for (const r of records) {
    const key = `${r.flight_id} ${r.session_id}`;
    const session = sessions.get(key) ?? { flight_id: r.flight_id, session_id: r.session_id, records: [] };
    session.records.push([r.serial, r.index, r.type, r.timestamp, r.received_at, ...Object.values(r.fields)]);
    sessions.set(key, session);
  }
  return call("/internal/v1/telemetry", {
    method: "POST",
    headers: RELAY,
    body: { sessions: [...sessions.values()] },
  });
}

/** A time inside every session's window (proto/recordTime.ts): records are dated T0 + a few seconds. */
const T0 = Date.now() - 60_000;

function position(flightId: string, sessionId: string, serial: number, timestamp: number, index = 0) {
  return {
    flight_id: flightId,
    session_id: sessionId,
    serial,
    index,
    type: "position",
    timestamp,
    received_at: Date.now(),
    fields: {
      latitude: 47.3769251,
      longitude: 8.541694,
      altitude_agl: 42.5,
      altitude_msl: 450.25,
      horizontal_accuracy: 1.5,
    },
  };
}

function readBack(p: Pilot, flightId: string, query = "") {
  return call(`/flight/v2/${flightId}/telemetry${query}`, { apiKey: p.account.apiKey, token: p.token });
}

/** A flight of the pilot with an open session; returns its id, key and session id. */
async function flightInSession(p: Pilot) {
  const flight = await flightAt(p.account, p.token);
  const started = await comm(p, flight.id, "start-comm");
  expect(started.status).toBe(200);
  const session = await relaySession(flight.id);
  expect(session.status).toBe(200);
  return {
    flightId: flight.id as string,
    key: started.json.data.key as string,
    sessionId: session.json.data.session_id,
  };
}

describe("start-comm and end-comm", () => {
  it("opens a session with a fresh 32-byte key, stored only sealed", async () => {
    const p = await pilot();
    const { flightId, key, sessionId } = await flightInSession(p);
    expect(atob(key)).toHaveLength(32);
    expect((await relaySession(flightId)).json.data.key).toBe(key);
    const row = await env.DB.prepare("SELECT * FROM telemetry_sessions WHERE id = ?").bind(sessionId).first();
    expect(row).toMatchObject({ flight_id: flightId, closed_at: null });
    expect(JSON.stringify(row)).not.toContain(key);
  });

  it("rotates: a second start-comm closes the first session and returns a new key", async () => {
    const p = await pilot();
    const first = await flightInSession(p);
    const second = await comm(p, first.flightId, "start-comm");
    expect(second.json.data.key).not.toBe(first.key);
    const session = await relaySession(first.flightId);
    expect(session.json.data.key).toBe(second.json.data.key);
    expect(session.json.data.session_id).not.toBe(first.sessionId);
    const open = await env.DB.prepare(
      "SELECT count(*) AS n FROM telemetry_sessions WHERE flight_id = ? AND closed_at IS NULL",
    )
      .bind(first.flightId)
      .first<{ n: number }>();
    expect(open?.n).toBe(1);
  });

  it("end-comm closes the open session and answers 200 when none is open", async () => {
    const p = await pilot();
    const { flightId } = await flightInSession(p);
    const ended = await comm(p, flightId, "end-comm");
    expect(ended.status).toBe(200);
    expect(ended.json).toEqual({ status: "success", data: null });
    expect((await relaySession(flightId)).status).toBe(404);
    expect((await comm(p, flightId, "end-comm")).status).toBe(200);
  });

  it("ending the flight closes its session", async () => {
    const p = await pilot();
    const { flightId } = await flightInSession(p);
    const ended = await call(`/flight/v2/${flightId}/end`, {
      method: "POST",
      apiKey: p.account.apiKey,
      token: p.token,
    });
    expect(ended.status).toBe(200);
    expect((await relaySession(flightId)).status).toBe(404);
  });

  it("accepts flight ids with a raw or percent-encoded |", async () => {
    const p = await pilot();
    const flight = await flightAt(p.account, p.token);
    const [kind, rest] = flight.id.split("|");
    expect((await comm(p, `${kind}|${rest}`, "start-comm")).status).toBe(200);
    expect((await comm(p, `${kind}%7C${rest}`, "end-comm")).status).toBe(200);
  });

  it("refuses another pilot's flight (403), an unknown one (404) and an ended one (409)", async () => {
    const p = await pilot("owner");
    const flight = await flightAt(p.account, p.token);
    const other = { account: p.account, ...(await tokenFor(p.account, "other")) };
    expect((await comm(other, flight.id, "start-comm")).status).toBe(403);
    expect((await comm(other, flight.id, "end-comm")).status).toBe(403);
    expect((await comm(p, "flight|doesnotexist", "start-comm")).status).toBe(404);
    const past = await flightAt(p.account, p.token, {
      start_time: iso(Date.now() - 2 * hour),
      end_time: iso(Date.now() - hour),
    });
    const refused = await comm(p, past.id, "start-comm");
    expect(refused.status).toBe(409);
    expect(refused.json.status).toBe("fail");
  });

  it("needs a token", async () => {
    const p = await pilot();
    const flight = await flightAt(p.account, p.token);
    const res = await call(`/flight/v2/${flight.id}/start-comm`, {
      method: "POST",
      apiKey: p.account.apiKey,
    });
    expect(res.status).toBe(401);
  });
});

describe("the relay's internal API", () => {
  it("accepts only the relay credential, never API keys or pilot tokens", async () => {
    const p = await pilot();
    const { flightId } = await flightInSession(p);
    const path = `/internal/v1/flights/${flightId}/session`;
    for (const options of [
      {},
      { apiKey: p.account.apiKey },
      { apiKey: p.account.apiKey, token: p.token },
      { headers: { Authorization: "Bearer wrong" } },
      { headers: { Authorization: `Basic ${env.RELAY_SECRET}` } },
    ]) {
      const res = await call(path, options);
      expect(res.status).toBe(401);
      expect(res.json.status).toBe("fail");
    }
    const posted = await call("/internal/v1/telemetry", {
      method: "POST",
      apiKey: p.account.apiKey,
      body: { records: [] },
    });
    expect(posted.status).toBe(401);
  });

  it("answers 404 for a flight without an open session", async () => {
    expect((await relaySession("flight|nosuchflight")).status).toBe(404);
  });

  it("stores records once however often they are posted", async () => {
    const p = await pilot();
    const { flightId, sessionId } = await flightInSession(p);
    const records = [
      position(flightId, sessionId, 1, T0 + 1000),
      position(flightId, sessionId, 2, T0 + 2000),
    ];
    expect((await ingest(records)).json.data).toEqual({ stored: 2, duplicates: 0, refused: [] });
    expect((await ingest(records)).json.data).toEqual({ stored: 0, duplicates: 2, refused: [] });
    expect((await readBack(p, flightId)).json.data.results).toHaveLength(2);
  });

  it("refuses records of unknown sessions, of another flight's session, and received after the close", async () => {
    const p = await pilot();
    const a = await flightInSession(p);
    const b = await flightInSession(p);
    const closedAt = Date.now();
    await comm(p, a.flightId, "end-comm");
    const late = { ...position(a.flightId, a.sessionId, 2, T0 + 2000), received_at: closedAt + 60_000 };
    const early = { ...position(a.flightId, a.sessionId, 1, T0 + 1000), received_at: closedAt - 1 };
    const res = await ingest([
      early,
      late,
      position(a.flightId, "session|unknown", 1, T0 + 1000),
      position(a.flightId, b.sessionId, 1, T0 + 1000),
    ]);
    expect(res.status).toBe(200);
    expect(res.json.data.stored).toBe(1);
    expect(res.json.data.refused).toEqual(
      expect.arrayContaining([
        { session_id: a.sessionId, reason: "session_closed", records: 1 },
        { session_id: "session|unknown", reason: "unknown_session", records: 1 },
        { session_id: b.sessionId, reason: "unknown_session", records: 1 },
      ]),
    );
  });

  it("gives the relay the session's start, and refuses records dated outside its window by reason", async () => {
    const p = await pilot();
    const { flightId, sessionId } = await flightInSession(p);
    const openedAt = (await relaySession(flightId)).json.data.opened_at as number;
    expect(Math.abs(openedAt - Date.now())).toBeLessThan(60_000);
    const now = Date.now();
    const res = await ingest([
      position(flightId, sessionId, 1, 0),
      position(flightId, sessionId, 2, openedAt - 2 * 3600_000),
      position(flightId, sessionId, 3, Date.UTC(9999, 11, 31)),
      position(flightId, sessionId, 4, now + 10 * 60_000),
      position(flightId, sessionId, 5, openedAt - 3000_000),
      position(flightId, sessionId, 6, now + 4 * 60_000),
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual({
      stored: 2,
      duplicates: 0,
      refused: [
        { session_id: sessionId, reason: "before_session", records: 2 },
        { session_id: sessionId, reason: "in_future", records: 2 },
      ],
    });
    const stored = (await readBack(p, flightId)).json.data.results.map((r: any) => r.serial);
    expect(stored).toEqual([5, 6]);
  });

  it("names every invalid record field", async () => {
    const p = await pilot();
    const { flightId, sessionId } = await flightInSession(p);
    const good = position(flightId, sessionId, 1, T0 + 1000);
    const cases: [Posted, string][] = [
      [{ ...good, fields: { ...good.fields, latitude: 91 } }, "sessions.0.records.0.latitude"],
      [
        { ...good, fields: { ...good.fields, horizontal_accuracy: -1 } },
        "sessions.0.records.0.horizontal_accuracy",
      ],
      [{ ...good, fields: { ...good.fields, extra: 1 } }, "sessions.0.records.0"],
      [{ ...good, fields: { latitude: 1 } }, "sessions.0.records.0.longitude"],
      [{ ...good, type: "gps" }, "sessions.0.records.0.2"],
      [{ ...good, serial: -1 }, "sessions.0.records.0.0"],
      [{ ...good, timestamp: 2 ** 53 }, "sessions.0.records.0.timestamp"],
    ];
    for (const [record, name] of cases) {
      const res = await ingest([record]);
      expect(res.status).toBe(400);
      expect(res.json.data.errors.map((e: { name: string }) => e.name)).toContain(name);
    }
  });
});

/** Records packed as the relay posts them: one session, each record's datagram named by `d<serial>`. */
function packed(flightId: string, sessionId: string, rows: RecordRow[]): Uint8Array {
  const out = new ByteWriter();
  packBatchHeader(out);
  packSession(out, flightId, sessionId, rows.length);
  for (const row of rows) packRecord(out, row, new TextEncoder().encode(`d${row[0]}`));
  return out.written().slice();
}

const postPacked = (body: Uint8Array) =>
  call("/internal/v1/telemetry", {
    method: "POST",
    headers: { ...RELAY, "Content-Type": PACKED_BATCH_TYPE },
    body,
  });

describe("the relay's packed batches", () => {
  it("are stored exactly as JSON posts of the same records, every value to the last bit", async () => {
    const p = await pilot();
    const { flightId, sessionId } = await flightInSession(p);
    // A float32 widened to a double: the relay's most expensive number to write as JSON text.
    const agl = Math.fround(42.1);
    const rows: RecordRow[] = [
      [1, 0, "position", T0 + 1000, Date.now(), 47.3769251, 8.541694, agl, 450.25, 1.5],
      [1, 1, "barometer", T0 + 1000, Date.now(), 1013.25],
    ];
    const res = await postPacked(packed(flightId, sessionId, rows));
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ stored: 2, duplicates: 0, refused: [] });
    // The same records as JSON, their datagrams named alike: duplicates, stored once.
    const json = await postRelayRows(
      flightId,
      sessionId,
      rows,
      rows.map((r) => btoa(`d${r[0]}`)),
    );
    expect(json.json.data).toEqual({ stored: 0, duplicates: 2, refused: [] });
    const back = (await readBack(p, flightId)).json.data.results;
    const position = back.find((r: { type: string }) => r.type === "position");
    expect(position).toMatchObject({
      latitude: 47.3769251,
      longitude: 8.541694,
      altitude_agl: agl,
      altitude_msl: 450.25,
      horizontal_accuracy: 1.5,
    });
  });

  it("are validated like JSON posts, and a damaged batch is a 400 naming the byte", async () => {
    const p = await pilot();
    const { flightId, sessionId } = await flightInSession(p);
    const bad = await postPacked(
      packed(flightId, sessionId, [[1, 0, "position", T0 + 1000, Date.now(), 91, 8.5, 1, 1, 1]]),
    );
    expect(bad.status).toBe(400);
    expect(bad.json.data.errors.map((e: { name: string }) => e.name)).toContain(
      "sessions.0.records.0.latitude",
    );
    const whole = packed(flightId, sessionId, [[1, 0, "barometer", T0 + 1000, Date.now(), 1000]]);
    const truncated = await postPacked(whole.subarray(0, whole.length - 3));
    expect(truncated.status).toBe(400);
    expect(truncated.json.data.errors[0]).toMatchObject({
      name: "body",
      message: expect.stringMatching(/truncated at byte \d+/),
    });
    const notPacked = await postPacked(new TextEncoder().encode("[]"));
    expect(notPacked.status).toBe(400);
    const other = await call("/internal/v1/telemetry", {
      method: "POST",
      headers: { ...RELAY, "Content-Type": "application/octet-stream" },
      body: whole,
    });
    expect(other.status).toBe(415);
    expect((await readBack(p, flightId)).json.data.results).toHaveLength(0);
  });
});

describe("GET /flight/v2/{id}/telemetry", () => {
  async function flightWithRecords(p: Pilot) {
    const flight = await flightInSession(p);
    const { flightId, sessionId } = flight;
    const speed = (serial: number, timestamp: number) => ({
      ...position(flightId, sessionId, serial, timestamp),
      type: "speed",
      fields: { velocity_x: 3.25, velocity_y: -1.5, velocity_z: -0.25 },
    });
    // Posted out of order: the read-back orders by timestamp.
    await ingest([
      position(flightId, sessionId, 3, T0 + 3000),
      speed(2, T0 + 2000),
      position(flightId, sessionId, 1, T0 + 1000),
      { ...speed(1, T0 + 1000), index: 1 },
      position(flightId, sessionId, 4, T0 + 4000),
    ]);
    return flight;
  }

  it("returns records ordered by timestamp with their fields named as in the proto", async () => {
    const p = await pilot();
    const { flightId } = await flightWithRecords(p);
    const res = await readBack(p, flightId);
    expect(res.status).toBe(200);
    const results = res.json.data.results;
    expect(results.map((r: any) => r.timestamp - T0)).toEqual([1000, 1000, 2000, 3000, 4000]);
    expect(results[0]).toMatchObject({
      type: "position",
      serial: 1,
      latitude: 47.3769251,
      longitude: 8.541694,
      altitude_agl: 42.5,
      altitude_msl: 450.25,
      horizontal_accuracy: 1.5,
    });
    expect(results[0].received_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(results[2]).toMatchObject({
      type: "speed",
      velocity_x: 3.25,
      velocity_y: -1.5,
      velocity_z: -0.25,
    });
    expect(res.json.data.paging).toEqual({ limit: 1000, next: null });
  });

  it("filters by since and types, and pages with a cursor", async () => {
    const p = await pilot();
    const { flightId } = await flightWithRecords(p);
    const since = await readBack(p, flightId, `?since=${T0 + 2000}&types=position`);
    expect(since.json.data.results.map((r: any) => [r.type, r.timestamp - T0])).toEqual([
      ["position", 3000],
      ["position", 4000],
    ]);
    const seen: number[] = [];
    let query = "?limit=2";
    for (;;) {
      const page = await readBack(p, flightId, query);
      expect(page.json.data.results.length).toBeLessThanOrEqual(2);
      seen.push(...page.json.data.results.map((r: any) => r.timestamp - T0));
      const next = page.json.data.paging.next;
      if (!next) break;
      query = `?limit=2&cursor=${encodeURIComponent(next)}`;
    }
    expect(seen).toEqual([1000, 1000, 2000, 3000, 4000]);
  });

  it("answers an empty page for a flight without telemetry", async () => {
    const p = await pilot();
    const flight = await flightAt(p.account, p.token);
    const res = await readBack(p, flight.id);
    expect(res.json.data).toEqual({ results: [], paging: { limit: 1000, next: null } });
  });

  it("names the invalid query parameter", async () => {
    const p = await pilot();
    const flight = await flightAt(p.account, p.token);
    for (const [query, name] of [
      ["?types=position,gps", "types"],
      ["?limit=10001", "limit"],
      ["?limit=0", "limit"],
      ["?since=yesterday", "since"],
      ["?cursor=garbage", "cursor"],
    ]) {
      const res = await readBack(p, flight.id, query);
      expect(res.status).toBe(400);
      expect(res.json.data.errors.map((e: { name: string }) => e.name)).toContain(name);
    }
  });

  it("is for the flight's pilot only", async () => {
    const p = await pilot("owner");
    const secret = await flightAt(p.account, p.token);
    const shared = await flightAt(p.account, p.token, { public: true });
    const other = { account: p.account, ...(await tokenFor(p.account, "other")) };
    expect((await readBack(other, secret.id)).status).toBe(404);
    expect((await readBack(other, shared.id)).status).toBe(403);
    const anonymous = await call(`/flight/v2/${shared.id}/telemetry`, { apiKey: p.account.apiKey });
    expect(anonymous.status).toBe(401);
  });
});
