import path from "node:path";
import { ISSUED_FLIGHT_ID } from "../proto/datagram";
import { readOptions } from "./command";
import type { LogLevel } from "./log";

export const HELP = `Windsock telemetry relay: receives encrypted telemetry datagrams over UDP (spec 4.6), decrypts
and validates them, and posts the records to the worker's internal API.

Usage: tsx relay/main.ts [options]

Options (each also read from the environment variable in brackets; flags win):
  --port <n>              UDP port to receive on [TELEMETRY_PORT] (16060)
  --host <addr>           address to bind; "::" for IPv6 and IPv4 [TELEMETRY_HOST] (0.0.0.0;
                          npm start passes 127.0.0.1 unless TELEMETRY_HOST is set)
  --worker-url <url>      the worker's base URL [WORKER_URL] (http://127.0.0.1:8787)
  --metrics-port <n>      Prometheus metrics on http://<metrics-host>:<n>/metrics; 0 picks a free port
                          [RELAY_METRICS_PORT] (9464, whatever the telemetry port)
  --metrics-host <addr>   [RELAY_METRICS_HOST] (127.0.0.1)
  --spool-dir <dir>       where batches wait while the worker is unreachable
                          [RELAY_SPOOL_DIR] ($STATE_DIR/relay-spool, STATE_DIR defaulting to .wrangler/state)
  --max-spool-mb <n>      spool size limit; beyond it records are dropped and counted [RELAY_MAX_SPOOL_MB] (1024)
  --rate-per-session <n>  datagrams a second one session may send on average, 0 for no limit
                          [RELAY_RATE_PER_SESSION] (1000)
  --burst-per-session <n> datagrams one session may send at once [RELAY_BURST_PER_SESSION] (10000)
  --failures-per-ip <n>   failing datagrams a second per source address (bad framing or flight id, no
                          session, failed decryption, replays), 0 for no limit; a source beyond it may
                          not make the relay look keys up. Valid traffic is never limited by address.
                          [RELAY_FAILURES_PER_IP] (20)
  --failure-burst-per-ip <n>  [RELAY_FAILURE_BURST_PER_IP] (200)
  --lookups-per-second <n>  key look-ups of uncached flights a second across all sources, 0 for no
                          limit [RELAY_LOOKUPS_PER_SECOND] (200)
  --lookup-burst <n>      [RELAY_LOOKUP_BURST] (2000)
  --flight-id-pattern <re>  flight ids worth a key look-up; others are dropped as bad_flight_id
                          [RELAY_FLIGHT_ID_PATTERN] (^flight\\|[0-9A-Za-z]{22}$, the ids the worker issues)
  --batch-size <n>        records per post to the worker, at most 2000 [RELAY_BATCH_SIZE] (1000)
  --batch-ms <n>          longest wait before a partial batch is posted [RELAY_BATCH_MS] (200)
  --max-queue-mb <n>      records held in memory, as the JSON text they are posted as, before the
                          oldest batches spill to the spool [RELAY_MAX_QUEUE_MB] (64)
  --max-queue <n>         the same as a number of records, 0 for no limit but the bytes [RELAY_MAX_QUEUE] (0)
  --max-in-flight <n>     concurrent posts to the worker [RELAY_MAX_IN_FLIGHT] (4)
  --key-ttl-ms <n>        how long a session key is trusted before it is looked up again [RELAY_KEY_TTL_MS] (30000)
  --unknown-ttl-ms <n>    how long "no open session" is trusted [RELAY_UNKNOWN_TTL_MS] (2000)
  --recv-buffer-mb <n>    UDP receive buffer (capped by net.core.rmem_max) [RELAY_RECV_BUFFER_MB] (4)
  --shutdown-ms <n>       on SIGTERM, how long to keep posting before spooling the rest [RELAY_SHUTDOWN_MS] (5000)
  --log-level <level>     debug, info, warn or error [LOG_LEVEL] (info)
  --help                  this text

The relay credential is read from the environment only: RELAY_SECRET (the worker's secret of the same
name). Logs are JSON lines on stdout. SIGTERM or SIGINT stops intake, flushes and exits.`;

export interface RelayConfig {
  port: number;
  host: string;
  workerUrl: string;
  secret: string;
  metricsPort: number;
  metricsHost: string;
  spoolDir: string;
  maxSpoolBytes: number;
  ratePerSession: number;
  burstPerSession: number;
  failuresPerIp: number;
  failureBurstPerIp: number;
  lookUpsPerSecond: number;
  lookUpBurst: number;
  batchSize: number;
  batchDelayMs: number;
  maxQueuedRecords: number;
  maxQueuedBytes: number;
  maxInFlight: number;
  keyTtlMs: number;
  unknownTtlMs: number;
  recvBufferBytes: number;
  shutdownMs: number;
  logLevel: LogLevel;
  flightIdPattern: RegExp;
}

