import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "../lib/config";
import { ensureDevVars } from "../lib/devVars";
import { type Process, type RelayProcess, scrapeMetrics, startRelayProcess, track } from "../lib/processes";
import { type BenchContext, type BenchSuite, median, ratio, spreadOf, startService } from "./harness";
import { hotPathCpuPerDatagram } from "./relayHotPath";

/**
 * The relay against a bare Node dgram receiver, both flooded by the same sender process on loopback,
 * then a fixed offered rate through relay and worker until the worker has stored every record.
 */

const FLOOD_DATAGRAMS = 300_000;
const WARM_UP_DATAGRAMS = 100_000;
/** Rounds of bare receiver then relay: a flood lasts 2–3 s, and one slow flood in three moved a median of three. */
const ROUNDS = 5;
/** Rounds of bare receiver then relay into the local worker (each waits for the worker to store the flood). */
const WORKER_ROUNDS = 3;
const OFFERED_RATE = 20_000;
const OFFERED_SECONDS = 10;

const HELP = `npm run bench:relay: starts the service (like npm run bench) and runs the relay benchmark.
  1. flood: one sender process sends ${FLOOD_DATAGRAMS.toLocaleString("en")} datagrams as fast as it can, to a bare
     dgram receiver and to the relay in turn, ${ROUNDS} rounds (after a warm-up); the ratio is the median of the
     rounds' relay ÷ bare datagrams/s, with its spread. The relay posts to a sink standing in for a remote
     worker, so the local worker does not share the CPU being measured; then ${WORKER_ROUNDS} rounds into the
     local worker, each waiting until the worker has stored the flood. With two CPUs or more and taskset,
     the sender and the sink (this process) run on the first CPU, the receiver being measured on the second.
  2. fixed rate: ${OFFERED_RATE.toLocaleString("en")} datagrams/s for ${OFFERED_SECONDS} s to the relay; loss, records stored by
     the worker, end-to-end stored records/s, and the relay's peak memory.
The relay's CPU per datagram is reported too, in process (intake and forwarder alone) and for the
whole relay process during the floods to the sink: it moves much less than the rates when other work
shares the machine. Each datagram holds one Position. Ends with {"bench":"relay","ratio":<relay ÷ bare receiver>, ...}.`;

export const peer = (args: string[]) =>
  track(
    spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "tools/bench/udpPeer.ts"), ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );

const SENDER_CPU = 0;
const RECEIVER_CPU = 1;
let pinning: boolean | undefined;
/** Two CPUs or more and taskset (util-linux); asked once, when a process is first pinned. */
const canPin = () =>
  (pinning ??= availableParallelism() >= 2 && spawnSync("taskset", ["--version"]).status === 0);

/**
 * Keeps a process (all its threads) on one CPU when the machine has two: the sender on one, the
 * receiver being measured on the other, for the bare receiver and the relay alike, as if on two machines
 * rather than wherever the scheduler puts them from one moment to the next.
 */
function pin(pid: number | undefined, cpus: number | string): void {
  if (pid !== undefined && canPin())
    spawnSync("taskset", ["-a", "-pc", String(cpus), String(pid)], { stdio: "ignore" });
}

/** Every CPU again, as the other suites expect of this process. */
const unpin = (pid: number) => pin(pid, `0-${availableParallelism() - 1}`);

