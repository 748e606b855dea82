import { spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../../tools/lib/config";
import {
  DEFAULT_METRICS_PORT,
  httpProbe,
  preferredPort,
  relayCommand,
  relayListening,
  relayMetricsPort,
  scrapeMetrics,
  supervise,
  tcpPortFree,
} from "../../tools/lib/processes";
import { freePort } from "./services";
import { superviseTestFront } from "./supervisedFront";

/** npm start's supervision (tools/lib/processes.ts supervise) of a real relay process. */

const stateDir = mkdtempSync(path.join(os.tmpdir(), "ws-e2e-supervisor-"));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

describe("supervision by health", () => {
  it("kills and restarts a child that lives on but stops answering its probe", async () => {
    const { port, logs, ready, supervised } = await superviseTestFront();
    try {
      const stoppedAt = Date.now();
      process.kill(supervised.child.pid!, "SIGSTOP");
      for (let i = 0; i < 200 && ready.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(ready).toHaveLength(2);
      expect(logs.join("\n")).toMatch(/front failed 3 health probes in a row; killing it/);
      expect(await httpProbe(`http://127.0.0.1:${port}/health`)()).toBe(true);
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    } finally {
      await supervised.stop("SIGKILL");
    }
  });
});

describe("supervising the relay", () => {
  it("restarts a relay killed with SIGKILL on the same port, which then serves again", async () => {
    // A stand-in worker: no flight has a session, posts are acknowledged.
    const worker = createServer((req, res) => {
      req.resume();
      if (req.method === "GET") res.writeHead(404).end('{"status":"fail"}');
      else res.writeHead(200).end('{"status":"success","data":{"stored":0,"duplicates":0,"refused":[]}}');
    });
    await new Promise<void>((resolve) => worker.listen(0, "127.0.0.1", resolve));
    const workerUrl = `http://127.0.0.1:${(worker.address() as AddressInfo).port}`;
    const port = await freePort();
    // As npm start runs it: bundled, so that a restart is quick.
    const command = await relayCommand(`test-supervisor-${process.pid}`);
    const ready: { port: number; metricsPort: number; at: number }[] = [];
    const logs: string[] = [];
    const relay = await supervise({
      name: "relay",
      spawn: () =>
        spawn(process.execPath, command, {
          cwd: ROOT,
          env: {
            ...process.env,
            RELAY_SECRET: "secret",
            WORKER_URL: workerUrl,
            TELEMETRY_PORT: String(port),
            TELEMETRY_HOST: "127.0.0.1",
            RELAY_METRICS_PORT: "0",
            RELAY_SPOOL_DIR: path.join(stateDir, "spool"),
          },
          stdio: ["ignore", "pipe", "inherit"],
          detached: true,
        }),
      ready: (child) => relayListening(child),
      log: (line) => logs.push(line),
      onReady: (bound) => ready.push({ ...bound, at: Date.now() }),
    });
    const socket = createSocket("udp4");
    try {
      const firstPid = relay.child.pid!;
      const killedAt = Date.now();
      process.kill(firstPid, "SIGKILL");
      for (let i = 0; i < 300 && ready.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(ready).toHaveLength(2);
      expect(relay.restarts).toBe(1);
      expect(relay.child.pid).not.toBe(firstPid);
      expect(ready[1]!.port).toBe(port);
      expect(logs.join("\n")).toMatch(/relay exited \(SIGKILL\); restarting/);
      console.log(`relay served again ${ready[1]!.at - killedAt} ms after SIGKILL`);

      // It serves: a datagram reaches the new process (an unknown flight, counted by reason).
      const datagram = Buffer.concat([
        Buffer.from([0, 0, 0, 1, 29]),
        Buffer.from(`flight|${"A".repeat(22)}`),
        Buffer.from([1]),
        Buffer.alloc(32),
      ]);
      socket.send(datagram, port, "127.0.0.1");
      let metrics = new Map<string, number>();
      for (let i = 0; i < 100; i++) {
        metrics = await scrapeMetrics(ready[1]!.metricsPort);
        if (metrics.get("windsock_relay_datagrams_received_total")) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(metrics.get("windsock_relay_datagrams_received_total")).toBe(1);
    } finally {
      socket.close();
      await relay.stop();
      worker.close();
      rmSync(command[0]!, { force: true });
    }
    expect(relay.restarts).toBe(1);
  });

  it("does not restart a child that never served: that is a setup error", async () => {
    let spawned = 0;
    await expect(
      supervise({
        name: "relay",
        spawn: () => {
          spawned++;
          return spawn(process.execPath, ["--import", "tsx", "relay/main.ts", "--port=nope"], {
            cwd: ROOT,
            env: { ...process.env, RELAY_SECRET: "secret" },
            stdio: ["ignore", "pipe", "ignore"],
            detached: true,
          });
        },
        ready: (child) => relayListening(child),
        log: () => {},
      }),
    ).rejects.toThrow(/exited/);
    await new Promise((r) => setTimeout(r, 300));
    expect(spawned).toBe(1);
  });

  it("gives the relay the fixed metrics port 9464 whatever the telemetry port, a free one when taken", async () => {
    const free = async () => true;
    const taken = async () => false;
    expect(DEFAULT_METRICS_PORT).toBe(9464);
    for (const TELEMETRY_PORT of ["16060", "36060", undefined])
      expect(await relayMetricsPort({ TELEMETRY_PORT }, free)).toBe(9464);
    expect(await relayMetricsPort({ TELEMETRY_PORT: "36060" }, taken)).toBe(0);
    expect(await relayMetricsPort({ RELAY_METRICS_PORT: "9999" }, taken)).toBe(9999);
  });

  it("gives a listener its preferred port (PORT + 3 for the identity provider) when free, another when taken", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const held = (holder.address() as AddressInfo).port;
    try {
      const instead = await preferredPort(undefined, held);
      expect(instead).not.toBe(held);
      expect(await tcpPortFree(instead)).toBe(true);
      expect(await preferredPort("", instead)).toBe(instead);
      // Set explicitly, it is kept even when taken: npm start then says so instead of moving it.
      expect(await preferredPort(String(held), 1)).toBe(held);
    } finally {
      holder.close();
    }
  });
});
