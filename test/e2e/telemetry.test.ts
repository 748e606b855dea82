import { createSocket } from "node:dgram";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDatagram } from "../../proto/datagram";
import { encodeRecords } from "../../proto/messages";
import type { OutgoingRecord } from "../../proto/records";
import { type Process, scrapeMetrics } from "../../tools/lib/processes";
import { freePort, prepareState, startRelay, startWorker } from "./services";

/** The whole path with real processes: datagrams over UDP → relay → worker (wrangler dev) → read-back. */

// Inside the session's window (proto/recordTime.ts): from 1 h before start-comm to 5 min ahead.
const T0 = Date.now() - 60_000;
const stateDir = mkdtempSync(path.join(os.tmpdir(), "ws-e2e-telemetry-"));
const socket = createSocket("udp4");
const running: Process[] = [];
let worker: Process & { baseUrl: string };
let workerPort: number;
let apiKey: string;
let token: string;

async function api(method: string, route: string, body?: unknown) {
  const res = await fetch(`${worker.baseUrl}${route}`, {
    method,
    headers: { "x-api-key": apiKey, authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

async function newFlight(): Promise<string> {
  return (await api("POST", "/flight/v2/point", { latitude: 47.37, longitude: 8.54 })).id;
}

async function startComm(flightId: string): Promise<Buffer> {
  return Buffer.from((await api("POST", `/flight/v2/${flightId}/start-comm`)).key, "base64");
}

async function readBack(flightId: string): Promise<any[]> {
  return (await api("GET", `/flight/v2/${flightId}/telemetry?limit=10000`)).results;
}

/** The records of datagram `serial`: a position and, in turn, a speed, attitude or barometer. */
function recordsOf(serial: number): OutgoingRecord[] {
  const timestamp = T0 + serial * 100;
  const others: OutgoingRecord[] = [
    {
      type: "speed",
      fields: { timestamp: timestamp + 1, velocity_x: serial / 4, velocity_y: -1.5, velocity_z: 0 },
    },
    { type: "attitude", fields: { timestamp: timestamp + 1, yaw: 359.5, pitch: -12.75, roll: 180 } },
    { type: "barometer", fields: { timestamp: timestamp + 1, pressure: 1013.25 } },
  ];
  const position: OutgoingRecord = {
    type: "position",
    fields: {
      timestamp,
      latitude: 47.3769251 + serial * 1e-7,
      longitude: -116.8656586,
      altitude_agl: serial / 2,
      altitude_msl: -55.5,
      horizontal_accuracy: 0.75,
    },
  };
  return [position, others[serial % 3]!];
}

/** What the read-back must hold for these serials: every field (proto3's absent ones as 0), by timestamp. */
function expected(serials: number[]) {
  return serials
    .flatMap((serial) =>
      recordsOf(serial).map(({ type, fields }) => ({ type, serial, timestamp: 0, ...fields })),
    )
    .sort((a, b) => a.timestamp - b.timestamp);
}

function datagram(flightId: string, key: Buffer, serial: number): Buffer {
  return buildDatagram({ serial, flightId, key, payload: encodeRecords(recordsOf(serial)) });
}

async function send(port: number, datagrams: Buffer[], perSecond = 2000): Promise<void> {
  const started = Date.now();
  for (const [i, bytes] of datagrams.entries()) {
    await new Promise<void>((resolve, reject) =>
      socket.send(bytes, port, "127.0.0.1", (e) => (e ? reject(e) : resolve())),
    );
    const due = started + (i * 1000) / perSecond;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
  }
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const withoutReceivedAt = (records: any[]) => records.map(({ received_at, ...rest }) => rest);

beforeAll(async () => {
  ({ apiKey } = await prepareState(stateDir));
  workerPort = await freePort();
  worker = await startWorker(stateDir, workerPort);
  running.push(worker);
  const res = await fetch(`${worker.baseUrl}/auth/v1/anonymous/token`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify({ user_id: "e2e-pilot" }),
  });
  token = ((await res.json()) as any).data.id_token;
});

afterAll(async () => {
  socket.close();
  await Promise.all(running.map((p) => p.stop()));
  rmSync(stateDir, { recursive: true, force: true });
});

describe("telemetry end to end over UDP", () => {
  it("stores what was sent exactly once, in timestamp order, through reordering and replays", async () => {
    const relay = await startRelay(worker.baseUrl, path.join(stateDir, "spool-a"));
    running.push(relay);
    const flightId = await newFlight();
    const key = await startComm(flightId);
    const serials = range(1, 60);
    const datagrams = serials.map((serial) => datagram(flightId, key, serial));
    // Reordered in small groups, then ten datagrams sent again as they were.
    const reordered = [...datagrams.slice(0, 30).reverse(), ...datagrams.slice(30)];
    const replays = [0, 5, 10, 15, 20, 25, 30, 35, 40, 59].map((i) => datagrams[i]!);
    await send(relay.port, [...reordered, ...replays]);

    const stored = await eventually(
      () => readBack(flightId),
      (records) => records.length >= 120,
    );
    expect(withoutReceivedAt(stored)).toEqual(expected(serials));
    expect(stored[0].received_at).toMatch(/Z$/);
    const metrics = await scrapeMetrics(relay.metricsPort);
    expect(metrics.get("windsock_relay_datagrams_accepted_total")).toBe(60);
    expect(metrics.get('windsock_relay_datagrams_dropped_total{reason="replayed"}')).toBe(10);
    await relay.stop();
  });

  it("follows a session rotation and stores nothing after end-comm", async () => {
    const relay = await startRelay(worker.baseUrl, path.join(stateDir, "spool-b"));
    running.push(relay);
    const flightId = await newFlight();
    const first = await startComm(flightId);
    await send(
      relay.port,
      range(1, 5).map((s) => datagram(flightId, first, s)),
    );
    await eventually(
      () => readBack(flightId),
      (records) => records.length >= 10,
    );
    const second = await startComm(flightId);
    // Serials restart at 1 in the new session.
    await send(
      relay.port,
      range(1, 5).map((s) => datagram(flightId, second, s)),
    );
    const rotated = await eventually(
      () => readBack(flightId),
      (records) => records.length >= 20,
    );
    expect(rotated.filter((r) => r.type === "position").map((r) => r.serial)).toEqual([
      1, 1, 2, 2, 3, 3, 4, 4, 5, 5,
    ]);
    // A late datagram of the old session no longer decrypts.
    await send(relay.port, [datagram(flightId, first, 6)]);
    const failed = await eventually(
      () => scrapeMetrics(relay.metricsPort),
      (m) =>
        (m.get('windsock_relay_datagrams_dropped_total{reason="decrypt_failed"}') ?? 0) +
          (m.get('windsock_relay_datagrams_dropped_total{reason="bad_payload_framing"}') ?? 0) ===
        1,
    );
    expect(failed.get("windsock_relay_datagrams_accepted_total")).toBe(10);

    await api("POST", `/flight/v2/${flightId}/end-comm`);
    await send(
      relay.port,
      range(6, 8).map((s) => datagram(flightId, second, s)),
    );
    await eventually(
      () => scrapeMetrics(relay.metricsPort),
      (m) => m.get('windsock_relay_records_dropped_total{reason="session_closed"}') === 6,
    );
    // The relay has forgotten the closed session: the next datagram finds no open one.
    await send(relay.port, [datagram(flightId, second, 9)]);
    const metrics = await eventually(
      () => scrapeMetrics(relay.metricsPort),
      (m) => m.get('windsock_relay_datagrams_dropped_total{reason="unknown_flight"}') === 1,
    );
    expect(metrics.get('windsock_relay_records_dropped_total{reason="session_closed"}')).toBe(6);
    expect(await readBack(flightId)).toHaveLength(20);
    await relay.stop();
  });

  it("loses nothing accepted through a worker outage and a relay restart", async () => {
    const spoolDir = path.join(stateDir, "spool-c");
    // A short key lifetime: the key expires during the outage and must keep serving.
    const before = await startRelay(worker.baseUrl, spoolDir, ["--key-ttl-ms=500"]);
    running.push(before);
    const flightId = await newFlight();
    const key = await startComm(flightId);
    await send(
      before.port,
      range(1, 100).map((s) => datagram(flightId, key, s)),
    );
    await eventually(
      () => readBack(flightId),
      (records) => records.length >= 200,
    );

    await worker.stop();
    await send(
      before.port,
      range(101, 300).map((s) => datagram(flightId, key, s)),
      500,
    );
    const during = await eventually(
      () => scrapeMetrics(before.metricsPort),
      (m) => m.get("windsock_relay_datagrams_accepted_total") === 300,
    );
    expect(during.get("windsock_relay_datagrams_accepted_total")).toBe(300);
    expect(during.get("windsock_relay_post_failures_total")).toBeGreaterThan(0);
    expect(await before.stop("SIGTERM")).toBe(0);
    expect(readdirSync(spoolDir).length).toBeGreaterThan(0);

    worker = await startWorker(stateDir, workerPort);
    running.push(worker);
    const after = await startRelay(worker.baseUrl, spoolDir);
    running.push(after);
    await send(
      after.port,
      range(301, 400).map((s) => datagram(flightId, key, s)),
    );
    const stored = await eventually(
      () => readBack(flightId),
      (records) => records.length >= 800,
      60_000,
    );
    expect(withoutReceivedAt(stored)).toEqual(expected(range(1, 400)));
    await eventually(
      async () => readdirSync(spoolDir),
      (files) => files.length === 0,
    );
    expect(readdirSync(spoolDir)).toEqual([]);
  });
});
