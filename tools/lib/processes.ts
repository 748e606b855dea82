import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { ROOT } from "./config";
import { type ActivitySample, INITIAL_PROBE_STATE, judgeProbe } from "./runtimeActivity";

/** Child processes that benchmarks and end-to-end tests start and stop: the relay above all. */

export interface Process {
  child: ChildProcess;
  /** Lines of stdout and stderr so far. */
  output: string[];
  /** Signals the process (SIGTERM unless told) and resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function track(child: ChildProcess): Process {
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

export interface RelayProcess extends Process {
  port: number;
  metricsPort: number;
}

/** Starts the relay as npm start runs it (relayCommand) on free ports (UDP and metrics); resolves once it listens. */
export async function startRelayProcess(options: {
  workerUrl: string;
  secret: string;
  spoolDir: string;
  flags?: string[];
}): Promise<RelayProcess> {
  // RELAY_CPU_PROFILE_DIR: each relay a bench starts writes a V8 CPU profile there when it stops
  // (node --cpu-prof; open it in Chrome DevTools' Performance panel).
  const profile = process.env.RELAY_CPU_PROFILE_DIR;
  const args = [
    ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : []),
    ...(await relayCommand(`relay-${process.pid}`)),
    "--port=0",
    "--host=127.0.0.1",
    "--metrics-port=0",
    `--worker-url=${options.workerUrl}`,
    `--spool-dir=${options.spoolDir}`,
    ...(options.flags ?? []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, RELAY_SECRET: options.secret },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const relay = track(child);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const listening = relay.output.map(parseLine).find((line) => line?.msg === "listening");
    if (listening)
      return { ...relay, port: listening.port as number, metricsPort: listening.metrics_port as number };
    if (child.exitCode !== null || Date.now() > deadline) {
      await relay.stop();
      throw new Error(`the relay did not start:\n${relay.output.join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** The relay's metrics as `name{labels}` → value. */
export async function scrapeMetrics(metricsPort: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    values.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return values;
}

/** Signals a child's whole process group (children started detached lead their own group). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

export interface SuperviseOptions<T> {
  name: string;
  /** Starts the child (detached, so that its group can be signalled). */
  spawn: () => ChildProcess;
  /** Resolves once the child serves, with what it reports; rejects when it cannot. */
  ready: (child: ChildProcess) => Promise<T>;
  log: (message: string) => void;
  /** Called each time a child serves: after the first start and after every restart. */
  onReady?: (info: T, child: ChildProcess, restarts: number) => void;
  /** Waits before restarting a child that crashed again soon after its start (ms), growing per crash. */
  delays?: number[];
  /**
   * Supervision by health, not only by process: once the child serves, `probe` runs every
   * `intervalMs`; when probes fail (false, an error or a time-out the probe sets), `activity` tells
   * a busy child from a dead or hung one (runtimeActivity.ts judgeProbe), and the child's whole
   * group is killed and restarted as after a crash only when it is gone, hung for `failures` probes
   * in a row, or busy without answering for BUSY_CEILING_MS. A process can outlive its service:
   * wrangler kept saying "Updated and ready" after its workerd was killed.
   */
  health?: HealthCheck;
}

export interface HealthCheck {
  probe: () => Promise<boolean>;
  intervalMs: number;
  failures: number;
  /** The CPU of the processes that serve (null where it cannot be read): busy is not hung. */
  activity?: (child: ChildProcess) => ActivitySample | null;
}

/** npm start's probes: every 500 ms, restarted after 3 failures in a row (each probe times out after 1 s). */
export const HEALTH_INTERVAL_MS = 500;
export const HEALTH_FAILURES = 3;
export const HEALTH_TIMEOUT_MS = 1000;

/**
 * A probe that an HTTP URL answers 2xx within HEALTH_TIMEOUT_MS. npm start probes the worker with
 * HEAD, so the runtime's request log can tell its probes (twice a second) from a user's GET.
 */
export function httpProbe(url: string, method: "GET" | "HEAD" = "GET"): () => Promise<boolean> {
  return async () => {
    const res = await fetch(url, { method, signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    await res.body?.cancel();
    return res.ok;
  };
}

/** wrangler's request log line for one of npm start's own probes (HEAD /health), colours aside. */
export const isProbeLogLine = (line: string) =>
  /^\[wrangler:info\] HEAD \/health 200 /.test(stripVTControlCharacters(line));

/**
 * Copies a child's output to `out` line by line, leaving out the request log of npm start's own
 * health probes: two lines a second would bury every request a user makes.
 */
export function echoWithoutProbes(
  stream: Readable,
  out: Writable = process.stdout,
  /** Lines taken elsewhere (true: not echoed). */
  elsewhere: (line: string) => boolean = () => false,
): void {
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
    if (!isProbeLogLine(line) && !elsewhere(line)) out.write(`${line}\n`);
  });
}

export interface Supervised<T> {
  /** What the first child reported once it served. */
  first: T;
  readonly child: ChildProcess;
  readonly restarts: number;
  /** Stops restarting, sends `signal` to the child's group, and SIGKILL after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

/** A child that ran this long before it crashed is restarted at once, whatever came before. */
const STABLE_MS = 10_000;

/**
 * Keeps a child running: started once (failing to serve the first time is the caller's error, e.g. a
 * port in use), then restarted whenever it exits unasked: at once after a crash of a child that ran a
 * while, after growing pauses while it keeps crashing right after its start.
 */
export async function supervise<T>(options: SuperviseOptions<T>): Promise<Supervised<T>> {
  const delays = options.delays ?? [0, 500, 1000, 2000, 5000, 10_000];
  let child: ChildProcess;
  let restarts = 0;
  let quickCrashes = 0;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let startedAt = 0;

  const start = (): ChildProcess => {
    startedAt = Date.now();
    const current = options.spawn();
    child = current;
    current.on("exit", (code, signal) => {
      if (stopping || current !== child) return;
      // What it started may outlive it (wrangler's workerd, holding the port): its group goes too.
      try {
        if (current.pid !== undefined) process.kill(-current.pid, "SIGKILL");
      } catch {
        // no process left in the group
      }
      quickCrashes = Date.now() - startedAt >= STABLE_MS ? 0 : quickCrashes + 1;
      const delay = delays[Math.min(Math.max(quickCrashes - 1, 0), delays.length - 1)]!;
      options.log(`${options.name} exited (${signal ?? code}); restarting${delay ? ` in ${delay} ms` : ""}`);
      timer = setTimeout(() => {
        restarts++;
        const next = start();
        options.ready(next).then(
          (info) => {
            watchHealth(next);
            options.onReady?.(info, next, restarts);
          },
          (err) => options.log(`${options.name} did not come back: ${(err as Error).message}`),
        );
      }, delay);
    });
    return current;
  };

  /** Probes `current` while it is the child; kills its group when it stops answering. */
  const watchHealth = (current: ChildProcess) => {
    const health = options.health;
    if (!health) return;
    let state = INITIAL_PROBE_STATE;
    let wasBusy = false;
    let probing = false;
    const timer = setInterval(async () => {
      if (stopping || current !== child || current.exitCode !== null || current.signalCode !== null) {
        clearInterval(timer);
        return;
      }
      if (probing) return;
      probing = true;
      const ok = await health.probe().catch(() => false);
      probing = false;
      const sample = health.activity?.(current) ?? null;
      const judged = judgeProbe(state, ok, sample, health.failures);
      if (judged.verdict === "busy" && !wasBusy)
        options.log(`${options.name} is busy (no answer to its health probe, but it uses CPU); waiting`);
      wasBusy = judged.verdict === "busy" || (wasBusy && judged.verdict === "waiting");
      state = judged.state;
      if (judged.verdict !== "restart" || stopping || current !== child) return;
      clearInterval(timer);
      const why =
        sample?.processes === 0
          ? "its runtime's processes are gone"
          : state.stalled >= health.failures
            ? `failed ${state.stalled} health probes in a row`
            : `has not answered its health probe for ${Math.round((Date.now() - state.failingSince!) / 1000)} s while busy`;
      options.log(`${options.name} ${why}; killing it to restart it`);
      signalGroup(current, "SIGKILL");
    }, health.intervalMs);
    timer.unref();
  };

  const first = start();
  let info: T;
  try {
    info = await options.ready(first);
  } catch (err) {
    // Not serving the first time is a setup error (a port in use, bad settings): no restarts.
    stopping = true;
    clearTimeout(timer);
    signalGroup(first, "SIGKILL");
    throw err;
  }
  watchHealth(first);
  options.onReady?.(info, first, 0);
  return {
    first: info,
    get child() {
      return child;
    },
    get restarts() {
      return restarts;
    },
    async stop(signal = "SIGTERM", graceMs = 8000) {
      stopping = true;
      clearTimeout(timer);
      const current = child;
      if (current.exitCode !== null || current.signalCode !== null) return;
      const exited = once(current, "exit");
      signalGroup(current, signal);
      const kill = setTimeout(() => signalGroup(current, "SIGKILL"), graceMs);
      await exited;
      clearTimeout(kill);
    },
  };
}

/** What the relay logs once it listens: its UDP address and metrics port. */
export interface RelayListening {
  host: string;
  port: number;
  metricsPort: number;
}

/**
 * Resolves with a child's `{"msg":"listening",…}` log line (its stdout piped); rejects when it exits
 * first. Every line is also handed to `echo`, so the child's logs still reach the terminal. `name`
 * names the child in the rejection.
 */
export function listeningLine(
  child: ChildProcess,
  name: string,
  echo: (line: string) => void = () => {},
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const line of lines) {
        echo(line);
        const parsed = parseLine(line);
        if (parsed?.msg === "listening") resolve(parsed);
      }
    });
    child.once("exit", (code, signal) =>
      reject(new Error(`${name} exited (${signal ?? code}) before it listened`)),
    );
  });
}

/** Resolves once a relay child logs that it listens; rejects when it exits first. */
export async function relayListening(
  child: ChildProcess,
  echo: (line: string) => void = () => {},
): Promise<RelayListening> {
  const line = await listeningLine(child, "the relay", echo);
  return { host: String(line.host), port: line.port as number, metricsPort: line.metrics_port as number };
}

/** The relay's fixed default metrics port (relay/config.ts), whatever its telemetry port. */
export const DEFAULT_METRICS_PORT = 9464;

/**
 * The relay's metrics port under npm start: RELAY_METRICS_PORT when set (taken or not: an error then),
 * else the fixed DEFAULT_METRICS_PORT, else (another copy has it) 0, a free one. Never derived from
 * the telemetry port.
 */
export async function relayMetricsPort(
  env: Record<string, string | undefined>,
  isFree: (port: number) => Promise<boolean> = tcpPortFree,
): Promise<number> {
  if (env.RELAY_METRICS_PORT) return Number(env.RELAY_METRICS_PORT);
  return (await isFree(DEFAULT_METRICS_PORT)) ? DEFAULT_METRICS_PORT : 0;
}

/**
 * A port for one of npm start's listeners: the variable's when set (taken or not: an error then), else
 * `preferred` when free, else a free one. On a busy machine another program may hold PORT + 3 or 8883.
 */
export async function preferredPort(explicit: string | undefined, preferred: number): Promise<number> {
  if (explicit) return Number(explicit);
  return (await tcpPortFree(preferred)) ? preferred : freeTcpPort();
}

/** A TCP port on 127.0.0.1 nobody listens on right now. */
export function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a TCP port on 127.0.0.1 can be listened on right now. */
export function tcpPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * Bundles the relay into one ES module (esbuild, which tsx and wrangler bring): it starts in a fraction
 * of the time `node --import tsx` needs to compile it, so a restarted relay serves again within 2 s.
 * The bundle lives in node_modules/.cache, so packages resolve from node_modules; `import.meta.url`
 * stays that of relay/main.ts, so proto/telemetry.proto is found. `name` keeps copies apart (written
 * atomically). Returns the node arguments that run the relay: the bundle, or tsx if bundling fails.
 */
export function relayCommand(name: string): Promise<string[]> {
  return bundledCommand("relay/main.ts", "windsock-relay", "the relay", name);
}

/**
 * Bundles `entry` (relative to the project) into node_modules/.cache/`cacheDir`/`name`.mjs, as
 * relayCommand describes; `what` names it in the message when bundling fails and tsx runs it.
 */
export async function bundledCommand(
  entry: string,
  cacheDir: string,
  what: string,
  name: string,
): Promise<string[]> {
  const source = path.join(ROOT, entry);
  const outfile = path.join(ROOT, "node_modules/.cache", cacheDir, `${name}.mjs`);
  try {
    const { build } = await import("esbuild");
    const result = await build({
      entryPoints: [source],
      outfile,
      write: false,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      packages: "external",
      define: { "import.meta.url": JSON.stringify(pathToFileURL(source).href) },
      logLevel: "warning",
    });
    mkdirSync(path.dirname(outfile), { recursive: true });
    writeFileSync(`${outfile}.${process.pid}.tmp`, result.outputFiles[0]!.contents);
    renameSync(`${outfile}.${process.pid}.tmp`, outfile);
    return [outfile];
  } catch (err) {
    console.error(`[start] bundling ${what} failed, running it through tsx: ${(err as Error).message}`);
    return ["--import", "tsx", source];
  }
}
