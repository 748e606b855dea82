import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { ensureDevCertificates } from "../../relay/traffic/certificates";
import { devTlsDir } from "../../relay/traffic/config";
import { ROOT } from "./config";
import {
  bundledCommand,
  HEALTH_FAILURES,
  HEALTH_INTERVAL_MS,
  httpProbe,
  listeningLine,
  type Process,
  preferredPort,
  type Supervised,
  supervise,
  track,
} from "./processes";
import { readGroupActivity } from "./runtimeActivity";

/** The traffic broker (relay/traffic/) as npm start, the end-to-end tests and the bench run it. */

export interface TrafficListening {
  host: string;
  port: number;
  wsPort: number | null;
  feedPort: number;
}

/** The production default; npm start takes a free port when it is taken and TRAFFIC_PORT is not set. */
export const DEFAULT_TRAFFIC_PORT = 8883;

/** Bundles relay/traffic/main.ts (as relayCommand does the relay): a restart serves again at once. */
export function trafficCommand(name: string): Promise<string[]> {
  return bundledCommand("relay/traffic/main.ts", "windsock-traffic", "the traffic broker", name);
}

/** Resolves with the ports once the broker logs {"msg":"listening"}; echoes its lines. */
export async function trafficListening(
  child: ChildProcess,
  echo: (line: string) => void = () => {},
): Promise<TrafficListening> {
  const line = await listeningLine(child, "the traffic broker", echo);
  return {
    host: String(line.host),
    port: line.port as number,
    wsPort: (line.ws_port as number | null) ?? null,
    feedPort: line.feed_port as number,
  };
}

export interface TrafficSettings {
  workerUrl: string;
  secret: string;
  stateDir: string;
  /** Ports as TRAFFIC_PORT etc. would give them (0: a free one). */
  port: number;
  wsPort: number;
  feedPort: number;
  host: string;
  env?: Record<string, string | undefined>;
}

/**
 * npm start's broker: the development certificate made (once) under STATE_DIR, the broker started and
 * restarted like the relay, probed on its feed's /health.
 */
export async function superviseTraffic(
  settings: TrafficSettings,
  log: (message: string) => void,
  onReady: (bound: TrafficListening, child: ChildProcess, restarts: number) => void,
): Promise<Supervised<TrafficListening>> {
  const certs = ensureDevCertificates(devTlsDir(settings.stateDir));
  if (certs.made) log(`traffic: made the development CA ${certs.caFile}`);
  const args = await trafficCommand(`traffic-${path.basename(settings.stateDir)}-${process.pid}`);
  let ports = { port: settings.port, wsPort: settings.wsPort, feedPort: settings.feedPort };
  return supervise({
    name: "traffic",
    spawn: () =>
      spawn(process.execPath, args, {
        cwd: ROOT,
        env: {
          ...process.env,
          ...settings.env,
          RELAY_SECRET: settings.secret,
          WORKER_URL: settings.workerUrl,
          STATE_DIR: settings.stateDir,
          TRAFFIC_PORT: String(ports.port),
          TRAFFIC_WS_PORT: String(ports.wsPort),
          TRAFFIC_FEED_PORT: String(ports.feedPort),
          TRAFFIC_HOST: settings.host,
          TRAFFIC_TLS_CERT: certs.certFile,
          TRAFFIC_TLS_KEY: certs.keyFile,
          // The live page is served over http:// in development: its browser client needs ws://.
          TRAFFIC_WS_PLAIN: process.env.TRAFFIC_WS_PLAIN ?? "1",
        },
        stdio: ["ignore", "pipe", "inherit"],
        detached: true,
      }),
    ready: (child) => trafficListening(child, (line) => process.stdout.write(`${line}\n`)),
    log,
    health: {
      probe: () => httpProbe(`http://127.0.0.1:${ports.feedPort}/health`)(),
      intervalMs: HEALTH_INTERVAL_MS,
      failures: HEALTH_FAILURES,
      activity: (child) => (child.pid === undefined ? null : readGroupActivity(child.pid)),
    },
    onReady: (bound, child, restarts) => {
      // Restarts keep the ports the first start got.
      ports = { port: bound.port, wsPort: bound.wsPort ?? 0, feedPort: bound.feedPort };
      onReady(bound, child, restarts);
    },
  });
}

/**
 * TRAFFIC_PORT, or the production default 8883 when free, else a free port; the WebSocket and feed
 * ports beside it likewise (+1, +2). Resolved before anything starts: the worker is told the feed's.
 */
export async function trafficPorts(env: Record<string, string | undefined>) {
  const pick = (name: string, preferred: number) => preferredPort(env[name], preferred);
  const port = await pick("TRAFFIC_PORT", DEFAULT_TRAFFIC_PORT);
  return {
    port,
    wsPort: await pick("TRAFFIC_WS_PORT", port + 1),
    feedPort: await pick("TRAFFIC_FEED_PORT", port + 2),
  };
}

export interface TrafficProcess extends Process, TrafficListening {}

/** Starts the broker for a test or the bench on free ports, with the given certificate directory. */
export async function startTrafficProcess(options: {
  workerUrl: string;
  secret: string;
  tlsDir: string;
  flags?: string[];
  env?: Record<string, string>;
}): Promise<TrafficProcess> {
  const certs = ensureDevCertificates(options.tlsDir);
  // TRAFFIC_CPU_PROFILE_DIR: a V8 CPU profile of the broker when it stops (as RELAY_CPU_PROFILE_DIR).
  const profile = process.env.TRAFFIC_CPU_PROFILE_DIR;
  const args = [
    ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : []),
    ...(await trafficCommand(`traffic-${process.pid}`)),
    "--port=0",
    "--ws-port=0",
    "--ws-plain",
    "--feed-port=0",
    "--host=127.0.0.1",
    `--cert=${certs.certFile}`,
    `--key=${certs.keyFile}`,
    `--worker-url=${options.workerUrl}`,
    ...(options.flags ?? []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, RELAY_SECRET: options.secret, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const listening = trafficListening(child);
  const broker = track(child);
  try {
    const bound = await Promise.race([
      listening,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("no listening line within 30 s")), 30_000),
      ),
    ]);
    return { ...broker, ...bound };
  } catch (err) {
    await broker.stop();
    throw new Error(
      `the traffic broker did not start: ${(err as Error).message}\n${broker.output.join("\n")}`,
    );
  }
}

/** Where npm start keeps the development CA a client trusts. */
export const devCaFile = (stateDir: string) => path.join(devTlsDir(stateDir), "ca.crt");

/** The lines npm start adds to its env file for the traffic broker. */
export function trafficEnvText(bound: TrafficListening, stateDir: string): string {
  return [
    "# The traffic broker (MQTT over TLS, and over WebSockets) and the development CA that signed its certificate.",
    `export WINDSOCK_TRAFFIC=127.0.0.1:${bound.port}`,
    `export WINDSOCK_TRAFFIC_WS=ws://127.0.0.1:${bound.wsPort}/mqtt`,
    `export WINDSOCK_TRAFFIC_CA='${devCaFile(stateDir).replaceAll("'", "'\\''")}'`,
    "",
  ].join("\n");
}
