import type { ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseCommandLine } from "./lib/cli";
import { ENV_FILE, ROOT, STATE_DIR, WRANGLER_ENV } from "./lib/config";
import type { Supervised } from "./lib/processes";
import { describeError, namedStep, retryStep, StepFailed } from "./lib/retry";
import { readGroupActivity } from "./lib/runtimeActivity";
import { envFileText } from "./lib/serviceAddress";
import { cronWarningLines, isOidcDevelopmentNotice, startLog } from "./lib/startLog";
import { prepareStaticAssets } from "./lib/staticAssets";
import type { Target } from "./lib/target";

const HELP = `Runs Windsock locally: migrates and seeds local D1/R2, then serves the worker and the relay,
restarting either if it crashes or stops answering (worker /health and relay /metrics probed every
500 ms): one whose processes are gone is restarted at once, one that fails 3 probes in a row while
using no CPU is hung and restarted, one that is busy (using CPU) gets up to 30 s.

Usage: npm start [-- --help]

Environment:
  PORT            HTTP port of the worker on 127.0.0.1 (default 8787)
  TELEMETRY_PORT  UDP port of the telemetry relay (default 16060)
  TELEMETRY_HOST  address the relay binds (default 127.0.0.1; 0.0.0.0 or :: to take datagrams from
                  other machines)
  RELAY_METRICS_PORT  the relay's Prometheus metrics port on 127.0.0.1 (default 9464; when that is taken
                  and this is not set, a free port: the banner and STATE_DIR/services.json say which)
  STATE_DIR       where local D1/R2/Durable Object state lives (default .wrangler/state)
  RATE_LIMIT_PER_MINUTE  requests a minute per API key (default from wrangler.toml)
  ACCOUNT_WORK_LIMIT  "off" lifts the per-account limit on expensive requests (benchmarks)
  STORAGE_TRACE   "1" serves worker/dev/index.ts: each answer counts its storage round trips
                  (x-storage-round-trips), and x-simulated-storage-ms delays them (the latency bench)
  IDP_PORT        port of the development OpenID Provider on 127.0.0.1 (default PORT + 3, or a free
                  port when that is taken): the
                  development application's pilots sign in there (the banner prints the credentials)
  IDP_REDIRECT_URIS  app redirect URIs its client accepts, comma-separated (default the Swift SDK
                  example app's com.airmap.airmapsdk-example-ios://oauth2/airmap)
  TRAFFIC_PORT    the traffic broker's MQTT over TLS port (default 8883, or a free port when taken);
                  TRAFFIC_WS_PORT (MQTT over WebSockets, ws:// in development) and TRAFFIC_FEED_PORT
                  (the worker's position pushes) default to the two after it. TRAFFIC_HOST binds
                  (default 127.0.0.1), TRAFFIC_ADSB_URL / TRAFFIC_SBS read an ADS-B receiver
                  (docs/traffic.md); the development CA is STATE_DIR/traffic-tls/ca.crt
A second copy beside the first: PORT=8788 TELEMETRY_PORT=16061 STATE_DIR=.wrangler/state-2 npm start

Once running, the shell variables every \`npm run\` tool reads (WINDSOCK_URL, WINDSOCK_API_KEY,
WINDSOCK_RELAY) are in .windsock/env, or in $STATE_DIR/env for a copy with its own STATE_DIR:
load them with \`. .windsock/env\`.
Stop with Ctrl-C.`;

// Arguments first, wrangler and the seeders after: `--help` and a mistyped flag answer at once.
parseCommandLine({ help: HELP, options: {} });
const { spawn } = await import("node:child_process");
const [
  { createKey, isLiveKey },
  { ensureDevVars },
  processes,
  { openMigratedLocalTarget },
  { seeders },
  devIdentity,
  trafficBroker,
] = await Promise.all([
  import("./lib/accounts"),
  import("./lib/devVars"),
  import("./lib/processes"),
  import("./lib/target"),
  import("./seed"),
  import("./lib/devIdentityProvider"),
  import("./lib/trafficBroker"),
]);
const {
  DEFAULT_METRICS_PORT,
  echoWithoutProbes,
  HEALTH_FAILURES,
  HEALTH_INTERVAL_MS,
  httpProbe,
  preferredPort,
  relayCommand,
  relayListening,
  relayMetricsPort,
  signalGroup,
  supervise,
} = processes;

