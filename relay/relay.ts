import { createSocket } from "node:dgram";
import type { AddressInfo } from "node:net";
import { telemetrySchema } from "../proto/messages";
import type { RelayConfig } from "./config";
import { Forwarder } from "./forwarder";
import { Intake } from "./intake";
import { KeyCache } from "./keyCache";
import type { Log } from "./log";
import { Gauge, relayMetrics, serveMetrics } from "./metrics";
import { SourceFailures } from "./rateLimit";
import { SessionGuards } from "./sessionGuard";
import { Spool } from "./spool";
import { WorkerClient } from "./workerClient";

const SWEEP_MS = 10_000;
const KEY_CACHE_ENTRIES = 100_000;
const MAX_PENDING_KEY_FETCHES = 64;
/** Sessions with replay memory at most (the least recently active go first)… */
const MAX_SESSIONS = 50_000;
/** …and datagram identities remembered across them (16 bytes each): 64 MB. */
const MAX_REMEMBERED_DATAGRAMS = 4_194_304;
const RETRY_BASE_MS = 250;
const RETRY_MAX_MS = 30_000;

export interface RunningRelay {
  port: number;
  metricsPort: number;
  /** Stops intake, posts or spools everything accepted, and frees the ports. */
  close(): Promise<void>;
}

/** Assembles the relay from its configuration and starts receiving. */
export async function startRelay(config: RelayConfig, log: Log): Promise<RunningRelay> {
  const metrics = relayMetrics();
  const worker = new WorkerClient(config.workerUrl, config.secret);
  const keys = new KeyCache(
    (flightId) => worker.fetchSession(flightId),
    {
      ttlMs: config.keyTtlMs,
      negativeTtlMs: config.unknownTtlMs,
      retryAfterMs: 1000,
      maxEntries: KEY_CACHE_ENTRIES,
      maxPendingFetches: MAX_PENDING_KEY_FETCHES,
      lookUpsPerSecond: config.lookUpsPerSecond,
      lookUpBurst: config.lookUpBurst,
    },
    (result) => metrics.keyFetches.inc({ result }),
  );
  const spool = new Spool(config.spoolDir, config.maxSpoolBytes);
  const forwarder = new Forwarder(
    (batch) => worker.postBatch(batch),
    spool,
    {
      batchSize: config.batchSize,
      batchDelayMs: config.batchDelayMs,
      maxQueuedRecords: config.maxQueuedRecords,
      maxQueuedBytes: config.maxQueuedBytes,
      maxInFlight: config.maxInFlight,
      retryBaseMs: RETRY_BASE_MS,
      retryMaxMs: RETRY_MAX_MS,
    },
    metrics,
    log,
    (flightIds) => {
      for (const flightId of flightIds) keys.evict(flightId);
    },
  );
  const sources = new SourceFailures(config.failuresPerIp, config.failureBurstPerIp);
  const guards = new SessionGuards({
    perSecond: config.ratePerSession,
    burst: config.burstPerSession,
    maxSessions: MAX_SESSIONS,
    maxIds: MAX_REMEMBERED_DATAGRAMS,
  });
  const intake = new Intake({
    schema: telemetrySchema,
    flightIds: config.flightIdPattern,
    keys,
    sources,
    guards,
    forward: (flightId, sessionId, row, datagram, start, end) =>
      forwarder.enqueue(flightId, sessionId, row, datagram, start, end),
    metrics,
    log,
  });

  const gauges: [string, string, () => number][] = [
    [
      "windsock_relay_queue_records",
      "Records in memory, not yet acknowledged by the worker",
      () => forwarder.queuedRecords,
    ],
    [
      "windsock_relay_queue_bytes",
      "JSON text of the records in memory, in bytes (spilled to the spool beyond --max-queue-mb)",
      () => forwarder.queuedBytes,
    ],
    ["windsock_relay_spool_batches", "Batches waiting in the on-disk spool", () => spool.batches],
    ["windsock_relay_spool_records", "Records waiting in the on-disk spool", () => spool.records],
    ["windsock_relay_spool_bytes", "Size of the on-disk spool", () => spool.bytes],
    ["windsock_relay_key_cache_entries", "Flights whose session (or its absence) is cached", () => keys.size],
    ["windsock_relay_sessions", "Sessions with replay memory and a rate limit", () => intake.sessions],
    [
      "windsock_relay_remembered_datagrams",
      "Datagram identities remembered across sessions, to drop replays",
      () => guards.ids,
    ],
    ["windsock_relay_key_lookups_waiting", "Key look-ups waiting for a free slot", () => keys.waiting],
    [
      "windsock_relay_failing_sources",
      "Source addresses that sent failing datagrams lately (partly used failure budget)",
      () => sources.size,
    ],
    [
      "process_resident_memory_bytes",
      "Resident memory of the relay process",
      () => process.memoryUsage.rss(),
    ],
    ["nodejs_heap_size_used_bytes", "V8 heap in use", () => process.memoryUsage().heapUsed],
  ];
  for (const [name, help, read] of gauges) metrics.registry.add(new Gauge(name, help, read));

  const metricsServer = await serveMetrics(metrics.registry, config.metricsPort, config.metricsHost);
  const socket = createSocket({
    type: config.host.includes(":") ? "udp6" : "udp4",
    recvBufferSize: config.recvBufferBytes,
  });
  socket.on("message", (datagram, source) => intake.handle(datagram, source.address));
  socket.on("error", (err) => log.error("socket error", { error: String(err) }));
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(config.port, config.host, () => {
      socket.off("error", reject);
      resolve();
    });
  });
  forwarder.start();
  const sweeper = setInterval(() => sources.sweep(Date.now()), SWEEP_MS).unref();

  const port = socket.address().port;
  const metricsPort = (metricsServer.address() as AddressInfo).port;
  log.info("listening", {
    port,
    host: config.host,
    metrics_port: metricsPort,
    worker_url: config.workerUrl,
    spool_dir: config.spoolDir,
    recv_buffer_bytes: socket.getRecvBufferSize(),
  });

  return {
    port,
    metricsPort,
    async close() {
      clearInterval(sweeper);
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      intake.flush();
      await forwarder.close(Date.now() + config.shutdownMs);
      await new Promise((resolve) => metricsServer.close(resolve));
    },
  };
}
