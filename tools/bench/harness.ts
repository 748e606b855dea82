import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, unlinkSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { ROOT } from "../lib/config";

export interface BenchContext {
  baseUrl: string;
  apiKey: string;
  token: string;
  pilotId: string;
  telemetryPort: number;
  stateDir: string;
}

/** One benchmark: prints readable lines and returns the fields of its closing JSON line. */
export interface BenchSuite {
  name: string;
  /**
   * Run against the service's own limits (rate limits, the per-account share of expensive work), as
   * a user meets them. Other suites measure one account's throughput and run with both lifted.
   */
  limited?: boolean;
  /** Run against worker/dev/index.ts (STORAGE_TRACE=1): storage round trips counted and delayable. */
  traced?: boolean;
  run(ctx: BenchContext): Promise<Record<string, unknown>>;
}

export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  /** Answers outside 2xx, plus requests that failed or timed out: any of them spoils a ratio. */
  non2xx: number;
  /** What they were: counts by status code, "error" and "timeout". */
  failures: Record<string, number>;
}

/** Adds counts by kind into `into`. */
function addFailures(into: Record<string, number>, from: Record<string, number>): Record<string, number> {
  for (const [kind, count] of Object.entries(from)) into[kind] = (into[kind] ?? 0) + count;
  return into;
}

/** "500×12, timeout×3": what the non-2xx were, so a failed ratio says why. */
export const failureText = (failures: Record<string, number>) =>
  Object.entries(failures)
    .map(([kind, count]) => `${kind}×${count}`)
    .join(", ");

export interface Load {
  path: string;
  method?: "GET" | "POST" | "PATCH";
  headers?: Record<string, string>;
  body?: unknown;
  seconds?: number;
  connections?: number;
  /** Sends the pilot token as well as the API key. */
  withToken?: boolean;
  /** Requests a second over all connections (a steady client); unset, as fast as answers come. */
  rate?: number;
}

/** Loads one route with autocannon (API key added) and reports requests/s and latency in ms. */
export async function measure(ctx: BenchContext, load: Load): Promise<Measurement> {
  await service?.ensureHealthy();
  const headers: Record<string, string> = { "x-api-key": ctx.apiKey, ...load.headers };
  if (load.withToken) headers.authorization = `Bearer ${ctx.token}`;
  let body: string | undefined;
  if (load.body !== undefined) {
    body = typeof load.body === "string" ? load.body : JSON.stringify(load.body);
    headers["content-type"] ??= "application/json";
  }
  const result = await autocannon({
    url: `${ctx.baseUrl}${load.path}`,
    method: load.method ?? "GET",
    headers,
    body,
    connections: load.connections ?? 10,
    duration: load.seconds ?? 5,
    ...(load.rate ? { overallRate: load.rate } : {}),
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
    failures: failuresOf(result),
  };
}

function failuresOf(result: autocannon.Result): Record<string, number> {
  const failures: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {}))
    if (!code.startsWith("2")) failures[code] = (stats as { count: number }).count;
  if (result.errors > 0) failures.error = result.errors;
  if (result.timeouts > 0) failures.timeout = result.timeouts;
  return failures;
}

export function report(label: string, m: Measurement): void {
  const errors = m.non2xx > 0 ? `  (${m.non2xx} non-2xx: ${failureText(m.failures)}!)` : "";
  console.log(
    `  ${label.padEnd(44)} ${String(m.rps).padStart(7)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms${errors}`,
  );
}

/** San Francisco International, [lat, lng]: the embedded airspace's Class B and densest facility map. */
export const SFO: [number, number] = [37.619, -122.375];

export const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** Rounds of a pair and the seconds of each sample: BENCH_ROUNDS, BENCH_SECONDS override them. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 2);

/**
 * The names an environment variable picks (`NAME=a,b`, in that order), or all of `known` when it is
 * unset: a suite's subset of parts or rows. An unknown name is an error listing the known ones, so a
 * typo never measures nothing.
 */
export function chosenNames<T extends string>(variable: string, known: readonly T[]): T[] {
  const given = process.env[variable]?.split(",").filter(Boolean);
  if (!given) return [...known];
  const unknown = given.filter((name) => !known.includes(name as T));
  if (unknown.length > 0)
    throw new Error(`${variable}: unknown ${unknown.join(", ")} (known: ${known.join(", ")})`);
  return given as T[];
}

/** The rows of a suite that `variable` names (chosenNames), in the suite's order. */
export function chosenRows<R extends { name: string }>(variable: string, rows: readonly R[]): R[] {
  const names = chosenNames(
    variable,
    rows.map((row) => row.name),
  );
  return rows.filter((row) => names.includes(row.name));
}

/** Several samples of one route: the median and the range of each figure. */
export interface Summary {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  failures: Record<string, number>;
  /** Requests/s of each round, in order. */
  samples: number[];
  min: number;
  max: number;
}