const PORT = Number(process.env.PORT ?? 8787);
const TELEMETRY_PORT = Number(process.env.TELEMETRY_PORT ?? 16060);
const TELEMETRY_HOST = process.env.TELEMETRY_HOST || "127.0.0.1";
const DEV_KEY_FILE = path.join(STATE_DIR, "dev-api-key");
/**
 * The development key's application, as the deep-link page names the requester: a partner app's
 * name, not the key's label ("development").
 */
const DEV_APPLICATION_NAME = "Sample Partner App";
const DEV_PILOT_PASSWORD_FILE = path.join(STATE_DIR, "dev-pilot-password");
/** What runs now (pids and bound addresses), for operators and the benchmarks. */
const SERVICES_FILE = path.join(STATE_DIR, "services.json");
const running: Supervised<unknown>[] = [];
const services: Record<string, unknown> = {};

function log(message: string) {
  console.log(`[start] ${message}`);
}

/** Lines `quiet` claims go to the start log instead of the terminal. */
function quietLines(quiet: (line: string) => boolean): (line: string) => boolean {
  return (line) => {
    if (!quiet(line)) return false;
    details.write(line);
    return true;
  };
}

/** What a user cannot act on goes to $STATE_DIR/start.log (the banner says so). */
const details = startLog(STATE_DIR);
const terminalWarn = console.warn;
console.warn = (...args: unknown[]) => {
  if (isOidcDevelopmentNotice(String(args[0]))) details.write(args.map(String).join(" "));
  else terminalWarn(...args);
};

async function main() {
  const startedAt = Date.now();
  mkdirSync(STATE_DIR, { recursive: true });
  const devVars = ensureDevVars();
  log(`state in ${STATE_DIR}`);
  // Independent of the database: the relay's bundle and its metrics port, made meanwhile.
  const bundle = `relay-${createHash("sha256").update(STATE_DIR).digest("hex").slice(0, 12)}`;
  const relayReady = Promise.all([relayCommand(bundle), metricsPort()]);
  const traffic = await trafficBroker.trafficPorts(process.env);

  const baseUrl = `http://127.0.0.1:${PORT}`;
  const identity = await devIdentity.startDevIdentityProvider({
    port: await preferredPort(process.env.IDP_PORT, PORT + 3),
    password: devPilotPassword(),
    redirectUris: [
      `${baseUrl}/create_flight/v1/signed_in`,
      ...devIdentity.appRedirectUris(process.env.IDP_REDIRECT_URIS),
    ],
  });
  // On a busy machine the local platform can drop a request: the whole preparation is tried again on
  // a fresh connection (applied migrations and loaded seeds are kept, so a retry redoes only the rest).
  const { apiKey, devApplication } = await retryStep(
    "preparing the local state",
    () => prepareLocalState(identity),
    { log },
  );
  prepareStaticAssets();
  running.push(await superviseWorker(baseUrl, devApplication, traffic));
  // A bundle starts within a fraction of a second: a crashed relay is back well within 2 s.
  const [relayArgs, firstMetricsPort] = await relayReady;
  const relay = await superviseRelay(baseUrl, devVars, firstMetricsPort, relayArgs);
  running.push(relay);
  const broker = await superviseTraffic(baseUrl, devVars, traffic);
  running.push(broker);
  const bound = relay.first;
  const everywhere = bound.host === "0.0.0.0" || bound.host === "::" ? "   (all interfaces)" : "";
  const relayHost = bound.host === "0.0.0.0" ? "127.0.0.1" : bound.host === "::" ? "::1" : bound.host;
  const relayAddress = `${relayHost.includes(":") ? `[${relayHost}]` : relayHost}:${bound.port}`;
  mkdirSync(path.dirname(ENV_FILE), { recursive: true });
  writeFileSync(
    ENV_FILE,
    envFileText({
      url: baseUrl,
      apiKey,
      relay: relayAddress,
      stateDir: STATE_DIR,
      pilot: { username: identity.username, password: devPilotPassword() },
    }) + trafficBroker.trafficEnvText(broker.first, STATE_DIR),
    {
      mode: 0o600,
    },
  );
  const envFile = path.relative(process.cwd(), ENV_FILE) || ENV_FILE;
  console.log(`
Windsock is running
  API          ${baseUrl}   (front page: ${baseUrl}/, docs: ${baseUrl}/docs)
  Telemetry    udp://${bound.host.includes(":") ? `[${bound.host}]` : bound.host}:${bound.port}${everywhere}   (relay metrics: http://127.0.0.1:${bound.metricsPort}/metrics)
  API key      ${apiKey}
  Traffic      mqtts://127.0.0.1:${broker.first.port}   (MQTT over TLS; WebSockets ws://127.0.0.1:${broker.first.wsPort}/mqtt)
               trust the development CA ${trafficBroker.devCaFile(STATE_DIR)} (docs/traffic.md)
  Pilot login  ${identity.issuer} (OpenID Provider)   user ${identity.username}  password ${devPilotPassword()}
Started in ${seconds(startedAt)}. A crashed worker or relay is restarted; while the relay is down nothing
listens on the telemetry port. Notes for developers only: ${shortPath(details.file)}
In another shell: . ${envFile.startsWith(".") || path.isAbsolute(envFile) ? envFile : `./${envFile}`}   (WINDSOCK_URL, WINDSOCK_API_KEY, WINDSOCK_RELAY)
`);
}

