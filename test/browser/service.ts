import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import os from "node:os";
import path from "node:path";
import { ROOT } from "../../tools/lib/config";
import { freeTcpPort } from "../../tools/lib/processes";

export const ARTIFACTS = path.join(ROOT, "test-results/browser");

/** A TCP port nobody listens on right now. */
export const freePort = freeTcpPort;

/** What the tests of the service project see of the one service they share (test/browser/globalSetup.ts). */
export interface ServiceAddress {
  baseUrl: string;
  apiKey: string;
  telemetryPort: number;
  stateDir: string;
  /** The shell file npm start wrote: WINDSOCK_URL, WINDSOCK_API_KEY, WINDSOCK_RELAY. */
  envFile: string;
}

export interface Service extends ServiceAddress {
  stop(): Promise<void>;
}

declare module "vitest" {
  export interface ProvidedContext {
    service: ServiceAddress;
  }
}

/** The whole service as `npm start` runs it, on free ports with fresh state; its output goes to a log. */
/**
 * `name` names its log under ARTIFACTS; `pagesFromOneAddress` lifts the per-account work shares (a
 * copy that many test files' browsers visit at once from 127.0.0.1).
 */
export async function startService(
  options: { name?: string; pagesFromOneAddress?: boolean } = {},
): Promise<Service> {
  const port = await freePort();
  const telemetryPort = await freePort();
  const stateDir = await mkdtemp(path.join(os.tmpdir(), "windsock-browser-"));
  const logFile = path.join(ARTIFACTS, `${options.name ?? "service"}.log`);
  const log = createWriteStream(logFile);
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "tools/start.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      TELEMETRY_PORT: String(telemetryPort),
      STATE_DIR: stateDir,
      // Every page of every file comes from 127.0.0.1, one visitor to the per-address share of an
      // account's public pages, which then refused pages while other files' pages rendered. The
      // shares are tested in test/worker/strangerPages.test.ts and measured by the noisy bench.
      ...(options.pagesFromOneAddress ? { ACCOUNT_WORK_LIMIT: "off" } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so stopping it ends wrangler, workerd and the relay with it.
    detached: true,
  });
  child.stderr?.pipe(log);
  const stop = async () => {
    const group = -child.pid!;
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(group, "SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    }
    try {
      process.kill(group, "SIGKILL");
    } catch {
      // the whole group has already exited
    }
    child.stdout?.destroy();
    child.stderr?.destroy();
    log.end();
    await rm(stateDir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        log.write(chunk);
        output += chunk.toString();
        if (output.includes("Windsock is running")) resolve();
      });
      child.once("exit", (code) =>
        reject(new Error(`npm start exited (${code}) before it was ready; see ${logFile}`)),
      );
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: readFileSync(path.join(stateDir, "dev-api-key"), "utf8").trim(),
    telemetryPort,
    stateDir,
    envFile: path.join(stateDir, "env"),
    stop,
  };
}

/** Stands in for the partner app's callback page: records every URL it is sent to. */
export async function startCallbackReceiver(): Promise<{
  url: string;
  received: URL[];
  close(): Promise<void>;
}> {
  const received: URL[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    received.push(url);
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html lang="en"><title>Partner app</title><h1>Back in the partner app</h1>
<p>flight_id: <code id="flight">${escapeHtml(url.searchParams.get("flight_id") ?? "")}</code></p>`);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