/** A target against its baseline, sampled alternately; ratio is null when any request failed. */
export interface Comparison {
  baseline: Summary;
  target: Summary;
  /** Median target ÷ median baseline requests/s. */
  ratio: number | null;
  /** The lowest and highest ratio of a single round (baseline and target sampled back to back). */
  spread: [number, number] | null;
  failed: boolean;
}

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export function summarize(samples: Measurement[]): Summary {
  const rps = samples.map((m) => m.rps);
  return {
    rps: Math.round(median(rps)),
    p50: median(samples.map((m) => m.p50)),
    p99: median(samples.map((m) => m.p99)),
    non2xx: samples.reduce((n, m) => n + m.non2xx, 0),
    failures: samples.reduce((all, m) => addFailures(all, m.failures), {}),
    samples: rps,
    min: Math.min(...rps),
    max: Math.max(...rps),
  };
}

/**
 * A target against its baseline: a warm-up of each, then `rounds` rounds of baseline then target,
 * so drift in a shared machine's load falls on both alike. Any non-2xx or failed request in any
 * sample leaves the ratio null (printed as failed) instead of flattering the target.
 */
export async function compare(
  ctx: BenchContext,
  baseline: Load,
  target: Load,
  options: { rounds?: number; seconds?: number; warmUpSeconds?: number } = {},
): Promise<Comparison> {
  const rounds = options.rounds ?? ROUNDS;
  const seconds = options.seconds ?? target.seconds ?? SECONDS;
  const warmUp = options.warmUpSeconds ?? WARM_UP_SECONDS;
  if (warmUp > 0) {
    await measure(ctx, { ...baseline, seconds: warmUp });
    await measure(ctx, { ...target, seconds: warmUp });
  }
  const base: Measurement[] = [];
  const tried: Measurement[] = [];
  for (let round = 0; round < rounds; round++) {
    if (await service?.recycleIfDue()) {
      await measure(ctx, { ...baseline, seconds: warmUp || 1 });
      await measure(ctx, { ...target, seconds: warmUp || 1 });
    }
    base.push(await measure(ctx, { ...baseline, seconds }));
    tried.push(await measure(ctx, { ...target, seconds }));
  }
  const b = summarize(base);
  const t = summarize(tried);
  const failed = b.non2xx > 0 || t.non2xx > 0 || b.rps === 0;
  const perRound = base.map((m, i) => (m.rps > 0 ? tried[i]!.rps / m.rps : 0));
  return {
    baseline: b,
    target: t,
    ratio: failed ? null : ratio(t.rps, b.rps),
    spread: failed ? null : spreadOf(perRound),
    failed,
  };
}

/** The lowest and highest of the rounds' ratios, rounded as ratios are. */
export const spreadOf = (perRound: number[]): [number, number] => [
  ratio(Math.min(...perRound), 1),
  ratio(Math.max(...perRound), 1),
];

/** One line per route of a comparison, then the ratio with its spread, or why it failed. */
export function reportComparison(label: string, baselineLabel: string, c: Comparison, goal?: number): void {
  const line = (name: string, s: Summary) => {
    const errors = s.non2xx > 0 ? `  (${s.non2xx} non-2xx or failed: ${failureText(s.failures)}!)` : "";
    console.log(
      `  ${name.padEnd(44)} ${String(s.rps).padStart(7)} req/s (${s.min}–${s.max})  p50 ${s.p50} ms  p99 ${s.p99} ms${errors}`,
    );
  };
  line(baselineLabel, c.baseline);
  line(label, c.target);
  const wanted =
    goal === undefined ? "" : `  goal ≥ ${goal}${c.ratio !== null && c.ratio >= goal ? " ✓" : " ✗"}`;
  console.log(
    c.ratio === null
      ? "    ratio FAILED: a sample had non-2xx or failed requests"
      : `    ratio ${c.ratio} (rounds ${c.spread![0]}–${c.spread![1]})${wanted}`,
  );
}

/** The fields of a comparison for a suite's closing JSON line, under a prefix. */
export function comparisonFields(prefix: string, c: Comparison, goal?: number): Record<string, unknown> {
  return {
    [`${prefix}_ratio`]: c.ratio,
    [`${prefix}_ratio_spread`]: c.spread,
    ...(goal === undefined
      ? {}
      : { [`${prefix}_goal`]: goal, [`${prefix}_met`]: c.ratio !== null && c.ratio >= goal }),
    [`${prefix}_rps`]: c.target.rps,
    [`${prefix}_rps_range`]: [c.target.min, c.target.max],
    [`${prefix}_p50_ms`]: c.target.p50,
    [`${prefix}_p99_ms`]: c.target.p99,
    [`${prefix}_baseline_rps`]: c.baseline.rps,
    ...(c.failed ? { [`${prefix}_failed`]: true } : {}),
  };
}

/**
 * Runs `attempt` until it succeeds, at most `tries` times, waiting longer after each failure:
 * seeding thousands of records through a loaded local runtime meets the odd refused connection.
 */
export async function withRetries<T>(what: string, attempt: () => Promise<T>, tries = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (i >= tries) throw new Error(`${what}: failed ${tries} times; last: ${String(err)}`);
      await service?.ensureHealthy();
      await new Promise((r) => setTimeout(r, 250 * 2 ** i));
    }
  }
}

