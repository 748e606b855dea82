import { readFileSync } from "node:fs";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { Aedes, type AuthenticateError, type Client } from "aedes";
import { createWebSocketStream, WebSocketServer } from "ws";
import type { FlightPosition, TrafficClient } from "../../proto/traffic";
import { POSITIONS_PATH } from "../../proto/traffic";
import type { Log } from "../log";
import { Admission, type AskWorker, workerAsker } from "./admission";
import { type AdsbCounters, pollAircraftJson, readSbs, type Source } from "./adsbSources";
import type { TrafficConfig } from "./config";
import { TrafficMonitor } from "./monitor";
import { parseTopic, type Track } from "./semantics";

/**
 * The broker: aedes behind TLS and WebSockets, the worker's admission of each client, the position
 * feed, the ADS-B sources and the monitor that decides what to publish.
 */
/** Positions one push may carry. */
const MAX_POSITIONS = 5000;
const MAX_FEED_BYTES = 2 * 1024 * 1024;

export interface TrafficBroker {
  ports: { mqtt: number; ws: number | null; feed: number };
  monitor: TrafficMonitor;
  counters: Counters;
  close(): Promise<void>;
}

interface Counters {
  connectsAccepted: number;
  connectsRefused: number;
  connectsUnavailable: number;
  disconnectedByRecheck: number;
  /** Subscribers that read nothing for drainTimeout and were cut off. */
  slowDisconnected: number;
  subscribesRefused: number;
  publishesRefused: number;
  messagesPublished: { alert: number; sa: number };
  positionsReceived: number;
  positionsRejected: number;
  adsb: AdsbCounters;
}

interface Admitted {
  flightId: string;
  token: string;
  grant: TrafficClient;
}

