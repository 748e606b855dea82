import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { connect as tlsConnect } from "node:tls";
import mqtt, { type MqttClient } from "mqtt";
import mqttPacket from "mqtt-packet";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { FlightPosition } from "../../../proto/traffic";
import { createLog } from "../../../relay/log";
import type { AskWorker, Verdict } from "../../../relay/traffic/admission";
import { startTrafficBroker, type TrafficBroker } from "../../../relay/traffic/broker";
import { ensureDevCertificates } from "../../../relay/traffic/certificates";
import type { TrafficConfig } from "../../../relay/traffic/config";

/**
 * The broker in this process with a stand-in for the worker's answer (the real one is in
 * test/e2e/traffic.test.ts): what bad clients cannot do to the others. A CONNECT flood, a subscriber
 * that stops reading and malformed pushes lose nothing else and hold nobody up.
 */

const tls = ensureDevCertificates(mkdtempSync(path.join(os.tmpdir(), "ws-traffic-tls-")));
const SECRET = "test-secret";
const M_PER_DEG = 111_195;
let broker: TrafficBroker | undefined;
const clients: MqttClient[] = [];

const allow = (flightId: string): Verdict => ({
  allowed: true,
  client: {
    flight_id: flightId,
    pilot_id: "p",
    ends_at: Date.now() + 3_600_000,
    token_expires_at: Date.now() + 3_600_000,
  },
});

async function start(ask: AskWorker, overrides: Partial<TrafficConfig> = {}) {
  const config: TrafficConfig = {
    port: 0,
    wsPort: null,
    wsPlain: true,
    host: "127.0.0.1",
    certFile: tls.certFile,
    keyFile: tls.keyFile,
    feedPort: 0,
    feedHost: "127.0.0.1",
    workerUrl: "http://127.0.0.1:1",
    secret: SECRET,
    adsbUrl: null,
    adsbIntervalMs: 1000,
    sbs: null,
    authTtlMs: 1000,
    recheckMs: 500,
    maxPendingAuth: 8,
    connectTimeoutMs: 1000,
    drainTimeoutMs: 1000,
    maxConnections: 10_000,
    logLevel: "error",
    ...overrides,
  };
  broker = await startTrafficBroker(config, createLog("error"), { ask });
  return broker;
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.end(true);
  await broker?.close();
  broker = undefined;
});

function client(username: string, password = "token"): MqttClient {
  const c = mqtt.connect(`mqtts://127.0.0.1:${broker!.ports.mqtt}`, {
    username,
    password,
    ca: readFileSync(tls.caFile),
    protocolVersion: 4,
    reconnectPeriod: 0,
    connectTimeout: 20_000,
  });
  clients.push(c);
  return c;
}

const connected = (c: MqttClient) =>
  new Promise<void>((resolve, reject) => {
    c.once("connect", () => resolve());
    c.once("error", reject);
  });

const position = (flightId: string, northM: number, eastM = 0): FlightPosition => ({
  flight_id: flightId,
  latitude: 40 + northM / M_PER_DEG,
  longitude: -100 + eastM / (M_PER_DEG * Math.cos((40 * Math.PI) / 180)),
  altitude_m: 500,
  ground_speed_ms: 0,
  heading_deg: 0,
  recorded_at: Date.now(),
});