const NUMERIC = {
  port: ["TELEMETRY_PORT", 16060],
  "metrics-port": ["RELAY_METRICS_PORT", 9464],
  "max-spool-mb": ["RELAY_MAX_SPOOL_MB", 1024],
  "rate-per-session": ["RELAY_RATE_PER_SESSION", 1000],
  "burst-per-session": ["RELAY_BURST_PER_SESSION", 10_000],
  "failures-per-ip": ["RELAY_FAILURES_PER_IP", 20],
  "failure-burst-per-ip": ["RELAY_FAILURE_BURST_PER_IP", 200],
  "lookups-per-second": ["RELAY_LOOKUPS_PER_SECOND", 200],
  "lookup-burst": ["RELAY_LOOKUP_BURST", 2000],
  "batch-size": ["RELAY_BATCH_SIZE", 1000],
  "batch-ms": ["RELAY_BATCH_MS", 200],
  "max-queue": ["RELAY_MAX_QUEUE", 0],
  "max-queue-mb": ["RELAY_MAX_QUEUE_MB", 64],
  "max-in-flight": ["RELAY_MAX_IN_FLIGHT", 4],
  "key-ttl-ms": ["RELAY_KEY_TTL_MS", 30_000],
  "unknown-ttl-ms": ["RELAY_UNKNOWN_TTL_MS", 2000],
  "recv-buffer-mb": ["RELAY_RECV_BUFFER_MB", 4],
  "shutdown-ms": ["RELAY_SHUTDOWN_MS", 5000],
} as const;

const TEXT = {
  host: ["TELEMETRY_HOST", "0.0.0.0"],
  "worker-url": ["WORKER_URL", "http://127.0.0.1:8787"],
  "metrics-host": ["RELAY_METRICS_HOST", "127.0.0.1"],
  "spool-dir": ["RELAY_SPOOL_DIR", undefined],
  "flight-id-pattern": ["RELAY_FLIGHT_ID_PATTERN", undefined],
} as const;

/** Reads the configuration; `help` when --help was asked for. Throws with a message naming the bad option. */
export function readConfig(argv: string[], env: Record<string, string | undefined>): RelayConfig | "help" {
  const options = readOptions(argv, env, { numeric: NUMERIC, text: TEXT });
  if (options === "help") return "help";
  const { number, text, logLevel } = options;

  const secret = env.RELAY_SECRET;
  if (!secret) throw new Error("RELAY_SECRET is not set: the relay authenticates to the worker with it");
  const batchSize = number("batch-size")!;
  const pattern = text("flight-id-pattern");
  let flightIdPattern = ISSUED_FLIGHT_ID;
  try {
    if (pattern !== undefined) flightIdPattern = new RegExp(pattern);
  } catch {
    throw new Error(`--flight-id-pattern must be a regular expression, not "${pattern}"`);
  }
  if (batchSize < 1 || batchSize > 2000) throw new Error("--batch-size must be 1..2000");
  return {
    port: number("port")!,
    host: text("host")!,
    workerUrl: text("worker-url")!.replace(/\/+$/, ""),
    secret,
    metricsPort: number("metrics-port")!,
    metricsHost: text("metrics-host")!,
    spoolDir: text("spool-dir") ?? path.resolve(env.STATE_DIR ?? ".wrangler/state", "relay-spool"),
    maxSpoolBytes: number("max-spool-mb")! * 1024 * 1024,
    ratePerSession: number("rate-per-session")!,
    burstPerSession: number("burst-per-session")!,
    failuresPerIp: number("failures-per-ip")!,
    failureBurstPerIp: number("failure-burst-per-ip")!,
    lookUpsPerSecond: number("lookups-per-second")!,
    lookUpBurst: number("lookup-burst")!,
    batchSize,
    batchDelayMs: number("batch-ms")!,
    maxQueuedRecords: number("max-queue")!,
    maxQueuedBytes: number("max-queue-mb")! * 1024 * 1024,
    maxInFlight: Math.max(1, number("max-in-flight")!),
    keyTtlMs: number("key-ttl-ms")!,
    unknownTtlMs: number("unknown-ttl-ms")!,
    recvBufferBytes: number("recv-buffer-mb")! * 1024 * 1024,
    shutdownMs: number("shutdown-ms")!,
    logLevel,
    flightIdPattern,
  };
}