export async function startTrafficBroker(
  config: TrafficConfig,
  log: Log,
  options: { ask?: AskWorker; now?: () => number } = {},
): Promise<TrafficBroker> {
  const now = options.now ?? Date.now;
  const counters: Counters = {
    connectsAccepted: 0,
    connectsRefused: 0,
    connectsUnavailable: 0,
    disconnectedByRecheck: 0,
    slowDisconnected: 0,
    subscribesRefused: 0,
    publishesRefused: 0,
    messagesPublished: { alert: 0, sa: 0 },
    positionsReceived: 0,
    positionsRejected: 0,
    adsb: { tracks: 0, skipped: 0, malformed: 0, failures: 0 },
  };
  const admission = new Admission(options.ask ?? workerAsker(config.workerUrl, config.secret), {
    ttlMs: config.authTtlMs,
    maxPending: config.maxPendingAuth,
    now,
  });
  const admitted = new Map<Client, Admitted>();
  /** Each monitored flight's subscribed clients. */
  const watchers = new Map<string, Set<Client>>();

  const broker = await Aedes.createBroker({
    connectTimeout: config.connectTimeoutMs,
    drainTimeout: config.drainTimeoutMs,
    // Deliveries in flight at once: each one waiting on a slow subscriber's drain holds one.
    concurrency: 10_000,
    authenticate(client, username, password, done) {
      const refuse = (returnCode: 3 | 5, reason: string) => {
        if (returnCode === 5) counters.connectsRefused++;
        else counters.connectsUnavailable++;
        log.debug("connect refused", { flight_id: username, reason });
        const err = new Error(reason) as AuthenticateError;
        err.returnCode = returnCode;
        done(err, null);
      };
      if (!username || !password || password.length === 0)
        return refuse(5, "CONNECT needs username = flight id and password = pilot token");
      const token = password.toString("utf8");
      admission.check(username, token).then((verdict) => {
        if ("unavailable" in verdict) return refuse(3, verdict.unavailable);
        if (!verdict.allowed) return refuse(5, verdict.reason);
        counters.connectsAccepted++;
        admitted.set(client, { flightId: username, token, grant: verdict.client });
        done(null, true);
      });
    },
    authorizeSubscribe(client, subscription, done) {
      const own = admitted.get(client);
      const topic = parseTopic(subscription.topic);
      if (!own || !topic || topic.flightId !== own.flightId) {
        counters.subscribesRefused++;
        // SUBACK 0x80 for this topic; the connection stays.
        return done(null, null);
      }
      const set = watchers.get(own.flightId) ?? new Set<Client>();
      watchers.set(own.flightId, set);
      set.add(client);
      monitor.watch(own.flightId);
      done(null, subscription);
    },
    authorizePublish(_client, _packet, done) {
      counters.publishesRefused++;
      done(new Error("clients of the traffic broker never publish"));
    },
  });

  const monitor = new TrafficMonitor({
    now,
    publish(topic, payload) {
      counters.messagesPublished[topic.startsWith("uav/traffic/alert/") ? "alert" : "sa"]++;
      broker.publish(
        { cmd: "publish", topic, payload: Buffer.from(payload), qos: 0, retain: false, dup: false },
        () => {},
      );
    },
  });

  const forget = (client: Client) => {
    const own = admitted.get(client);
    if (!own) return;
    admitted.delete(client);
    const set = watchers.get(own.flightId);
    if (!set) return;
    set.delete(client);
    if (set.size === 0) {
      watchers.delete(own.flightId);
      monitor.unwatch(own.flightId);
    }
  };
  broker.on("clientDisconnect", forget);
  broker.on("clientError", (client, err) => {
    if (err.message === "drain timeout") {
      counters.slowDisconnected++;
      log.info("slow subscriber disconnected", { flight_id: admitted.get(client)?.flightId });
    } else log.debug("client error", { id: client.id, error: err.message });
  });
  broker.on("connectionError", (client, err) =>
    log.debug("connection error", { id: client?.id, error: err.message }),
  );

  // Positions go straight to the monitor: through aedes' queue they would wait behind deliveries
  // to subscribers that read slowly (docs/traffic.md says how hosts would share them).
  const deliverPositions = (tracks: Track[]) => {
    for (const track of tracks) monitor.update(track);
    monitor.flush();
  };

  const flushTimer = setInterval(() => monitor.flush(), 100);
  const expireTimer = setInterval(() => monitor.expire(), 1000);
  const recheckTimer = setInterval(() => {
    const at = now();
    for (const [client, own] of admitted) {
      const drop = (reason: string) => {
        counters.disconnectedByRecheck++;
        log.info("client disconnected", { flight_id: own.flightId, reason });
        forget(client);
        client.close();
      };
      if (own.grant.ends_at < at) drop("the flight has ended");
      else if (own.grant.token_expires_at < at) drop("the token has expired");
      else
        admission.check(own.flightId, own.token).then((verdict) => {
          if (!admitted.has(client)) return;
          if ("allowed" in verdict && !verdict.allowed) drop(verdict.reason);
          else if ("allowed" in verdict) own.grant = verdict.client;
        });
    }
  }, config.recheckMs);

  const tlsOptions = { cert: readFileSync(config.certFile), key: readFileSync(config.keyFile) };
  const mqttServer = createTlsServer(tlsOptions, (socket) => broker.handle(socket));
  mqttServer.maxConnections = config.maxConnections;
  mqttServer.on("tlsClientError", () => {});
  await listen(mqttServer, config.port, config.host);

  let wsServer: Server | null = null;
  if (config.wsPort !== null) {
    wsServer = config.wsPlain ? createHttpServer() : createHttpsServer(tlsOptions);
    wsServer.maxConnections = config.maxConnections;
    const wss = new WebSocketServer({ server: wsServer, path: "/mqtt", maxPayload: 64 * 1024 });
    wss.on("connection", (socket, req) => {
      const stream = createWebSocketStream(socket);
      stream.on("error", () => socket.terminate());
      broker.handle(stream, req);
    });
    await listen(wsServer, config.wsPort, config.host);
  }

  const feedServer = createHttpServer((req, res) => {
    serveFeed(req, res).catch((err) => {
      log.error("feed request", { error: String(err) });
      if (!res.headersSent) answer(res, 500, { status: "error", message: "internal error" });
    });
  });
  const serveFeed = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "GET" && req.url === "/health")
      return answer(res, 200, { status: "success", data: null });
    if (req.method === "GET" && req.url === "/metrics") {
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
      return res.end(metricsText(counters, monitor, admission.pending, broker.connectedClients));
    }
    if (req.url !== POSITIONS_PATH)
      return answer(res, 404, fail(404, `No route for ${req.method} ${req.url}`));
    if (req.method !== "POST") return answer(res, 405, fail(405, `Use POST ${POSITIONS_PATH}`));
    if (req.headers.authorization !== `Bearer ${config.secret}`)
      return answer(res, 401, fail(401, "Send Authorization: Bearer <RELAY_SECRET>"));
    const body = await readBody(req, MAX_FEED_BYTES);
    if (body === null) return answer(res, 413, fail(413, `A push is at most ${MAX_FEED_BYTES} bytes`));
    let positions: unknown;
    try {
      positions = (JSON.parse(body) as { positions?: unknown }).positions;
    } catch {
      return answer(res, 400, fail(400, 'The body is not JSON: send {"positions": [...]}'));
    }
    if (!Array.isArray(positions) || positions.length > MAX_POSITIONS)
      return answer(res, 400, fail(400, `\`positions\` must be an array of at most ${MAX_POSITIONS}`));
    const tracks: Track[] = [];
    for (const p of positions) {
      const track = trackOfPosition(p);
      if (track) tracks.push(track);
      else counters.positionsRejected++;
    }
    counters.positionsReceived += tracks.length;
    if (tracks.length > 0) deliverPositions(tracks);
    answer(res, 200, {
      status: "success",
      data: { accepted: tracks.length, rejected: positions.length - tracks.length },
    });
  };
  // The worker's pushes reuse connections: closing an idle one after Node's 5 s would race a reuse.
  feedServer.keepAliveTimeout = 65_000;
  await listen(feedServer, config.feedPort, config.feedHost);

  const sources: Source[] = [];
  if (config.adsbUrl)
    sources.push(
      pollAircraftJson(config.adsbUrl, config.adsbIntervalMs, deliverPositions, counters.adsb, log),
    );
  if (config.sbs) sources.push(readSbs(config.sbs, deliverPositions, counters.adsb, log));

  const port = (server: { address(): AddressInfo | string | null }) => (server.address() as AddressInfo).port;
  return {
    ports: { mqtt: port(mqttServer), ws: wsServer ? port(wsServer) : null, feed: port(feedServer) },
    monitor,
    counters,
    async close() {
      clearInterval(flushTimer);
      clearInterval(expireTimer);
      clearInterval(recheckTimer);
      for (const source of sources) source.stop();
      for (const server of [mqttServer, wsServer, feedServer]) server?.close();
      await new Promise<void>((resolve) => broker.close(() => resolve()));
    },
  };
}

