import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { telemetryOf } from "../../worker/telemetry/flightTelemetry";
import { flightAt } from "./flightFixtures";
import { call, createAccount, postRelayRows, RELAY, tokenFor } from "./helpers";

/** The Durable Object stores a record once per (session, datagram identity, index), whatever its serial. */

const FIELDS = [47.3769251, 8.541694, 42.5, 450.25, 1.5];

async function flightInSession() {
  const account = await createAccount();
  const { token } = await tokenFor(account, "replay-pilot");
  const flight = await flightAt(account, token);
  const started = await call(`/flight/v2/${flight.id}/start-comm`, {
    method: "POST",
    apiKey: account.apiKey,
    token,
  });
  expect(started.status).toBe(200);
  const session = await call(`/internal/v1/flights/${encodeURIComponent(flight.id)}/session`, {
    headers: RELAY,
  });
  const read = async () =>
    (
      await call(`/flight/v2/${flight.id}/telemetry?limit=10000`, { apiKey: account.apiKey, token })
    ).json.data.results.map((r: { serial: number; timestamp: number }) => ({
      ...r,
      timestamp: r.timestamp - T0,
    })) as {
      serial: number;
      timestamp: number;
    }[];
  return { flightId: flight.id as string, sessionId: session.json.data.session_id as string, read };
}

/** Records are dated T0 + their `timestamp`, inside every session's window (proto/recordTime.ts). */
const T0 = Date.now() - 60_000;

/** Posts position rows as the relay does; `datagrams` names each row's datagram (or is left out). */
function post(
  flightId: string,
  sessionId: string,
  rows: { serial: number; timestamp: number; datagram?: string; index?: number }[],
  withIds = true,
) {
  return postRelayRows(
    flightId,
    sessionId,
    rows.map((r) => [r.serial, r.index ?? 0, "position", T0 + r.timestamp, Date.now(), ...FIELDS]),
    withIds ? rows.map((r) => r.datagram) : undefined,
  );
}

describe("telemetry idempotency by datagram", () => {
  it("stores a datagram resent under other serials once, and a later datagram under a used serial", async () => {
    const { flightId, sessionId, read } = await flightInSession();
    const captured = { datagram: "AAAAAAAAAAAAAAAAAAAAAA==", timestamp: 1000 };
    expect((await post(flightId, sessionId, [{ ...captured, serial: 5 }])).json.data.stored).toBe(1);
    const replays = [4_000_000_000, 0, 6, 0xffffffff].map((serial) => ({ ...captured, serial }));
    expect((await post(flightId, sessionId, replays)).json.data).toEqual({
      stored: 0,
      duplicates: 4,
      refused: [],
    });
    // The genuine datagram 6 comes after a replay forged serial 6: it is stored, not shadowed.
    const later = { serial: 6, timestamp: 2000, datagram: "BBBBBBBBBBBBBBBBBBBBBB==" };
    expect((await post(flightId, sessionId, [later])).json.data.stored).toBe(1);
    expect((await read()).map((r) => [r.serial, r.timestamp])).toEqual([
      [5, 1000],
      [6, 2000],
    ]);
  });

  it("stores the genuine datagram after a tampered copy, which the relay names by all its bytes", async () => {
    const { flightId, sessionId, read } = await flightInSession();
    // Same serial and index, another identity (an IV bit flipped): both are stored, neither shadows.
    const tampered = { serial: 7, timestamp: 3000, datagram: "CCCCCCCCCCCCCCCCCCCCCC==" };
    const genuine = { serial: 7, timestamp: 3000, datagram: "DDDDDDDDDDDDDDDDDDDDDD==" };
    expect((await post(flightId, sessionId, [tampered])).json.data.stored).toBe(1);
    expect((await post(flightId, sessionId, [genuine])).json.data.stored).toBe(1);
    expect((await post(flightId, sessionId, [genuine])).json.data.duplicates).toBe(1);
    expect(await read()).toHaveLength(2);
  });

  it("keeps deduplicating posts of older relays (no identities) by serial", async () => {
    const { flightId, sessionId, read } = await flightInSession();
    const rows = [
      { serial: 1, timestamp: 1000 },
      { serial: 2, timestamp: 2000 },
    ];
    expect((await post(flightId, sessionId, rows, false)).json.data.stored).toBe(2);
    expect((await post(flightId, sessionId, rows, false)).json.data.duplicates).toBe(2);
    expect(await read()).toHaveLength(2);
  });

  it("refuses identities that do not match the records one to one", async () => {
    const { flightId, sessionId } = await flightInSession();
    const res = await call("/internal/v1/telemetry", {
      method: "POST",
      headers: RELAY,
      body: {
        sessions: [
          {
            flight_id: flightId,
            session_id: sessionId,
            records: [[1, 0, "position", 1000, Date.now(), ...FIELDS]],
            datagrams: ["a", "b"],
          },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.json.data.errors.map((e: { name: string }) => e.name)).toContain("sessions.0.datagrams");
  });

  it("rebuilds a table made before identities once, keeping its records", async () => {
    const flightId = "flight|migrationmigration0";
    const stub = telemetryOf(env, flightId);
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec(`
        CREATE TABLE records (
          id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, serial INTEGER NOT NULL,
          record_index INTEGER NOT NULL, type TEXT NOT NULL, timestamp INTEGER NOT NULL,
          received_at INTEGER NOT NULL, fields TEXT NOT NULL, UNIQUE (session_id, serial, record_index));
        CREATE INDEX records_by_time ON records (timestamp, id);
        INSERT INTO records (session_id, serial, record_index, type, timestamp, received_at, fields)
          VALUES ('session|old', 1, 0, 'barometer', 1000, 1000, '{"pressure":1000}');`);
    });
    const record = {
      sessionId: "session|old",
      serial: 1,
      index: 0,
      type: "barometer",
      timestamp: 1000,
      receivedAt: 2000,
      fields: { pressure: 1000 },
    };
    // The old relay's repost is still a duplicate; a new datagram under the same serial is not.
    expect(await stub.ingest([{ ...record, datagram: "#1" }])).toEqual({ stored: 0, duplicates: 1 });
    expect(await stub.ingest([{ ...record, datagram: "CCCCCCCCCCCCCCCCCCCCCC==" }])).toEqual({
      stored: 1,
      duplicates: 0,
    });
    const page = await stub.read({ since: 0, types: undefined, limit: 10, after: undefined });
    expect(page.records.map((r) => r.serial)).toEqual([1, 1]);
    await runInDurableObject(stub, (_instance, state) => {
      const tables = state.storage.sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name",
        )
        .toArray()
        .map((row) => row.name);
      expect(tables).toContain("records_by_time");
      expect(tables).not.toContain("records_by_serial");
    });
  });
});