/** The running service, so measurements can wait for a restart or recycle it. */
let service: ServiceHandle | undefined;

/** Minutes of load after which the local runtime is restarted between samples (BENCH_RECYCLE_MINUTES). */
const RECYCLE_MS = Number(process.env.BENCH_RECYCLE_MINUTES ?? 10) * 60_000;
/** How long a dead or restarting service may take to answer /health again. */
const HEALTHY_WITHIN_MS = 180_000;

interface ServiceHandle {
  ensureHealthy(): Promise<void>;
  recycleIfDue(): Promise<boolean>;
}

/**
 * Starts the whole service (npm start) on bench ports with its own persistent state. wrangler
 * writes every message, debug included, to a log file whatever its level: the bench points that
 * file at /dev/null, and restarts the service after BENCH_RECYCLE_MINUTES (between samples, never
 * inside one) so a long run never meets a front process grown out of heap. A service that stops
 * answering is waited for (npm start restarts a crashed worker) and started again if it died.
 */
export async function startService(
  options: { limited?: boolean; traced?: boolean } = {},
): Promise<{ ctx: BenchContext; stop: () => Promise<void> }> {
  // Not 8790: the development provider of a default npm start listens there (PORT + 3).
  const port = Number(process.env.BENCH_PORT ?? 8797);
  const telemetryPort = Number(process.env.BENCH_TELEMETRY_PORT ?? 16190);
  const stateDir = path.resolve(ROOT, process.env.BENCH_STATE_DIR ?? ".wrangler/bench-state");
  const baseUrl = `http://127.0.0.1:${port}`;
  mkdirSync(stateDir, { recursive: true });
  const quietLog = path.join(stateDir, "wrangler-debug.log");
  if (!isLink(quietLog)) {
    if (existsSync(quietLog)) unlinkSync(quietLog);
    symlinkSync("/dev/null", quietLog);
  }

  let child: ChildProcess | undefined;
  let startedAt = 0;
  const launch = async () => {
    const started = spawn(process.execPath, ["--import", "tsx", "tools/start.ts"], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        TELEMETRY_PORT: String(telemetryPort),
        STATE_DIR: stateDir,
        // Most suites measure the service, not the rate limiter, and one account's throughput, not
        // its fair share beside others; a `limited` suite measures those limits at work.
        // (undefined: not inherited from the caller's shell either).
        RATE_LIMIT_PER_MINUTE: options.limited ? undefined : "1000000000",
        ACCOUNT_WORK_LIMIT: options.limited ? undefined : "off",
        STORAGE_TRACE: options.traced ? "1" : undefined,
        WRANGLER_LOG: "warn",
        WRANGLER_LOG_PATH: quietLog,
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    child = started;
    await new Promise<void>((resolve, reject) => {
      let output = "";
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("Windsock is running")) {
          started.stdout?.off("data", onData);
          started.stdout?.resume();
          resolve();
        }
      };
      started.stdout?.on("data", onData);
      started.once("exit", (code) =>
        reject(new Error(`npm start exited (${code}) before the service was ready`)),
      );
    });
    startedAt = Date.now();
  };
  const halt = () =>
    new Promise<void>((resolve) => {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return resolve();
      running.once("exit", () => resolve());
      // npm start stops wrangler, workerd and the relay on SIGTERM.
      running.kill("SIGTERM");
    });

  await launch();
  const apiKey = readFileSync(path.join(stateDir, "dev-api-key"), "utf8").trim();
  const idToken = await withRetries("a pilot token", async () => {
    const res = await fetch(`${baseUrl}/auth/v1/anonymous/token`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      body: JSON.stringify({ user_id: "bench-pilot" }),
    });
    if (!res.ok) throw new Error(`token: ${res.status}`);
    return ((await res.json()) as { data: { id_token: string } }).data.id_token;
  });
  const pilotId = JSON.parse(Buffer.from(idToken.split(".")[1]!, "base64url").toString()).sub as string;

  const restart = async (why: string) => {
    console.log(`  [bench] ${why}: restarting the service`);
    await halt();
    await launch();
  };
  service = {
    async ensureHealthy() {
      if (child && (child.exitCode !== null || child.signalCode !== null)) return restart("npm start exited");
      const deadline = Date.now() + HEALTHY_WITHIN_MS;
      while (!(await healthy(baseUrl))) {
        if (Date.now() > deadline)
          return restart(`no answer on ${baseUrl}/health for ${HEALTHY_WITHIN_MS / 1000} s`);
        await new Promise((r) => setTimeout(r, 500));
      }
    },
    async recycleIfDue() {
      if (Date.now() - startedAt < RECYCLE_MS) return false;
      await restart(`${RECYCLE_MS / 60_000} minutes of load`);
      return true;
    },
  };
  const stop = async () => {
    service = undefined;
    await halt();
  };
  return { ctx: { baseUrl, apiKey, token: idToken, pilotId, telemetryPort, stateDir }, stop };
}

async function healthy(baseUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(5_000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}
