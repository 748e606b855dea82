import path from "node:path";
import { readOptions } from "../command";
import type { LogLevel } from "../log";

export const HELP = `Windsock traffic broker: an MQTT broker (aedes) that tells each monitored flight's pilot about the
aircraft near it, as the AirMap SDKs' monitor-traffic expects (docs/traffic.md).

Clients connect over MQTT 3.1.1 over TLS (--port) or MQTT over WebSockets (--ws-port) with username =
the flight id and password = a pilot token; the worker says whether that pilot may monitor that
flight (checked again every few seconds). They may subscribe to uav/traffic/sa/<flight_id> and
uav/traffic/alert/<flight_id> only, and never publish.

Traffic comes from the worker (every flight's latest position, pushed to --feed-port) and from an
ADS-B receiver (--adsb-url and/or --sbs).

Usage: tsx relay/traffic/main.ts [options]

Options (each also read from the environment variable in brackets; flags win):
  --port <n>            MQTT over TLS [TRAFFIC_PORT] (8883)
  --ws-port <n>         MQTT over WebSockets, path /mqtt; 0 picks a free port, "off" none [TRAFFIC_WS_PORT] (8884)
  --ws-plain            WebSockets without TLS (ws://), for a development page on http://; otherwise
                        wss:// with the same certificate [TRAFFIC_WS_PLAIN=1]
  --host <addr>         address the MQTT ports bind [TRAFFIC_HOST] (0.0.0.0)
  --cert <file>         the server's certificate chain, PEM [TRAFFIC_TLS_CERT] ($STATE_DIR/traffic-tls/server.crt)
  --key <file>          its private key, PEM [TRAFFIC_TLS_KEY] ($STATE_DIR/traffic-tls/server.key)
  --feed-port <n>       HTTP: POST /v1/positions (the worker's pushes, relay credential), GET /metrics,
                        GET /health; 0 picks a free port [TRAFFIC_FEED_PORT] (8885)
  --feed-host <addr>    [TRAFFIC_FEED_HOST] (127.0.0.1)
  --worker-url <url>    the worker's base URL [WORKER_URL] (http://127.0.0.1:8787)
  --adsb-url <url>      a readsb / dump1090 aircraft.json to poll, e.g.
                        http://receiver.local/tar1090/data/aircraft.json [TRAFFIC_ADSB_URL] (none)
  --adsb-interval-ms <n>  how often to poll it [TRAFFIC_ADSB_INTERVAL_MS] (1000)
  --sbs <host:port>     an SBS-1 BaseStation feed (readsb/dump1090 --net-sbs-port, usually 30003) [TRAFFIC_SBS] (none)
  --auth-ttl-ms <n>     how long the worker's answer about a client is trusted; connected clients are
                        checked again after it, so a revoked key or ended flight disconnects within
                        this plus --recheck-ms [TRAFFIC_AUTH_TTL_MS] (5000)
  --recheck-ms <n>      [TRAFFIC_RECHECK_MS] (2500)
  --max-pending-auth <n>  CONNECTs checked with the worker at once; beyond it (a CONNECT flood) they wait,
                        and beyond 10 times it they are refused with "server unavailable" [TRAFFIC_MAX_PENDING_AUTH] (32)
  --connect-timeout-ms <n>  a socket that sends no CONNECT in this time is closed [TRAFFIC_CONNECT_TIMEOUT_MS] (5000)
  --drain-timeout-ms <n>  a subscriber that reads nothing for this long is disconnected, so a slow one
                        never holds anyone up [TRAFFIC_DRAIN_TIMEOUT_MS] (5000)
  --max-connections <n> [TRAFFIC_MAX_CONNECTIONS] (20000)
  --log-level <level>   debug, info, warn or error [LOG_LEVEL] (info)
  --help                this text

The relay credential is read from the environment only: RELAY_SECRET (the worker's secret of the same
name): the broker asks the worker with it, and the worker pushes positions with it. Logs are JSON lines
on stdout; the line {"msg":"listening",…} gives the ports. SIGTERM or SIGINT stops it.`;

export interface TrafficConfig {
  port: number;
  wsPort: number | null;
  wsPlain: boolean;
  host: string;
  certFile: string;
  keyFile: string;
  feedPort: number;
  feedHost: string;
  workerUrl: string;
  secret: string;
  adsbUrl: string | null;
  adsbIntervalMs: number;
  sbs: { host: string; port: number } | null;
  authTtlMs: number;
  recheckMs: number;
  maxPendingAuth: number;
  connectTimeoutMs: number;
  drainTimeoutMs: number;
  maxConnections: number;
  logLevel: LogLevel;
}

