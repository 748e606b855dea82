import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
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
  run(ctx: BenchContext): Promise<Record<string, unknown>>;
}

export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

export interface Load {
  path: string;
  method?: "GET" | "POST" | "PATCH";
  headers?: Record<string, string>;
  body?: unknown;
  seconds?: number;
  connections?: number;
  /** Sends the pilot token as well as the API key. */
  withToken?: boolean;
}

/** Loads one route with autocannon (API key added) and reports requests/s and latency in ms. */
export async function measure(ctx: BenchContext, load: Load): Promise<Measurement> {
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
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

export function report(label: string, m: Measurement): void {
  const errors = m.non2xx > 0 ? `  (${m.non2xx} non-2xx!)` : "";
  console.log(
    `  ${label.padEnd(44)} ${String(m.rps).padStart(7)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms${errors}`,
  );
}

export const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** Starts the whole service (npm start) on bench ports with its own persistent state. */
export async function startService(): Promise<{ ctx: BenchContext; stop: () => Promise<void> }> {
  const port = Number(process.env.BENCH_PORT ?? 8790);
  const telemetryPort = Number(process.env.BENCH_TELEMETRY_PORT ?? 16190);
  const stateDir = path.resolve(ROOT, process.env.BENCH_STATE_DIR ?? ".wrangler/bench-state");
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "tools/start.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      TELEMETRY_PORT: String(telemetryPort),
      STATE_DIR: stateDir,
      // The benchmark measures the service, not the rate limiter.
      RATE_LIMIT_PER_MINUTE: "1000000000",
      WRANGLER_LOG: "warn",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Windsock is running")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`npm start exited (${code}) before the service was ready`)));
  });
  child.stdout?.resume();
  const apiKey = readFileSync(path.join(stateDir, "dev-api-key"), "utf8").trim();
  const res = await fetch(`${baseUrl}/auth/v1/anonymous/token`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify({ user_id: "bench-pilot" }),
  });
  const idToken = ((await res.json()) as { data: { id_token: string } }).data.id_token;
  const pilotId = JSON.parse(Buffer.from(idToken.split(".")[1]!, "base64url").toString()).sub as string;
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return { ctx: { baseUrl, apiKey, token: idToken, pilotId, telemetryPort, stateDir }, stop };
}