/** Migrations, seeds, the development key and its trust in the development provider; the key. */
async function prepareLocalState(identity: Awaited<ReturnType<typeof devIdentity.startDevIdentityProvider>>) {
  const target = await namedStep("applying the D1 migrations", () => openMigratedLocalTarget(log));
  try {
    // Elevation writes R2 and airspace D1: the two load side by side (both end before the target closes).
    const seeded = await Promise.allSettled(
      seeders.map((seeder) =>
        namedStep(`seeding ${seeder.name}`, async () => {
          const started = Date.now();
          await seeder.run(
            target,
            (m) => log(`${seeder.name}: ${m}`),
            (m) => details.write(`${seeder.name}: ${m}`),
          );
          log(`${seeder.name}: ready in ${seconds(started)}`);
        }),
      ),
    );
    const failed = seeded.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    const apiKey = await namedStep("minting the development key", () => developmentKey(target));
    const devApplication = await namedStep("trusting the development OpenID provider", () =>
      trustIdentityProvider(target, apiKey, identity),
    );
    return { apiKey, devApplication };
  } finally {
    await target.close().catch(() => {});
  }
}

/** A path relative to here when it lies below, else absolute. */
const shortPath = (file: string) => {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith("..") ? file : relative;
};

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** The development key survives restarts (kept in STATE_DIR) and is minted again if revoked. */
async function developmentKey(target: Target): Promise<string> {
  if (existsSync(DEV_KEY_FILE)) {
    const saved = readFileSync(DEV_KEY_FILE, "utf8").trim();
    if (saved && (await isLiveKey(target, saved))) return saved;
  }
  const created = await createKey(target, { name: "development", accountName: DEV_APPLICATION_NAME });
  writeFileSync(DEV_KEY_FILE, `${created.apiKey}\n`, { mode: 0o600 });
  return created.apiKey;
}

/** The development pilot's password: made once, kept in STATE_DIR, printed by the banner. */
function devPilotPassword(): string {
  if (!existsSync(DEV_PILOT_PASSWORD_FILE))
    writeFileSync(DEV_PILOT_PASSWORD_FILE, `${randomBytes(12).toString("base64url")}\n`, { mode: 0o600 });
  return readFileSync(DEV_PILOT_PASSWORD_FILE, "utf8").trim();
}

/**
 * The development key's application trusts the development provider (its port may have changed), under
 * its own name.
 */
async function trustIdentityProvider(
  target: Target,
  apiKey: string,
  identity: Awaited<ReturnType<typeof devIdentity.startDevIdentityProvider>>,
) {
  const [{ toolDb }, { findAccountByKeyHash, renameAccount }, { sha256Hex }] = await Promise.all([
    import("./lib/db"),
    import("../worker/store/accounts"),
    import("../worker/lib/hash"),
  ]);
  const db = toolDb(target);
  const account = await findAccountByKeyHash(db, await sha256Hex(apiKey));
  if (!account) throw new Error("the development key has no account");
  // A state made before the application had its own name kept the key's label as the account's.
  if (account.name !== DEV_APPLICATION_NAME) await renameAccount(db, account.id, DEV_APPLICATION_NAME);
  await devIdentity.trustDevProvider(db, account.id, identity);
  log(`identity provider: ${identity.issuer} (${identity.clientId}) trusted by ${account.publicId}`);
  return account.publicId;
}

