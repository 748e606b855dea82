import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { ROOT } from "./config";

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

/** Starts relay/main.ts on free ports (UDP and metrics) and resolves once it logs that it listens. */
export async function startRelayProcess(options: {
  workerUrl: string;
  secret: string;
  spoolDir: string;
  flags?: string[];
}): Promise<RelayProcess> {
  const args = [
    "--import",
    "tsx",
    "relay/main.ts",
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