/** A flight's pushed position as a track, or null when a field is missing or out of range. */
export function trackOfPosition(value: unknown): Track | null {
  if (typeof value !== "object" || value === null) return null;
  const p = value as Partial<FlightPosition>;
  const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
  if (typeof p.flight_id !== "string" || p.flight_id.length === 0 || p.flight_id.length > 64) return null;
  if (!finite(p.latitude) || p.latitude < -90 || p.latitude > 90) return null;
  if (!finite(p.longitude) || p.longitude < -180 || p.longitude > 180) return null;
  if (!finite(p.altitude_m) || !finite(p.ground_speed_ms) || p.ground_speed_ms < 0) return null;
  if (!finite(p.heading_deg) || !finite(p.recorded_at)) return null;
  return {
    id: p.flight_id,
    aircraftId: p.flight_id,
    aircraftType: "UAV",
    latitude: p.latitude,
    longitude: p.longitude,
    altitudeM: p.altitude_m,
    groundSpeedMs: p.ground_speed_ms,
    headingDeg: ((p.heading_deg % 360) + 360) % 360,
    recordedAt: p.recorded_at,
  };
}

const fail = (code: number, message: string) => ({ status: "fail", data: { code, message, errors: [] } });

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        resolve(null);
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function listen(
  server: {
    listen(port: number, host: string): unknown;
    once(e: string, f: (...a: unknown[]) => void): unknown;
  },
  port: number,
  host: string,
) {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject as (...a: unknown[]) => void);
    server.once("listening", () => resolve());
    server.listen(port, host);
  });
}

function metricsText(c: Counters, monitor: TrafficMonitor, pendingAuth: number, connected: number): string {
  const lines = [
    ["traffic_clients_connected", connected],
    ['traffic_connects_total{result="accepted"}', c.connectsAccepted],
    ['traffic_connects_total{result="not_authorized"}', c.connectsRefused],
    ['traffic_connects_total{result="unavailable"}', c.connectsUnavailable],
    ["traffic_disconnected_by_recheck_total", c.disconnectedByRecheck],
    ["traffic_slow_subscribers_disconnected_total", c.slowDisconnected],
    ["traffic_subscribes_refused_total", c.subscribesRefused],
    ["traffic_publishes_refused_total", c.publishesRefused],
    ['traffic_messages_published_total{topic="alert"}', c.messagesPublished.alert],
    ['traffic_messages_published_total{topic="sa"}', c.messagesPublished.sa],
    ["traffic_positions_received_total", c.positionsReceived],
    ["traffic_positions_rejected_total", c.positionsRejected],
    ["traffic_adsb_tracks_total", c.adsb.tracks],
    ["traffic_adsb_skipped_total", c.adsb.skipped],
    ["traffic_adsb_malformed_total", c.adsb.malformed],
    ["traffic_adsb_failures_total", c.adsb.failures],
    ["traffic_tracks", monitor.trackCount],
    ["traffic_flights_monitored", monitor.watching],
    ["traffic_auth_pending", pendingAuth],
    ["process_resident_memory_bytes", process.memoryUsage().rss],
    ["process_cpu_seconds_total", (process.cpuUsage().user + process.cpuUsage().system) / 1e6],
  ] as const;
  return `${lines.map(([name, value]) => `${name} ${value}`).join("\n")}\n`;
}
