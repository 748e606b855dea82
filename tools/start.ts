import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createKey, isLiveKey } from "./lib/accounts";
import { parseArgs, ROOT, STATE_DIR, WRANGLER_ENV } from "./lib/config";
import { ensureDevVars } from "./lib/devVars";
import { applyMigrations, openTarget } from "./lib/target";
import { seeders } from "./seed";

const HELP = `Runs Windsock locally: migrates and seeds local D1/R2, then serves the worker and the relay.

Usage: npm start [-- --help]

Environment:
  PORT            HTTP port of the worker on 127.0.0.1 (default 8787)
  TELEMETRY_PORT  UDP port of the telemetry relay (default 16060)
  RELAY_METRICS_PORT  the relay's Prometheus metrics port on TCP (default: TELEMETRY_PORT's number)
  STATE_DIR       where local D1/R2/Durable Object state lives (default .wrangler/state)
  RATE_LIMIT_PER_MINUTE  requests a minute per API key (default from wrangler.toml)
Stop with Ctrl-C.`;

const PORT = Number(process.env.PORT ?? 8787);
const TELEMETRY_PORT = Number(process.env.TELEMETRY_PORT ?? 16060);
// Metrics are TCP, telemetry UDP: the same number keeps two copies with different TELEMETRY_PORT apart.
const RELAY_METRICS_PORT = Number(process.env.RELAY_METRICS_PORT ?? TELEMETRY_PORT);
const DEV_KEY_FILE = path.join(STATE_DIR, "dev-api-key");
const children: ChildProcess[] = [];

function log(message: string) {
  console.log(`[start] ${message}`);
}

async function main() {
  if (parseArgs(process.argv.slice(2)).flags.has("help")) {
    console.log(HELP);
    return;
  }
  mkdirSync(STATE_DIR, { recursive: true });
  const devVars = ensureDevVars();
  log(`state in ${STATE_DIR}`);
  log("applying D1 migrations");
  await applyMigrations({ remote: false });

  const target = await openTarget({ remote: false });
  let apiKey: string;
  try {
    for (const seeder of seeders) {
      const started = Date.now();
      await seeder.run(target, (m) => log(`${seeder.name}: ${m}`));
      log(`${seeder.name}: ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    apiKey = await developmentKey(target);
  } finally {
    await target.close();
  }

  const baseUrl = `http://127.0.0.1:${PORT}`;
  startWorker();
  await waitForHealth(baseUrl);
  startRelay(baseUrl, devVars);
  console.log(`
Windsock is running
  API          ${baseUrl}   (docs: ${baseUrl}/docs)
  Telemetry    udp://127.0.0.1:${TELEMETRY_PORT}   (relay metrics: http://127.0.0.1:${RELAY_METRICS_PORT}/metrics)
  API key      ${apiKey}
Try: curl -X POST -H 'X-API-Key: ${apiKey}' -H 'Content-Type: application/json' \\
       -d '{"user_id":"me"}' ${baseUrl}/auth/v1/anonymous/token
`);
}

/** The development key survives restarts (kept in STATE_DIR) and is minted again if revoked. */
async function developmentKey(target: Awaited<ReturnType<typeof openTarget>>): Promise<string> {
  if (existsSync(DEV_KEY_FILE)) {
    const saved = readFileSync(DEV_KEY_FILE, "utf8").trim();
    if (saved && (await isLiveKey(target, saved))) return saved;
  }
  const created = await createKey(target, { name: "development" });
  writeFileSync(DEV_KEY_FILE, `${created.apiKey}\n`, { mode: 0o600 });
  return created.apiKey;
}

function startWorker() {
  const args = [
    "dev",
    "--ip=127.0.0.1",
    `--port=${PORT}`,
    `--persist-to=${STATE_DIR}`,
    "--inspector-port=0",
    "--show-interactive-dev-session=false",
    `--log-level=${process.env.WRANGLER_LOG ?? "info"}`,
  ];
  if (process.env.RATE_LIMIT_PER_MINUTE)
    args.push(`--var=RATE_LIMIT_PER_MINUTE:${process.env.RATE_LIMIT_PER_MINUTE}`);
  const worker = spawn(path.join(ROOT, "node_modules/.bin/wrangler"), args, {
    cwd: ROOT,
    env: WRANGLER_ENV,
    stdio: ["ignore", "inherit", "inherit"],
    // Its own process group, so stopping it also stops the workerd processes it starts.
    detached: true,
  });
  watch(worker, "worker");
}

/** The telemetry relay beside the worker; it fetches session keys from the worker's internal API. */
function startRelay(baseUrl: string, devVars: Record<string, string>) {
  const relay = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "relay/main.ts")], {
    cwd: ROOT,
    // The spool lives under STATE_DIR; the other RELAY_* settings pass through.
    env: {
      ...process.env,
      RELAY_SECRET: devVars.RELAY_SECRET,
      WORKER_URL: baseUrl,
      TELEMETRY_PORT: String(TELEMETRY_PORT),
      RELAY_METRICS_PORT: String(RELAY_METRICS_PORT),
      STATE_DIR,
    },
    stdio: ["ignore", "inherit", "inherit"],
    detached: true,
  });
  watch(relay, "relay");
}

function watch(child: ChildProcess, name: string) {
  children.push(child);
  child.on("exit", (code, signal) => {
    if (shuttingDown) return;
    console.error(`[start] ${name} exited (${signal ?? code}); stopping`);
    shutdown(1);
  });
}

async function waitForHealth(baseUrl: string) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
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

/** Signals a child's whole process group (children are started detached, as group leaders). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

let shuttingDown = false;
function shutdown(code: number) {
  if (shuttingDown) return;
  shuttingDown = true;
  // SIGTERM lets the relay flush its queue to the spool; what still runs after the grace is killed.
  for (const child of children) signalGroup(child, "SIGTERM");
  setTimeout(() => {
    for (const child of children) signalGroup(child, "SIGKILL");
    process.exit(code);
  }, 8000).unref();
  Promise.all(
    children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.on("exit", r)))),
  ).then(() => process.exit(code));
}
// First in line: a handler that wrangler's import installs exits the process at once, which would
// orphan the worker and the relay (and keep their ports).
process.prependListener("SIGINT", () => shutdown(0));
process.prependListener("SIGTERM", () => shutdown(0));

main().catch((err) => {
  console.error(`[start] ${err instanceof Error ? err.message : String(err)}`);
  shutdown(1);
});
