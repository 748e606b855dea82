import { spawn } from "node:child_process";
import { httpProbe, supervise } from "../../tools/lib/processes";
import { readGroupActivity } from "../../tools/lib/runtimeActivity";
import { freePort } from "./services";

/**
 * A stand-in front under npm start's supervision: a Node process answering /health, probed every
 * 200 ms (3 failures in a row). SIGSTOP leaves it alive and silent, like workerd behind wrangler;
 * with `busyMs`, SIGUSR2 blocks its event loop that long (a front busy with work). With `activity`,
 * the supervisor judges failed probes by the process group's CPU, as npm start does.
 */
export async function superviseTestFront(options: { busyMs?: number; activity?: boolean } = {}) {
  const port = await freePort();
  const busy =
    options.busyMs === undefined
      ? ""
      : `process.on("SIGUSR2", () => { const end = Date.now() + ${options.busyMs}; while (Date.now() < end); });\n`;
  const server = `${busy}require("node:http").createServer((q, r) => r.end("ok")).listen(${port}, "127.0.0.1", () => console.log("up"))`;
  const logs: string[] = [];
  const ready: number[] = [];
  const supervised = await supervise({
    name: "front",
    spawn: () =>
      spawn(process.execPath, ["-e", server], { stdio: ["ignore", "pipe", "inherit"], detached: true }),
    ready: (child) =>
      new Promise<void>((resolve, reject) => {
        child.stdout?.once("data", () => resolve());
        child.once("exit", () => reject(new Error("exited")));
      }),
    log: (line) => logs.push(line),
    onReady: (_info, child) => ready.push(child.pid!),
    health: {
      probe: httpProbe(`http://127.0.0.1:${port}/health`),
      intervalMs: 200,
      failures: 3,
      ...(options.activity ? { activity: (child) => readGroupActivity(child.pid!, "node") } : {}),
    },
  });
  return { port, logs, ready, supervised };
}