/** The relay's metrics port (relayMetricsPort): fixed 9464 unless set, or taken by another copy. */
async function metricsPort(): Promise<number> {
  const port = await relayMetricsPort(process.env);
  if (port === 0)
    log(`metrics port ${DEFAULT_METRICS_PORT} is taken (another copy?); the relay picks a free one`);
  return port;
}

function record(name: string, value: unknown) {
  services[name] = value;
  // Written aside and renamed: a reader never sees half a file.
  writeFileSync(`${SERVICES_FILE}.tmp`, `${JSON.stringify(services, null, 2)}\n`);
  renameSync(`${SERVICES_FILE}.tmp`, SERVICES_FILE);
}

/** `loginApplication`: the SDK sign-ins that name no application sign in to the development one. */
function superviseWorker(
  baseUrl: string,
  loginApplication: string,
  traffic: { feedPort: number; wsPort: number },
) {
  const args = [
    "dev",
    // The worker with its storage calls counted and delayable (worker/dev/index.ts): tests and
    // benches. Before the options: `--var` would take a path after it for another variable.
    ...(process.env.STORAGE_TRACE === "1" ? ["worker/dev/index.ts"] : []),
    "--ip=127.0.0.1",
    `--port=${PORT}`,
    `--persist-to=${STATE_DIR}`,
    "--inspector-port=0",
    "--show-interactive-dev-session=false",
    `--log-level=${process.env.WRANGLER_LOG ?? "info"}`,
    `--var=SDK_LOGIN_APPLICATION:${loginApplication}`,
  ];
  // Each flight's Durable Object pushes its latest position to the traffic broker's feed.
  // …and the live page shows nearby traffic from the broker's WebSocket.
  args.push(`--var=TRAFFIC_FEED_URL:http://127.0.0.1:${traffic.feedPort}`);
  args.push(`--var=TRAFFIC_WS_URL:ws://127.0.0.1:${traffic.wsPort}/mqtt`);
  // Live flights announce their ISAs in the service's own DSS (the default) with this address.
  args.push(`--var=RID_USS_BASE_URL:${baseUrl}/rid/v2`);
  if (process.env.RATE_LIMIT_PER_MINUTE)
    args.push(`--var=RATE_LIMIT_PER_MINUTE:${process.env.RATE_LIMIT_PER_MINUTE}`);
  if (process.env.ACCOUNT_WORK_LIMIT) args.push(`--var=ACCOUNT_WORK_LIMIT:${process.env.ACCOUNT_WORK_LIMIT}`);
  return supervise({
    name: "worker",
    spawn: () => {
      const child = spawn(path.join(ROOT, "node_modules/.bin/wrangler"), args, {
        cwd: ROOT,
        env: WRANGLER_ENV,
        stdio: ["ignore", "pipe", "pipe"],
        // Its own process group, so stopping it also stops the workerd processes it starts.
        detached: true,
      });
      if (child.stdout) echoWithoutProbes(child.stdout, process.stdout, quietLines(cronWarningLines()));
      if (child.stderr) echoWithoutProbes(child.stderr, process.stderr, quietLines(cronWarningLines()));
      // wrangler's own restart of a crashed runtime left the API hung: restart all of it at once,
      // without waiting for the health probes.
      child.stderr?.on("data", (chunk: Buffer) => {
        if (/Workers runtime crashed/.test(chunk.toString())) {
          log("the worker's runtime crashed; restarting wrangler");
          signalGroup(child, "SIGKILL");
        }
      });
      return child;
    },
    ready: (child) => waitForHealth(baseUrl, child),
    log,
    // wrangler outlives a killed workerd (it kept saying "Updated and ready"): probe the API itself.
    health: {
      probe: httpProbe(`${baseUrl}/health`, "HEAD"),
      intervalMs: HEALTH_INTERVAL_MS,
      failures: HEALTH_FAILURES,
      // Busy is not hung: the workerd processes wrangler started (its group) and their CPU.
      activity: (child) => (child.pid === undefined ? null : readGroupActivity(child.pid, "workerd")),
    },
    onReady: (_info, child, restarts) => {
      record("worker", { pid: child.pid, url: baseUrl });
      if (restarts > 0) log(`worker serves again on ${baseUrl} (restart ${restarts})`);
    },
  });
}

