import { mkdtempSync, readFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import os from "node:os";
import path from "node:path";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevVars } from "../../tools/lib/devVars";
import { type Process, scrapeMetrics } from "../../tools/lib/processes";
import { startTrafficProcess, type TrafficProcess } from "../../tools/lib/trafficBroker";
import { DEV_ISSUER, SCOPES } from "../../worker/interuss/auth";
import { signingKey, signToken, type TokenClaims } from "../../worker/lib/jwt";
import { freePort, prepareState, startWorker } from "./services";

/**
 * Traffic end to end with real processes and the real MQTT client (npm mqtt) over TLS: the worker
 * (wrangler dev) pushes flights' positions to the broker, the broker reads an ADS-B receiver's
 * aircraft.json and SBS feed (recorded samples, served here), and pilots' clients get what the SDKs
 * expect, or are refused as they expect.
 */

const FIXTURES = path.join(import.meta.dirname, "../fixtures/traffic");
const stateDir = mkdtempSync(path.join(os.tmpdir(), "ws-e2e-traffic-"));
const running: Process[] = [];
const clients: MqttClient[] = [];
let worker: Process & { baseUrl: string };
let broker: TrafficProcess;
/** A second broker on the same feed, as a second relay host behind the same address would be. */
let secondBroker: TrafficProcess;
let ca: Buffer;
let apiKey: string;
let adsbHttp: Server;
let sbsTcp: TcpServer;

/** Flight A, monitored, near San Francisco's airport where the recorded Cessna flies. */
const HOME = { lat: 37.625, lng: -122.37 };
const M_PER_DEG = 111_195;