function push(body: unknown, auth = `Bearer ${SECRET}`) {
  return fetch(`http://127.0.0.1:${broker!.ports.feed}/v1/positions`, {
    method: "POST",
    headers: { authorization: auth, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("the broker under bad input", () => {
  it("refuses pushes without the credential, malformed ones, and bad positions, keeping the good ones", async () => {
    await start(async (f) => allow(f));
    expect((await push({ positions: [] }, "Bearer nope")).status).toBe(401);
    expect((await push("{not json")).status).toBe(400);
    expect((await push({ positions: "x" })).status).toBe(400);
    const mixed = await push({
      positions: [position("flight|a", 0), { ...position("flight|b", 0), latitude: 91 }, null],
    });
    expect(await mixed.json()).toEqual({ status: "success", data: { accepted: 1, rejected: 2 } });
    await new Promise((r) => setTimeout(r, 50));
    expect(broker!.monitor.trackCount).toBe(1);
  });

  it("keeps serving connected clients and admits a legitimate one during a CONNECT flood", async () => {
    // The worker takes 20 ms per question; the flood's credentials are all wrong.
    await start(async (flightId, token) => {
      await new Promise((r) => setTimeout(r, 20));
      return token === "good" ? allow(flightId) : { allowed: false, reason: "Invalid token" };
    });
    const watcher = client("flight|own", "good");
    await connected(watcher);
    await watcher.subscribeAsync("uav/traffic/sa/flight|own");
    const received: number[] = [];
    watcher.on("message", () => received.push(Date.now()));
    const feeding = setInterval(() => {
      void push({ positions: [position("flight|own", 0), position("flight|other", 3000)] });
    }, 100);
    const flood = Array.from({ length: 400 }, (_, i) => {
      const c = mqtt.connect(`mqtts://127.0.0.1:${broker!.ports.mqtt}`, {
        username: `flight|flood${i}`,
        password: "wrong",
        rejectUnauthorized: false,
        protocolVersion: 4,
        reconnectPeriod: 0,
        connectTimeout: 30_000,
      });
      clients.push(c);
      return new Promise<number | string>((resolve) => {
        c.once("connect", () => resolve("connected"));
        c.once("error", (err) => resolve((err as Error & { code?: number }).code ?? err.message));
        c.once("close", () => resolve("closed"));
      });
    });
    const startedAt = Date.now();
    // Beyond the admission queue the broker answers "server unavailable" (3) at once, and a client
    // asks again, as the SDKs' MQTT clients do; it gets in while the flood lasts.
    for (let attempt = 1; ; attempt++) {
      const late = client("flight|late", "good");
      const outcome = await connected(late).then(
        () => "connected",
        (err: Error & { code?: number }) => err.code,
      );
      if (outcome === "connected") break;
      expect(outcome, "refused for a full queue only").toBe(3);
      expect(attempt).toBeLessThan(50);
      await new Promise((r) => setTimeout(r, 100));
    }
    const lateMs = Date.now() - startedAt;
    const outcomes = await Promise.all(flood);
    clearInterval(feeding);
    // Every flood CONNECT was answered: "not authorized" (5), or "server unavailable" (3) beyond the queue.
    expect(outcomes.every((o) => o === 5 || o === 3 || o === "closed")).toBe(true);
    expect(outcomes.filter((o) => o === 5).length).toBeGreaterThan(0);
    expect(outcomes).not.toContain("connected");
    expect(lateMs).toBeLessThan(10_000);
    // The connected client heard every second of it.
    const gaps = received.slice(1).map((t, i) => t - received[i]!);
    expect(received.length).toBeGreaterThan(0);
    expect(Math.max(0, ...gaps)).toBeLessThan(2500);
  });

  it("closes sockets that never send CONNECT", async () => {
    await start(async (f) => allow(f), { connectTimeoutMs: 500 });
    const closedAfter = await new Promise<number>((resolve) => {
      const opened = Date.now();
      const socket = tlsConnect({ port: broker!.ports.mqtt, host: "127.0.0.1", rejectUnauthorized: false });
      socket.on("error", () => {});
      socket.on("close", () => resolve(Date.now() - opened));
    });
    expect(closedAfter).toBeLessThan(3000);
  });

  it("disconnects a subscriber that stops reading (drainTimeout); the others keep getting theirs", async () => {
    await start(async (f) => allow(f), { drainTimeoutMs: 1000, wsPort: 0 });
    const fast = client("flight|fast");
    await connected(fast);
    await fast.subscribeAsync("uav/traffic/sa/flight|fast");
    const received: number[] = [];
    fast.on("message", () => received.push(Date.now()));
    // The slow one: a raw MQTT client over WebSockets that subscribes and then stops reading its socket.
    const slow = new WebSocket(`ws://127.0.0.1:${broker!.ports.ws}/mqtt`, "mqtt");
    slow.on("error", () => {});
    await new Promise((r) => slow.once("open", r));
    slow.send(
      mqttPacket.generate({
        cmd: "connect",
        protocolId: "MQTT",
        protocolVersion: 4,
        clean: true,
        clientId: "slow",
        keepalive: 0,
        username: "flight|slow",
        password: Buffer.from("t"),
      }),
    );
    slow.send(
      mqttPacket.generate({
        cmd: "subscribe",
        messageId: 1,
        subscriptions: [{ topic: "uav/traffic/sa/flight|slow", qos: 0 }],
      }),
    );
    await new Promise((r) => setTimeout(r, 300));
    slow.pause();
    // 3,000 tracks around both flights, once a second: about 1 MB a second for each.
    const tracks = Array.from({ length: 3000 }, (_, i) =>
      position(`flight|t${i}`, (i % 60) * 200, Math.floor(i / 60) * 200),
    );
    const startedAt = Date.now();
    // A paused socket never reads the broker's FIN: the broker's side tells when it cut the subscriber off.
    let closedAt = 0;
    const watch = setInterval(() => {
      if (closedAt === 0 && broker!.counters.slowDisconnected > 0) closedAt = Date.now();
    }, 50);
    while (closedAt === 0 && Date.now() - startedAt < 60_000) {
      await push({
        positions: [
          position("flight|fast", 5000, 5000),
          position("flight|slow", 5000, 5000),
          ...tracks.map((t) => ({ ...t, recorded_at: Date.now() })),
        ],
      });
      await new Promise((r) => setTimeout(r, 500));
    }
    clearInterval(watch);
    expect(closedAt).toBeGreaterThan(0);
    const during = received.filter((t) => t >= startedAt && t <= closedAt);
    const gaps = during.slice(1).map((t, i) => t - during[i]!);
    expect(during.length).toBeGreaterThan(0);
    expect(Math.max(0, ...gaps)).toBeLessThan(3000);
  }, 90_000);

  it("disconnects a client within 10 s once the worker stops admitting it (a revoked key)", async () => {
    let revoked = false;
    await start(
      async (f) =>
        revoked ? { allowed: false, reason: "The flight's application has no live API key" } : allow(f),
      {
        authTtlMs: 5000,
        recheckMs: 2500,
      },
    );
    const c = client("flight|own");
    await connected(c);
    const closed = new Promise<number>((r) => c.once("close", () => r(Date.now())));
    const revokedAt = Date.now();
    revoked = true;
    expect((await closed) - revokedAt).toBeLessThan(10_000);
  }, 20_000);
});