const NUMERIC = {
  port: ["TRAFFIC_PORT", 8883],
  "feed-port": ["TRAFFIC_FEED_PORT", 8885],
  "adsb-interval-ms": ["TRAFFIC_ADSB_INTERVAL_MS", 1000],
  "auth-ttl-ms": ["TRAFFIC_AUTH_TTL_MS", 5000],
  "recheck-ms": ["TRAFFIC_RECHECK_MS", 2500],
  "max-pending-auth": ["TRAFFIC_MAX_PENDING_AUTH", 32],
  "connect-timeout-ms": ["TRAFFIC_CONNECT_TIMEOUT_MS", 5000],
  "drain-timeout-ms": ["TRAFFIC_DRAIN_TIMEOUT_MS", 5000],
  "max-connections": ["TRAFFIC_MAX_CONNECTIONS", 20_000],
} as const;

const TEXT = {
  "ws-port": ["TRAFFIC_WS_PORT", "8884"],
  host: ["TRAFFIC_HOST", "0.0.0.0"],
  cert: ["TRAFFIC_TLS_CERT", undefined],
  key: ["TRAFFIC_TLS_KEY", undefined],
  "feed-host": ["TRAFFIC_FEED_HOST", "127.0.0.1"],
  "worker-url": ["WORKER_URL", "http://127.0.0.1:8787"],
  "adsb-url": ["TRAFFIC_ADSB_URL", undefined],
  sbs: ["TRAFFIC_SBS", undefined],
} as const;

/** The development certificate's files under STATE_DIR (tools/start.ts makes them). */
export const devTlsDir = (stateDir: string) => path.resolve(stateDir, "traffic-tls");

/** Reads the configuration; `help` when --help was asked for. Throws with a message naming the bad option. */
export function readConfig(argv: string[], env: Record<string, string | undefined>): TrafficConfig | "help" {
  const options = readOptions(argv, env, { numeric: NUMERIC, text: TEXT, switches: ["ws-plain"] });
  if (options === "help") return "help";
  const { number, text, logLevel } = options;
  const secret = env.RELAY_SECRET;
  if (!secret)
    throw new Error("RELAY_SECRET is not set: the broker and the worker authenticate to each other with it");
  const wsRaw = text("ws-port")!;
  const wsPort = wsRaw === "off" ? null : Number(wsRaw);
  if (wsPort !== null && (!Number.isInteger(wsPort) || wsPort < 0))
    throw new Error(`--ws-port (TRAFFIC_WS_PORT) must be a port number or "off", not "${wsRaw}"`);
  const sbsRaw = text("sbs");
  let sbs: TrafficConfig["sbs"] = null;
  if (sbsRaw !== undefined) {
    const match = /^(.+):(\d{1,5})$/.exec(sbsRaw);
    if (!match)
      throw new Error(`--sbs (TRAFFIC_SBS) must be host:port, e.g. receiver.local:30003, not "${sbsRaw}"`);
    sbs = { host: match[1]!.replace(/^\[|\]$/g, ""), port: Number(match[2]) };
  }
  const adsbUrl = text("adsb-url") ?? null;
  if (adsbUrl !== null && !/^https?:\/\//.test(adsbUrl))
    throw new Error(
      `--adsb-url (TRAFFIC_ADSB_URL) must be an http(s) URL of aircraft.json, not "${adsbUrl}"`,
    );
  const tls = devTlsDir(env.STATE_DIR ?? ".wrangler/state");
  return {
    port: number("port"),
    wsPort,
    wsPlain: options.switch("ws-plain") || env.TRAFFIC_WS_PLAIN === "1",
    host: text("host")!,
    certFile: text("cert") ?? path.join(tls, "server.crt"),
    keyFile: text("key") ?? path.join(tls, "server.key"),
    feedPort: number("feed-port"),
    feedHost: text("feed-host")!,
    workerUrl: text("worker-url")!.replace(/\/+$/, ""),
    secret,
    adsbUrl,
    adsbIntervalMs: Math.max(100, number("adsb-interval-ms")),
    sbs,
    authTtlMs: number("auth-ttl-ms"),
    recheckMs: Math.max(100, number("recheck-ms")),
    maxPendingAuth: Math.max(1, number("max-pending-auth")),
    connectTimeoutMs: number("connect-timeout-ms"),
    drainTimeoutMs: number("drain-timeout-ms"),
    maxConnections: number("max-connections"),
    logLevel,
  };
}