async function api(method: string, route: string, token: string | undefined, body?: unknown) {
  const res = await fetch(`${worker.baseUrl}${route}`, {
    method,
    headers: {
      "x-api-key": apiKey,
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

const pilotToken = async (user: string): Promise<string> =>
  (await api("POST", "/auth/v1/anonymous/token", undefined, { user_id: user })).id_token;

const flight = async (token: string, at = HOME): Promise<string> =>
  (await api("POST", "/flight/v2/point", token, { latitude: at.lat, longitude: at.lng, buffer: 500 })).id;

/** One position over HTTP ingest (F3411 state): `northM` north of HOME, flying `track` at `speed`. */
function fly(token: string, flightId: string, northM: number, speed = 0, track = 0) {
  return api("POST", `/flight/v2/${flightId}/telemetry`, token, {
    states: [
      {
        timestamp: { value: new Date().toISOString(), format: "RFC3339" },
        position: { lat: HOME.lat + northM / M_PER_DEG, lng: HOME.lng, alt: 60 },
        track,
        speed,
        vertical_speed: 0,
      },
    ],
  });
}

function connect(
  username: string | undefined,
  password: string | undefined,
  options: mqtt.IClientOptions = {},
  to: TrafficProcess = broker,
) {
  const client = mqtt.connect(`mqtts://127.0.0.1:${to.port}`, {
    username,
    password,
    ca,
    clientId: `test-${Math.random().toString(36).slice(2)}`,
    clean: true,
    keepalive: 15,
    protocolVersion: 4,
    reconnectPeriod: 0,
    connectTimeout: 10_000,
    ...options,
  });
  clients.push(client);
  return client;
}

function connected(client: MqttClient): Promise<void> {
  return new Promise((resolve, reject) => {
    client.once("connect", () => resolve());
    client.once("error", reject);
    client.once("close", () => reject(new Error("closed before CONNACK")));
  });
}

/** The CONNACK return code a refused client gets. */
function refusal(client: MqttClient): Promise<number | string> {
  return new Promise((resolve) => {
    client.once("connect", () => resolve("connected"));
    client.once("error", (err) => resolve((err as Error & { code?: number }).code ?? err.message));
  });
}

interface Message {
  topic: string;
  traffic: Record<string, unknown>[];
}

/** Collects a client's messages; `until` waits for one that satisfies the predicate. */
function inbox(client: MqttClient) {
  const messages: Message[] = [];
  const waiters: { test: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  client.on("message", (topic, payload) => {
    const message = { topic, traffic: JSON.parse(payload.toString()).traffic };
    messages.push(message);
    for (const w of [...waiters]) if (w.test(message)) w.resolve(message);
  });
  return {
    messages,
    until(test: (m: Message) => boolean, timeoutMs = 15_000): Promise<Message> {
      const found = messages.find(test);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`no such message in ${timeoutMs} ms; got ${JSON.stringify(messages.slice(-3))}`),
            ),
          timeoutMs,
        );
        waiters.push({
          test,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
      });
    },
  };
}

const withTrack = (id: string) => (m: Message) => m.traffic.some((t) => t.id === id);

beforeAll(async () => {
  ({ apiKey } = await prepareState(stateDir));
  // The receiver: aircraft.json with `now` made current; SBS lines (some malformed) to each connection.
  const aircraftJson = readFileSync(path.join(FIXTURES, "readsb-aircraft.recorded.json"), "utf8");
  adsbHttp = createHttpServer((_req, res) => {
    const doc = JSON.parse(aircraftJson);
    doc.now = Date.now() / 1000;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(doc));
  });
  await new Promise<void>((r) => adsbHttp.listen(0, "127.0.0.1", r));
  const sbsLines = readFileSync(path.join(FIXTURES, "basestation-30003.recorded.txt"), "utf8");
  sbsTcp = createTcpServer((socket) => {
    socket.on("error", () => {});
    socket.write(sbsLines);
    const timer = setInterval(() => socket.write(sbsLines.split("\n").slice(-2).join("\n")), 1000);
    socket.on("close", () => clearInterval(timer));
  });
  await new Promise<void>((r) => sbsTcp.listen(0, "127.0.0.1", r));
  const workerPort = await freePort();
  const adsbPort = (adsbHttp.address() as { port: number }).port;
  const sbsPort = (sbsTcp.address() as { port: number }).port;
  broker = await startTrafficProcess({
    workerUrl: `http://127.0.0.1:${workerPort}`,
    secret: ensureDevVars().RELAY_SECRET!,
    tlsDir: path.join(stateDir, "traffic-tls"),
    flags: [
      `--adsb-url=http://127.0.0.1:${adsbPort}/data/aircraft.json`,
      `--sbs=127.0.0.1:${sbsPort}`,
      "--auth-ttl-ms=3000",
      "--recheck-ms=1000",
      "--drain-timeout-ms=2000",
    ],
  });
  running.push(broker);
  secondBroker = await startTrafficProcess({
    workerUrl: `http://127.0.0.1:${workerPort}`,
    secret: ensureDevVars().RELAY_SECRET!,
    tlsDir: path.join(stateDir, "traffic-tls"),
    flags: [`--sbs=127.0.0.1:${sbsPort}`],
  });
  running.push(secondBroker);
  ca = readFileSync(path.join(stateDir, "traffic-tls", "ca.crt"));
  worker = await startWorker(stateDir, workerPort, {
    TRAFFIC_FEED_URL: `http://127.0.0.1:${broker.feedPort},http://127.0.0.1:${secondBroker.feedPort}`,
  });
  running.push(worker);
});

afterAll(async () => {
  for (const client of clients) client.end(true);
  await Promise.all(running.map((p) => p.stop()));
  adsbHttp?.close();
  sbsTcp?.close();
});

describe("traffic over MQTT (TLS, real client)", () => {
  it("gives the flight's pilot nearby flights and manned aircraft on the SA topic, and an alert for one closing in", async () => {
    const alice = await pilotToken("alice");
    const bob = await pilotToken("bob");
    const own = await flight(alice);
    const alicesOther = await flight(alice);
    const bobs = await flight(bob);
    const client = connect(own, alice);
    await connected(client);
    const box = inbox(client);
    // As the C++ SDK subscribes (QoS 2); the broker grants both.
    const granted = await client.subscribeAsync({
      [`uav/traffic/sa/${own}`]: { qos: 2 },
      [`uav/traffic/alert/${own}`]: { qos: 2 },
    });
    expect(granted.map((g) => g.qos).sort()).toEqual([2, 2]);

    await fly(alice, own, 0);
    await fly(bob, bobs, 5000);
    await fly(alice, alicesOther, -4000);
    const sa = await box.until(withTrack(bobs));
    expect(sa.topic).toBe(`uav/traffic/sa/${own}`);
    const update = sa.traffic.find((t) => t.id === bobs)!;
    expect(update).toEqual({
      id: bobs,
      direction: 0,
      latitude: (HOME.lat + 5000 / M_PER_DEG).toFixed(7),
      longitude: HOME.lng.toFixed(7),
      altitude: expect.stringMatching(/^-?\d+$/),
      ground_speed_kts: "0",
      true_heading: expect.stringMatching(/^\d+$/),
      recorded_time: expect.stringMatching(/^\d{10}$/),
      timestamp: expect.any(Number),
      properties: { aircraft_id: bobs, aircraft_type: "UAV" },
    });
    expect(Math.abs((update.timestamp as number) - Date.now())).toBeLessThan(15_000);
    // The pilot's own other flight is traffic; the flight itself never is.
    await box.until(withTrack(alicesOther));
    expect(box.messages.some(withTrack(own))).toBe(false);
    // The recorded receiver: the Cessna (from both feeds) and a TIS-B target only aircraft.json has;
    // UAL123 at 32,000 ft is outside the vertical band.
    await box.until(withTrack("icao:a4b2c1"));
    await box.until(withTrack("icao:~2a01b3"));
    expect(box.messages.some(withTrack("icao:a0f3d2"))).toBe(false);

    // Bob turns towards Alice at 40 m/s from 1.8 km: within 1,000 m in 30 s.
    await fly(bob, bobs, 1800, 40, 180);
    const alert = await box.until((m) => m.topic === `uav/traffic/alert/${own}` && withTrack(bobs)(m));
    expect(alert.traffic.find((t) => t.id === bobs)).toMatchObject({
      ground_speed_kts: "78",
      true_heading: "180",
      direction: 0,
    });
  });

  it("publishes each track at most once a second per topic", async () => {
    const carol = await pilotToken("carol");
    const dave = await pilotToken("dave");
    const own = await flight(carol, { lat: 40, lng: -100 });
    const daves = await flight(dave, { lat: 40, lng: -100 });
    const client = connect(own, carol);
    await connected(client);
    const box = inbox(client);
    await client.subscribeAsync(`uav/traffic/sa/${own}`, { qos: 1 });
    const at = (northM: number) => ({
      states: [
        {
          timestamp: { value: new Date().toISOString(), format: "RFC3339" },
          position: { lat: 40 + northM / M_PER_DEG, lng: -100, alt: 500 },
          track: 0,
          speed: 0,
          vertical_speed: 0,
        },
      ],
    });
    await api("POST", `/flight/v2/${own}/telemetry`, carol, at(0));
    const started = Date.now();
    while (Date.now() - started < 4000) {
      await api("POST", `/flight/v2/${daves}/telemetry`, dave, at(3000 + (Date.now() - started) / 100));
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 1500));
    const times = box.messages
      .filter(withTrack(daves))
      .map((m) => m.traffic.find((t) => t.id === daves)!.timestamp as number);
    expect(times.length).toBeGreaterThanOrEqual(2);
    expect(times.length).toBeLessThanOrEqual(6);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(990);
  });

  it("answers wrong credentials with CONNACK 5 (not authorized), never a silent hang", async () => {
    const erin = await pilotToken("erin");
    const frank = await pilotToken("frank");
    const erins = await flight(erin);
    expect(await refusal(connect(erins, frank))).toBe(5);
    expect(await refusal(connect(erins, "not-a-token"))).toBe(5);
    expect(await refusal(connect("flight|nosuchflight0000000000", erin))).toBe(5);
    expect(await refusal(connect(undefined, undefined))).toBe(5);
    expect(await refusal(connect(erins, erin))).toBe("connected");
  });

  it("grants only the flight's own two topics, and disconnects a client that publishes", async () => {
    const gina = await pilotToken("gina");
    const ginas = await flight(gina);
    const others = await flight(await pilotToken("hank"));
    const client = connect(ginas, gina);
    await connected(client);
    // mqtt.js reports a SUBACK with any refusal as an error that carries the packet.
    const granted = await new Promise<number[]>((resolve) =>
      client.subscribe(
        [
          `uav/traffic/sa/${others}`,
          "uav/traffic/sa/#",
          "$windsock/traffic/positions",
          "#",
          `uav/traffic/alert/${ginas}`,
        ],
        (err, grants) =>
          resolve(
            (err as (Error & { packet?: { granted: number[] } }) | null)?.packet?.granted ??
              grants!.map((g) => g.qos),
          ),
      ),
    );
    expect(granted).toEqual([128, 128, 128, 128, 0]);
    const closed = new Promise<void>((r) => client.once("close", () => r()));
    client.publish(`uav/traffic/alert/${ginas}`, '{"traffic":[]}');
    await closed;
  });

  it("refuses a client that does not trust the development CA", async () => {
    const ivy = await pilotToken("ivy");
    const client = connect(await flight(ivy), ivy, { ca: undefined, rejectUnauthorized: true });
    const outcome = await refusal(client);
    expect(String(outcome)).toMatch(/UNABLE_TO_VERIFY|SELF_SIGNED|self.signed|unable to (get|verify)/i);
  });

  it("disconnects a client within 10 s of its flight's end", async () => {
    const jane = await pilotToken("jane");
    const janes = await flight(jane);
    const client = connect(janes, jane);
    await connected(client);
    await client.subscribeAsync(`uav/traffic/sa/${janes}`);
    const closed = new Promise<number>((r) => client.once("close", () => r(Date.now())));
    const endedAt = Date.now();
    await api("POST", `/flight/v2/${janes}/end`, jane);
    expect((await closed) - endedAt).toBeLessThan(10_000);
    expect(await refusal(connect(janes, jane))).toBe(5);
  });

  it("serves browsers over WebSockets with the same rules", async () => {
    const kim = await pilotToken("kim");
    const kims = await flight(kim);
    const ws = mqtt.connect(`ws://127.0.0.1:${broker.wsPort}/mqtt`, {
      username: kims,
      password: kim,
      protocolVersion: 4,
      reconnectPeriod: 0,
    });
    clients.push(ws);
    await connected(ws);
    const box = inbox(ws);
    await ws.subscribeAsync(`uav/traffic/sa/${kims}`);
    await fly(kim, kims, 0);
    await box.until(withTrack("icao:~2a01b3"));
    const wrong = mqtt.connect(`ws://127.0.0.1:${broker.wsPort}/mqtt`, {
      username: kims,
      password: "wrong",
      protocolVersion: 4,
      reconnectPeriod: 0,
    });
    clients.push(wrong);
    expect(await refusal(wrong)).toBe(5);
  });

  it("publishes an injected InterUSS test flight's states timed in the future as their times come", async () => {
    const lee = await pilotToken("lee");
    const at = { lat: 41, lng: -101 };
    const own = await flight(lee, at);
    const client = connect(own, lee);
    await connected(client);
    const box = inbox(client);
    await client.subscribeAsync(`uav/traffic/sa/${own}`, { qos: 1 });
    await api("POST", `/flight/v2/${own}/telemetry`, lee, {
      states: [
        {
          timestamp: { value: new Date().toISOString(), format: "RFC3339" },
          position: { lat: at.lat, lng: at.lng, alt: 300 },
          track: 0,
          speed: 0,
          vertical_speed: 0,
        },
      ],
    });
    // The qualifier's flight: eight states a second apart, the first 4 s from now, 2 km north and
    // moving 100 m north each second.
    const start = Date.now() + 4000;
    const northOf = (i: number) => at.lat + (2000 + 100 * i) / M_PER_DEG;
    const telemetry = Array.from({ length: 8 }, (_, i) => ({
      timestamp: new Date(start + i * 1000).toISOString(),
      timestamp_accuracy: 0.1,
      operational_status: "Airborne",
      position: { lat: northOf(i), lng: at.lng, alt: 300, extrapolated: false },
      height: { distance: 50, reference: "TakeoffLocation" },
      track: 0,
      speed: 100,
      vertical_speed: 0,
    }));
    const iat = Math.floor(Date.now() / 1000);
    const claims = { iss: DEV_ISSUER, sub: "uss_qualifier", aud: "127.0.0.1", iat, exp: iat + 600 };
    const token = await signToken(
      { ...claims, scope: SCOPES.ridInjection } as unknown as TokenClaims,
      await signingKey(ensureDevVars().JWT_PRIVATE_KEY!),
    );
    const res = await fetch(`${worker.baseUrl}/interuss/rid/v1/tests/traffic-future-${iat}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        requested_flights: [
          {
            injection_id: crypto.randomUUID(),
            aircraft_type: "Helicopter",
            telemetry,
            details_responses: [
              {
                effective_after: new Date(start - 60_000).toISOString(),
                details: { id: "uss1.traffic-future", operator_id: "CHEm1234567abcdef" },
              },
            ],
          },
        ],
      }),
    });
    const injected = (await res.json()) as any;
    expect(res.status, JSON.stringify(injected)).toBe(200);
    const injectedId: string = injected.injected_flights[0].details_responses[0].details.id;

    const first = await box.until(withTrack(injectedId), 15_000);
    const firstSeenAt = Date.now();
    // Nothing of it before its first state's time (less the second a record may run ahead).
    expect(firstSeenAt).toBeGreaterThanOrEqual(start - 1000);
    const states = (m: Message) =>
      m.traffic.filter((t) => t.id === injectedId).map((t) => Number(t.latitude));
    const seen = new Set(states(first));
    // Then it moves along its states as their times come, never ahead of them.
    await box.until(
      (m) => withTrack(injectedId)(m) && states(m).some((lat) => lat >= northOf(4) - 1e-6),
      15_000,
    );
    for (const m of box.messages.filter(withTrack(injectedId))) for (const lat of states(m)) seen.add(lat);
    expect(seen.size).toBeGreaterThanOrEqual(3);
    const lastSeen = Math.max(...seen);
    const index = Math.round(((lastSeen - at.lat) * M_PER_DEG - 2000) / 100);
    expect(start + index * 1000).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("serves from two brokers on one feed (two hosts behind one address), each client its alerts", async () => {
    const mia = await pilotToken("mia");
    const ned = await pilotToken("ned");
    const at = { lat: 42, lng: -102 };
    const mias = await flight(mia, at);
    const neds = await flight(ned, at);
    const onFirst = connect(mias, mia);
    const onSecond = connect(neds, ned, {}, secondBroker);
    await Promise.all([connected(onFirst), connected(onSecond)]);
    const [first, second] = [inbox(onFirst), inbox(onSecond)];
    await onFirst.subscribeAsync(`uav/traffic/alert/${mias}`, { qos: 1 });
    await onSecond.subscribeAsync(`uav/traffic/alert/${neds}`, { qos: 1 });
    // Head on, 1.5 km apart at 30 m/s each: both within 1,000 m in 30 s.
    const state = (northM: number, track: number) => ({
      states: [
        {
          timestamp: { value: new Date().toISOString(), format: "RFC3339" },
          position: { lat: at.lat + northM / M_PER_DEG, lng: at.lng, alt: 300 },
          track,
          speed: 30,
          vertical_speed: 0,
        },
      ],
    });
    await api("POST", `/flight/v2/${mias}/telemetry`, mia, state(0, 0));
    await api("POST", `/flight/v2/${neds}/telemetry`, ned, state(1500, 180));
    await first.until(withTrack(neds));
    await second.until(withTrack(mias));
    // Each broker holds both tracks, and monitors only its own client's flight.
    for (const b of [broker, secondBroker]) {
      const metrics = await scrapeMetrics(b.feedPort);
      expect(metrics.get("traffic_tracks")).toBeGreaterThanOrEqual(2);
    }
  });

  it("counts the receiver's malformed lines and keeps reading", async () => {
    const metrics = await scrapeMetrics(broker.feedPort);
    expect(metrics.get("traffic_adsb_malformed_total")).toBeGreaterThanOrEqual(4);
    expect(metrics.get("traffic_adsb_tracks_total")).toBeGreaterThan(5);
    expect(metrics.get('traffic_connects_total{result="not_authorized"}')).toBeGreaterThanOrEqual(4);
  });
});