/** The first JSON line a peer prints that has `field`. */
export async function lineWith(process: Process, field: string): Promise<Record<string, number>> {
  for (;;) {
    for (const line of process.output) {
      const parsed = JSON.parse(line) as Record<string, number>;
      if (field in parsed) return parsed;
    }
    if (process.child.exitCode !== null && process.child.exitCode !== 0) {
      throw new Error(`udpPeer exited ${process.child.exitCode}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function sendFrom(args: string[]): Promise<{ sent: number; seconds: number }> {
  const sender = peer(["send", ...args]);
  pin(sender.child.pid, SENDER_CPU);
  const result = await lineWith(sender, "sent");
  await sender.stop();
  return { sent: result.sent!, seconds: result.seconds! };
}

async function api(ctx: BenchContext, method: string, route: string) {
  const res = await fetch(`${ctx.baseUrl}${route}`, {
    method,
    headers: {
      "x-api-key": ctx.apiKey,
      authorization: `Bearer ${ctx.token}`,
      "content-type": "application/json",
    },
    body:
      method === "POST" && route.endsWith("/point")
        ? JSON.stringify({ latitude: 47.37, longitude: 8.54 })
        : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: any }).data;
}

/** A new flight of the bench pilot with an open session: its id and base64 key. */
interface Flight {
  flightId: string;
  key: string;
}

async function flightInSession(ctx: BenchContext): Promise<Flight> {
  const flightId: string = (await api(ctx, "POST", "/flight/v2/point")).id;
  const { key } = await api(ctx, "POST", `/flight/v2/${flightId}/start-comm`);
  return { flightId, key };
}

/** Counts what the worker stored for the flight by paging through its telemetry. */
async function storedRecords(ctx: BenchContext, flightId: string): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const query = `?limit=10000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await api(ctx, "GET", `/flight/v2/${flightId}/telemetry${query}`);
    count += page.results.length;
    cursor = page.paging.next;
  } while (cursor);
  return count;
}

/** The process's peak resident memory so far (VmHWM), in MB. */
function peakMemoryMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Math.round(Number(match[1]) / 1024) : Number.NaN;
}

/** Waits until the relay has handed every accepted record to the worker. */
async function drained(relay: RelayProcess): Promise<Map<string, number>> {
  for (;;) {
    const m = await scrapeMetrics(relay.metricsPort);
    const settled =
      m.get("windsock_relay_queue_records") === 0 &&
      m.get("windsock_relay_spool_batches") === 0 &&
      (m.get("windsock_relay_records_forwarded_total") ?? 0) >=
        (m.get("windsock_relay_records_accepted_total") ?? 0);
    if (settled) return m;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Stands in for a remote worker during the flood: answers session look-ups from the real worker and
 * acknowledges posted batches without reading or storing them. On this machine the local worker's storage work
 * would otherwise take the CPU the relay is being measured on; the fixed-rate phase stores for real.
 */
async function acknowledgingSink(workerUrl: string): Promise<{ url: string; close(): void }> {
  const server = createServer(async (req, res) => {
    if (req.method === "GET") {
      const answer = await fetch(`${workerUrl}${req.url}`, {
        headers: { authorization: req.headers.authorization! },
      });
      res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text());
      return;
    }
    req.resume();
    await new Promise((resolve) => req.on("end", resolve));
    const data = { stored: 0, duplicates: 0, refused: [] };
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ status: "success", data }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** Datagrams a second that a bare dgram receiver counts from one flood. */
async function floodBare(flight: Flight): Promise<number> {
  const bare = peer(["receive"]);
  const { port } = await lineWith(bare, "port");
  pin(bare.child.pid, RECEIVER_CPU);
  const sent = await sendFrom([...floodArgs(flight, FLOOD_DATAGRAMS, 1), "--port", String(port)]);
  await new Promise((r) => setTimeout(r, 300));
  await bare.stop();
  return (await lineWith(bare, "received")).received! / sent.seconds;
}

/** User + system CPU the kernel charged to a process so far, in µs (/proc/<pid>/stat, 10 ms ticks). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * One flood of fresh serials from `firstSerial` through the relay: the datagrams a second it read and
 * handled, and the CPU it spent on each (the whole process: receiving, handling, posting, GC), which
 * moves much less than the rate when other work shares the machine.
 */
async function floodRelay(relay: RelayProcess, flight: Flight, firstSerial: number, count = FLOOD_DATAGRAMS) {
  const received = async () =>
    (await scrapeMetrics(relay.metricsPort)).get("windsock_relay_datagrams_received_total") ?? 0;
  const before = await received();
  const cpuBefore = cpuMicros(relay.child.pid!);
  const sent = await sendFrom([...floodArgs(flight, count, firstSerial), "--port", String(relay.port)]);
  await new Promise((r) => setTimeout(r, 300));
  const handled = (await received()) - before;
  return {
    rate: handled / sent.seconds,
    cpuMicrosPerDatagram: (cpuMicros(relay.child.pid!) - cpuBefore) / handled,
  };
}

function floodArgs(flight: Flight, count: number, firstSerial: number): string[] {
  const { flightId, key } = flight;
  return [
    "--flight",
    flightId,
    "--key",
    key,
    "--count",
    String(count),
    "--first-serial",
    String(firstSerial),
  ];
}

/** Bare receiver and relay datagrams/s, round by round. */
class Rounds {
  readonly bare: number[] = [];
  readonly relay: number[] = [];
  /** The relay process's CPU µs a datagram, per round. */
  readonly cpu: number[] = [];

  private get ratios(): number[] {
    return this.relay.map((r, i) => r / this.bare[i]!);
  }

  /**
   * The median of the rounds' ratios: a round's two floods run back to back, so drift in the machine's
   * pace (which moves the bare receiver alone by a third between floods) falls on both alike.
   */
  get ratio(): number {
    return ratio(median(this.ratios), 1);
  }

  get spread(): [number, number] {
    return spreadOf(this.ratios);
  }
}

/**
 * `count` rounds of a flood to a bare receiver then one to `relay` (serials from `nextSerial`), each
 * followed by `between`; prints each round, then the medians and the ratio with its spread.
 */
async function floodRounds(
  count: number,
  relay: RelayProcess,
  flight: Flight,
  label: string,
  nextSerial: () => number,
  between: () => Promise<unknown> = async () => {},
): Promise<Rounds> {
  const rounds = new Rounds();
  for (let round = 1; round <= count; round++) {
    const bare = await floodBare(flight);
    const { rate: relayed, cpuMicrosPerDatagram } = await floodRelay(relay, flight, nextSerial());
    rounds.bare.push(bare);
    rounds.relay.push(relayed);
    rounds.cpu.push(cpuMicrosPerDatagram);
    console.log(
      `  round ${round}: bare dgram receiver ${Math.round(bare)}/s, ${label} ${Math.round(relayed)}/s, ` +
        `ratio ${ratio(relayed, bare)}; relay CPU ${cpuMicrosPerDatagram.toFixed(2)} µs a datagram`,
    );
    await between();
  }
  const [low, high] = rounds.spread;
  console.log(
    `  medians: bare ${Math.round(median(rounds.bare))} datagrams/s, ${label} ${Math.round(median(rounds.relay))} ` +
      `datagrams/s processed; ratio ${rounds.ratio} (rounds ${low}–${high}); relay CPU ${median(rounds.cpu).toFixed(2)} µs a datagram`,
  );
  return rounds;
}

export const suite: BenchSuite = {
  name: "relay",
  async run(ctx) {
    const relayOptions = (workerUrl: string, spool: string) => ({
      workerUrl,
      secret: ensureDevVars().RELAY_SECRET!,
      spoolDir: path.join(ctx.stateDir, spool),
      // One session floods here at the sender's full speed: its rate limit would measure itself.
      flags: ["--rate-per-session=0"],
    });
    const loadAtStart = loadavg()[0]!;
    // The relay's own work, in this process before anything else runs (see relayHotPath.ts).
    const hotPath = await hotPathCpuPerDatagram();
    console.log(
      `  hot path in process (intake + forwarder, one session): ${median(hotPath).toFixed(2)} µs CPU a datagram ` +
        `(rounds ${Math.min(...hotPath).toFixed(2)}–${Math.max(...hotPath).toFixed(2)})`,
    );
    const flood = await flightInSession(ctx);

    // Bare receiver and relay take turns: the sender's pace on a shared machine varies from one flood to the next.
    const sink = await acknowledgingSink(ctx.baseUrl);
    // This process is the sink, a remote worker's stand-in: it must not take the measured receiver's CPU.
    pin(process.pid, SENDER_CPU);
    const measured = await startRelayProcess(relayOptions(sink.url, "bench-relay-spool-flood"));
    pin(measured.child.pid, RECEIVER_CPU);
    let serial = 1;
    const nextFlood = (count = FLOOD_DATAGRAMS) => {
      const first = serial;
      serial += count;
      return first;
    };
    let toSink: Rounds;
    try {
      await floodRelay(measured, flood, nextFlood(WARM_UP_DATAGRAMS), WARM_UP_DATAGRAMS);
      toSink = await floodRounds(ROUNDS, measured, flood, "relay (posting to a sink)", nextFlood);
    } finally {
      await measured.stop();
      sink.close();
      unpin(process.pid);
    }

    const relay = await startRelayProcess(relayOptions(ctx.baseUrl, "bench-relay-spool"));
    pin(relay.child.pid, RECEIVER_CPU);
    try {
      await floodRelay(relay, flood, nextFlood(WARM_UP_DATAGRAMS), WARM_UP_DATAGRAMS);
      await drained(relay);
      console.log(
        "  into the local worker (which shares the CPUs), waiting after each round until it has stored the flood:",
      );
      const intoWorker = await floodRounds(
        WORKER_ROUNDS,
        relay,
        flood,
        "relay (posting to the local worker)",
        nextFlood,
        () => drained(relay),
      );

      const steady = await flightInSession(ctx);
      const count = OFFERED_RATE * OFFERED_SECONDS;
      const start = await scrapeMetrics(relay.metricsPort);
      const started = Date.now();
      const offered = await sendFrom([
        ...["--flight", steady.flightId, "--key", steady.key, "--count", String(count)],
        ...["--rate", String(OFFERED_RATE), "--port", String(relay.port)],
      ]);
      const end = await drained(relay);
      const storedAt = Date.now();
      const accepted =
        (end.get("windsock_relay_datagrams_accepted_total") ?? 0) -
        (start.get("windsock_relay_datagrams_accepted_total") ?? 0);
      const stored = await storedRecords(ctx, steady.flightId);
      const storedRate = stored / ((storedAt - started) / 1000);
      const peakRssMb = peakMemoryMb(relay.child.pid!);
      const drops = [...end].filter(([name, value]) => name.includes("dropped_total{") && value > 0);
      console.log(
        `  fixed rate: offered ${Math.round(offered.sent / offered.seconds)}/s for ${offered.seconds.toFixed(1)} s; ` +
          `${accepted} of ${offered.sent} accepted (loss ${offered.sent - accepted}), ${stored} stored, ` +
          `${Math.round(storedRate)} records/s end to end`,
      );
      console.log(
        `  relay peak RSS (flood into the worker, then fixed rate) ${peakRssMb} MB; drops: ${drops.map(([n, v]) => `${n} ${v}`).join(", ") || "none"}`,
      );
      return {
        ratio: toSink.ratio,
        ratio_spread: toSink.spread,
        relay_dps: Math.round(median(toSink.relay)),
        relay_cpu_us_per_datagram: Math.round(median(toSink.cpu) * 100) / 100,
        hot_path_cpu_us_per_datagram: Math.round(median(hotPath) * 100) / 100,
        bare_dps: Math.round(median(toSink.bare)),
        ratio_with_local_worker: intoWorker.ratio,
        ratio_with_local_worker_spread: intoWorker.spread,
        pinned: canPin(),
        offered_dps: Math.round(offered.sent / offered.seconds),
        sent: offered.sent,
        lost: offered.sent - accepted,
        stored,
        stored_rps: Math.round(storedRate),
        relay_rss_mb: peakRssMb,
        // The rates move with the machine's load: one-minute load averages at the start and the end.
        load_average: [Math.round(loadAtStart * 10) / 10, Math.round(loadavg()[0]! * 10) / 10],
      };
    } finally {
      await relay.stop();
    }
  },
};

/** `npm run bench:relay`: this suite alone, against a freshly started service. */
if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  if (process.argv.includes("--help")) {
    console.log(HELP);
  } else {
    const { ctx, stop } = await startService();
    try {
      console.log("# relay");
      console.log(JSON.stringify({ bench: "relay", ...(await suite.run(ctx)) }));
    } finally {
      await stop();
    }
  }
}
