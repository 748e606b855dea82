import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import path from "node:path";
import { ROOT, WRANGLER_ENV } from "../../tools/lib/config";
import { ensureDevVars } from "../../tools/lib/devVars";
import { inline, wrangler } from "../../tools/lib/target";
import { sha256Hex } from "../../worker/lib/hash";
import { newId, randomBase62 } from "../../worker/lib/ids";

/** Real processes for end-to-end tests: `wrangler dev` serving the worker, and the relay. */

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** Migrates a fresh local state directory and mints an API key in it. */
export async function prepareState(stateDir: string): Promise<{ apiKey: string }> {
  const persist = `--persist-to=${stateDir}`;
  await wrangler(["d1", "migrations", "apply", "windsock", "--local", persist]);
  const apiKey = `wsk_${randomBase62(40)}`;
  const accountId = newId("account");
  const now = Date.now();
  const statements = [
    {
      sql: "INSERT INTO accounts (id, public_id, name, rate_limit_per_minute, created_at) VALUES (?, ?, ?, ?, ?)",
      params: [accountId, `app_${randomBase62(12)}`, "e2e", 1_000_000, now],
    },
    {
      sql: "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      params: [newId("key"), accountId, "e2e", await sha256Hex(apiKey), apiKey.slice(0, 10), now],
    },
  ];
  await wrangler([
    "d1",
    "execute",
    "windsock",
    "--local",
    persist,
    `--command=${statements.map(inline).join(";")}`,
  ]);
  return { apiKey };
}

export interface Process {
  child: ChildProcess;
  output: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function track(child: ChildProcess): Process {
  const output: string[] = [];
  const exited = once(child, "exit").then(([code]) => code as number | null);
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => output.push(...chunk.split("\n").filter(Boolean)));
  }
  return {
    child,
    output,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** `wrangler dev` on the given port and state, with the development secrets of .dev.vars. */
export async function startWorker(stateDir: string, port: number): Promise<Process & { baseUrl: string }> {
  ensureDevVars();
  const child = spawn(
    path.join(ROOT, "node_modules/.bin/wrangler"),
    [
      "dev",
      "--ip=127.0.0.1",
      `--port=${port}`,
      `--persist-to=${stateDir}`,
      "--inspector-port=0",
      "--show-interactive-dev-session=false",
      "--log-level=warn",
    ],
    { cwd: ROOT, env: WRANGLER_ENV, stdio: ["ignore", "pipe", "pipe"] },
  );
  const worker = track(child);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`wrangler dev exited: ${worker.output.slice(-20).join("\n")}`);
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) return { ...worker, baseUrl };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`wrangler dev did not answer: ${worker.output.slice(-20).join("\n")}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The relay as a process, on free ports; resolves once it logs that it is listening. */
export async function startRelay(
  workerUrl: string,
  spoolDir: string,
  flags: string[] = [],
): Promise<Process & { port: number; metricsPort: number }> {
  const { RELAY_SECRET } = ensureDevVars();
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "relay/main.ts",
      "--port=0",
      "--host=127.0.0.1",
      "--metrics-port=0",
      `--worker-url=${workerUrl}`,
      `--spool-dir=${spoolDir}`,
      ...flags,
    ],
    { cwd: ROOT, env: { ...process.env, RELAY_SECRET }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const relay = track(child);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const listening = relay.output.map(parseLog).find((line) => line?.msg === "listening");
    if (listening)
      return { ...relay, port: listening.port as number, metricsPort: listening.metrics_port as number };
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`the relay did not start: ${relay.output.join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function parseLog(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** The relay's metrics as `name{labels}` → value. */
export async function scrape(metricsPort: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    values.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return values;
}