/** The telemetry relay beside the worker; it fetches session keys from the worker's internal API. */
function superviseRelay(
  baseUrl: string,
  devVars: Record<string, string>,
  firstMetricsPort: number,
  relayArgs: string[],
) {
  let metrics = firstMetricsPort;
  let crashedAt = 0;
  return supervise({
    name: "relay",
    spawn: () => {
      crashedAt = Date.now();
      return spawn(process.execPath, relayArgs, {
        cwd: ROOT,
        // The spool lives under STATE_DIR; the other RELAY_* settings pass through.
        env: {
          ...process.env,
          RELAY_SECRET: devVars.RELAY_SECRET,
          WORKER_URL: baseUrl,
          TELEMETRY_PORT: String(TELEMETRY_PORT),
          TELEMETRY_HOST,
          RELAY_METRICS_PORT: String(metrics),
          STATE_DIR,
        },
        stdio: ["ignore", "pipe", "inherit"],
        detached: true,
      });
    },
    ready: (child) => relayListening(child, (line) => process.stdout.write(`${line}\n`)),
    log,
    // Its metrics endpoint is served by the same event loop as its UDP socket: a hung relay stops answering.
    health: {
      probe: () => httpProbe(`http://127.0.0.1:${metrics}/metrics`)(),
      intervalMs: HEALTH_INTERVAL_MS,
      failures: HEALTH_FAILURES,
      activity: (child) => (child.pid === undefined ? null : readGroupActivity(child.pid)),
    },
    onReady: (bound, child, restarts) => {
      // Restarts keep the metrics port the first start got.
      metrics = bound.metricsPort;
      record("relay", {
        pid: child.pid,
        host: bound.host,
        port: bound.port,
        metrics_port: bound.metricsPort,
      });
      if (restarts > 0)
        log(
          `relay serves again on udp://${bound.host}:${bound.port}, ${Date.now() - crashedAt} ms after its restart began (restart ${restarts})`,
        );
    },
  });
}

/** The traffic broker (relay/traffic/) beside the relay: tools/lib/trafficBroker.ts. */
function superviseTraffic(
  baseUrl: string,
  devVars: Record<string, string>,
  ports: Awaited<ReturnType<typeof trafficBroker.trafficPorts>>,
) {
  return trafficBroker.superviseTraffic(
    {
      workerUrl: baseUrl,
      secret: devVars.RELAY_SECRET!,
      stateDir: STATE_DIR,
      ...ports,
      host: process.env.TRAFFIC_HOST || "127.0.0.1",
    },
    log,
    (bound, child, restarts) => {
      record("traffic", {
        pid: child.pid,
        port: bound.port,
        ws_port: bound.wsPort,
        feed_port: bound.feedPort,
      });
      if (restarts > 0) log(`traffic broker serves again on ${bound.port} (restart ${restarts})`);
    },
  );
}

async function waitForHealth(baseUrl: string, child: ChildProcess) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the worker exited (${child.signalCode ?? child.exitCode}) before it answered`);
    try {
      const res = await fetch(`${baseUrl}/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the worker did not answer on ${baseUrl}/health within 120 s`);
}

let shuttingDown = false;
function shutdown(code: number) {
  if (shuttingDown) return;
  shuttingDown = true;
  // SIGTERM lets the relay flush its queue to the spool; what still runs after the grace is killed.
  setTimeout(() => process.exit(code), 9000).unref();
  Promise.allSettled(running.map((service) => service.stop("SIGTERM", 8000))).then(() => process.exit(code));
}
// First in line: a handler that wrangler's import installs exits the process at once, which would
// orphan the worker and the relay (and keep their ports).
process.prependListener("SIGINT", () => shutdown(0));
process.prependListener("SIGTERM", () => shutdown(0));

main().catch((err) => {
  // A step's failure names the step, its causes and what to do; anything else at least its causes.
  console.error(`[start] ${err instanceof StepFailed ? err.message : describeError(err)}`);
  shutdown(1);
});
