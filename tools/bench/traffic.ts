import { type ChildProcess, fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import path from "node:path";
import { ensureDevVars } from "../lib/devVars";
import { readGroupActivity, TICKS_PER_SECOND } from "../lib/runtimeActivity";
import { startTrafficProcess } from "../lib/trafficBroker";
import { type BenchContext, type BenchSuite, SECONDS, SFO } from "./harness";
import type { SubscriberReport, SubscriberShare } from "./trafficSubscribers";

/**
 * Traffic at scale (docs/traffic.md): 1,000 monitored flights, each with a real MQTT client over TLS
 * subscribed to its two topics, and 5,000 tracks in one region (4,000 flights' positions pushed to
 * the broker's feed as the worker pushes them, 1,000 manned aircraft from an SBS-1 feed), every track
 * reporting once a second. Probes: an intruder appears 400 m from a monitored flight; the time from
 * its position's arrival (the push) to the alert's PUBLISH reaching that flight's client is the
 * latency (goal: p95 ≤ 1 s). Then the broker's CPU per track update and memory, and the worker's CPU
 * per position stored through HTTP ingest (which includes its push to the broker).
 */

const MONITORED = Number(process.env.BENCH_TRAFFIC_FLIGHTS ?? 1000);
const FEED_TRACKS = Number(process.env.BENCH_TRAFFIC_FEED_TRACKS ?? 4000);
const ADSB_TRACKS = Number(process.env.BENCH_TRAFFIC_ADSB_TRACKS ?? 1000);
/** The region's side in degrees: 2° is about 220 × 175 km around San Francisco. */
const REGION_DEG = Number(process.env.BENCH_TRAFFIC_REGION_DEG ?? 2);
const STEADY_SECONDS = Math.max(10, SECONDS * 2);
const WORKER_UPDATES = 300;
/** The clients' processes: the bench's own event loop would otherwise queue 1,000 TLS clients' reads. */
const SUBSCRIBER_PROCESSES = Number(process.env.BENCH_TRAFFIC_SUBSCRIBER_PROCESSES ?? 4);
const PROBE_PREFIX = "flight|probe";
const M_PER_DEG = 111_195;

interface Placed {
  id: string;
  latitude: number;
  longitude: number;
}

/** Deterministic spread over the region (a small LCG): the same layout every run. */
function placer(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return () => ({
    latitude: SFO[0] - REGION_DEG / 2 + next() * REGION_DEG,
    longitude: SFO[1] - REGION_DEG / 2 + next() * REGION_DEG,
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

async function inBatches<T>(items: T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(each));
}

export const suite: BenchSuite = {
  name: "traffic",
  async run(ctx: BenchContext) {
    const headers = {
      "x-api-key": ctx.apiKey,
      authorization: `Bearer ${ctx.token}`,
      "content-type": "application/json",
    };
    const place = placer(36);
    console.log(`  creating ${MONITORED} flights in a ${REGION_DEG}° region…`);
    const flights: Placed[] = [];
    await inBatches(
      Array.from({ length: MONITORED }, () => place()),
      16,
      async (at) => {
        const res = await fetch(`${ctx.baseUrl}/flight/v2/point`, {
          method: "POST",
          headers,
          body: JSON.stringify({ ...at, buffer: 200, max_altitude: 100 }),
        });
        if (!res.ok) throw new Error(`flight: ${res.status} ${await res.text()}`);
        flights.push({ id: ((await res.json()) as { data: { id: string } }).data.id, ...at });
      },
    );
    const others: Placed[] = Array.from({ length: FEED_TRACKS - MONITORED }, (_, i) => ({
      id: `flight|bench${i}`,
      ...place(),
    }));
    const aircraft = Array.from({ length: ADSB_TRACKS }, (_, i) => ({
      hex: (0xb00000 + i).toString(16).toUpperCase(),
      ...place(),
    }));

    // The receiver: every aircraft's position once a second on the SBS connection.
    const sbsSockets = new Set<Socket>();
    const sbs = createServer((socket) => {
      sbsSockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => sbsSockets.delete(socket));
    });
    await new Promise<void>((r) => sbs.listen(0, "127.0.0.1", r));
    const tlsDir = path.join(ctx.stateDir, "traffic-bench-tls");
    const broker = await startTrafficProcess({
      workerUrl: ctx.baseUrl,
      secret: ensureDevVars().RELAY_SECRET!,
      tlsDir,
      flags: [`--sbs=127.0.0.1:${(sbs.address() as { port: number }).port}`, "--max-pending-auth=64"],
    });
    const brokerPid = broker.child.pid!;
    const ca = readFileSync(path.join(tlsDir, "ca.crt"));
    const feed = `http://127.0.0.1:${broker.feedPort}/v1/positions`;
    const secret = ensureDevVars().RELAY_SECRET!;
    /** Probe intruder id → when its position was pushed. */
    const probes = new Map<string, { flight: string; sentAt: number; latency?: number }>();
    let received = 0;
    let retries = 0;
    let stopFeeding = () => {};
    const subscribers: ChildProcess[] = [];
    const stopSubscribers = () => {
      for (const child of subscribers.splice(0)) {
        child.removeAllListeners("exit");
        if (child.connected) child.send("stop");
        else child.kill();
      }
    };
    try {
      console.log(
        `  connecting ${MONITORED} MQTT clients over TLS from ${SUBSCRIBER_PROCESSES} processes of their own…`,
      );
      const connectStarted = Date.now();
      const share = Math.ceil(flights.length / SUBSCRIBER_PROCESSES);
      await Promise.all(
        Array.from({ length: SUBSCRIBER_PROCESSES }, (_, i) => {
          const child = fork(path.join(import.meta.dirname, "trafficSubscribers.ts"), {
            execArgv: ["--import", "tsx"],
            stdio: ["ignore", "inherit", "inherit", "ipc"],
          });
          subscribers.push(child);
          return new Promise<void>((resolve, reject) => {
            child.on("message", (report: SubscriberReport) => {
              if (report.type === "connected") {
                retries += report.retries;
                resolve();
              } else if (report.type === "failed") reject(new Error(`subscribers: ${report.message}`));
              else if (report.type === "received") received += report.count;
              else {
                const probe = probes.get(report.trackId);
                if (probe && probe.flight === report.flightId && probe.latency === undefined)
                  probe.latency = report.at - probe.sentAt;
              }
            });
            child.once("exit", (code) => reject(new Error(`a subscriber process exited (${code})`)));
            child.send({
              port: broker.port,
              ca: ca.toString(),
              token: ctx.token,
              flightIds: flights.slice(i * share, (i + 1) * share).map((f) => f.id),
              probePrefix: PROBE_PREFIX,
            } satisfies SubscriberShare);
          });
        }),
      );
      console.log(
        `  ${flights.length} clients connected and subscribed in ${((Date.now() - connectStarted) / 1000).toFixed(1)} s (${retries} CONNECTs retried after "server unavailable")`,
      );

      // Every track once a second: the feed in 8 posts a second, the SBS lines in one write.
      const feedTracks = [...flights, ...others];
      let failedPosts = 0;
      /** Pushes the broker has not answered yet: it answers each once its positions are weighed. */
      let pushesWaiting = 0;
      const post = (positions: unknown[]) => {
        pushesWaiting++;
        return fetch(feed, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}` },
          body: JSON.stringify({ positions }),
        })
          .then((r) => r.body?.cancel())
          .catch(() => {
            failedPosts++;
          })
          .finally(() => pushesWaiting--);
      };
      let tick = 0;
      const feedingFrom = Date.now();
      /** Where a track is at `at`: east at 5 m/s from where it started, as its reports say. */
      const eastOf = (t: Placed, at: number) =>
        t.longitude + (5 * (at - feedingFrom)) / 1000 / (M_PER_DEG * Math.cos((t.latitude * Math.PI) / 180));
      const slice = Math.ceil(feedTracks.length / 8);
      const feeding = setInterval(() => {
        const now = Date.now();
        const part = feedTracks.slice((tick % 8) * slice, ((tick % 8) + 1) * slice);
        void post(
          part.map((t) => ({
            flight_id: t.id,
            latitude: t.latitude,
            longitude: eastOf(t, now),
            altitude_m: 60,
            ground_speed_ms: 5,
            heading_deg: 90,
            recorded_at: now,
          })),
        );
        if (tick % 8 === 0) {
          const lines = aircraft.map(
            (a) =>
              `MSG,3,1,1,${a.hex},1,2026/11/28,23:00:00.000,2026/11/28,23:00:00.000,,${800 + (Number.parseInt(a.hex, 16) % 40) * 100},,,${a.latitude.toFixed(5)},${a.longitude.toFixed(5)},,,0,0,0,0\n`,
          );
          for (const socket of sbsSockets) socket.write(lines.join(""));
        }
        tick++;
      }, 125);
      stopFeeding = () => clearInterval(feeding);

      // Probes: an intruder 400 m north of a monitored flight, ten a second, each new.
      let probeCount = 0;
      const probing = setInterval(() => {
        const f = flights[probeCount % flights.length]!;
        const id = `${PROBE_PREFIX}${probeCount++}`;
        probes.set(id, { flight: f.id, sentAt: Date.now() });
        void post([
          {
            flight_id: id,
            latitude: f.latitude + 400 / M_PER_DEG,
            longitude: eastOf(f, Date.now()),
            altitude_m: 60,
            ground_speed_ms: 0,
            heading_deg: 0,
            recorded_at: Date.now(),
          },
        ]);
      }, 100);

      // Warm-up: every flight first gets every track near it at once. The steady state starts once the
      // broker keeps up (at most half a second of pushes unanswered, three seconds running), or after 2 minutes.
      const warmUpFrom = Date.now();
      for (let keptUp = 0; keptUp < 3 && Date.now() - warmUpFrom < 120_000; ) {
        await new Promise((r) => setTimeout(r, 1000));
        keptUp = pushesWaiting <= 9 && Date.now() - warmUpFrom >= 5000 ? keptUp + 1 : 0;
      }
      console.log(
        `  warm-up: ${((Date.now() - warmUpFrom) / 1000).toFixed(0)} s until the broker kept up with the feed`,
      );
      probes.clear();
      const metricsBefore = await brokerMetrics(broker.feedPort);
      const cpuBefore = cpuSecondsOf(brokerPid);
      const receivedBefore = received;
      const startedAt = Date.now();
      let peakRss = 0;
      while (Date.now() - startedAt < STEADY_SECONDS * 1000) {
        await new Promise((r) => setTimeout(r, 1000));
        peakRss = Math.max(peakRss, rssMb(brokerPid));
      }
      const seconds = (Date.now() - startedAt) / 1000;
      const cpu = cpuSecondsOf(brokerPid) - cpuBefore;
      const metricsAfter = await brokerMetrics(broker.feedPort);
      clearInterval(probing);
      // Every probe of the window counts: one still unanswered 10 s after the window counts as its
      // wait so far (a lower bound), never as absent.
      const graceFrom = Date.now();
      while ([...probes.values()].some((p) => p.latency === undefined) && Date.now() - graceFrom < 10_000)
        await new Promise((r) => setTimeout(r, 200));
      const unanswered = [...probes.values()].filter((p) => p.latency === undefined).length;
      const latencies = [...probes.values()].map((p) => p.latency ?? Date.now() - p.sentAt);
      const updates =
        (metricsAfter.traffic_positions_received_total ?? 0) -
        (metricsBefore.traffic_positions_received_total ?? 0) +
        (metricsAfter.traffic_adsb_tracks_total ?? 0) -
        (metricsBefore.traffic_adsb_tracks_total ?? 0);
      const published = (name: string) => (metricsAfter[name] ?? 0) - (metricsBefore[name] ?? 0);
      const messages =
        published('traffic_messages_published_total{topic="alert"}') +
        published('traffic_messages_published_total{topic="sa"}');
      const p50 = percentile(latencies, 50);
      const p95 = percentile(latencies, 95);
      console.log(
        `  ${seconds.toFixed(0)} s steady: ${(updates / seconds).toFixed(0)} track updates/s, ${(messages / seconds).toFixed(0)} messages/s published, ${((received - receivedBefore) / seconds).toFixed(0)}/s received by the clients`,
      );
      console.log(
        `  arrival → alert PUBLISH received: p50 ${p50} ms, p95 ${p95} ms over ${latencies.length} probes, ${unanswered} unanswered 10 s after (goal p95 ≤ 1000 ms)`,
      );
      console.log(
        `  broker: ${(cpu / seconds).toFixed(2)} CPU s/s, ${((cpu / updates) * 1e6).toFixed(1)} µs CPU per track update, peak RSS ${peakRss.toFixed(0)} MB`,
      );
      stopFeeding();
      if (broker.child.exitCode !== null)
        throw new Error(`the broker exited: ${broker.output.slice(-10).join("\n")}`);
      console.log(`  feed posts failed: ${failedPosts}`);
      // The worker alone: the broker's re-checks of 1,000 clients would count as its work.
      stopSubscribers();
      await broker.stop();

      const worker = await workerCostPerUpdate(ctx, headers);
      console.log(
        `  worker: ${worker.microseconds.toFixed(0)} µs workerd CPU per position stored over HTTP ingest (includes its push to the broker), ${WORKER_UPDATES} updates`,
      );
      return {
        ratio: Math.round((p95 / 1000) * 100) / 100,
        goal: "alert p95 ≤ 1 s (ratio = p95 in seconds)",
        monitored_flights: MONITORED,
        tracks: FEED_TRACKS + ADSB_TRACKS,
        region_deg: REGION_DEG,
        alert_latency_ms: { p50, p95, probes: latencies.length, unanswered },
        track_updates_per_s: Math.round(updates / seconds),
        messages_per_s: Math.round(messages / seconds),
        broker_cpu_us_per_update: Math.round((cpu / updates) * 1e6 * 10) / 10,
        broker_cpu_share: Math.round((cpu / seconds) * 100) / 100,
        broker_peak_rss_mb: Math.round(peakRss),
        worker_cpu_us_per_update: Math.round(worker.microseconds),
        connects_retried: retries,
        feed_posts_failed: failedPosts,
        loadavg: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
      };
    } finally {
      stopFeeding();
      stopSubscribers();
      for (const socket of sbsSockets) socket.destroy();
      sbs.close();
      await broker.stop();
    }
  },
};

async function brokerMetrics(port: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Object.fromEntries(
    text
      .split("\n")
      .filter(Boolean)
      .map((line) => [line.slice(0, line.lastIndexOf(" ")), Number(line.slice(line.lastIndexOf(" ") + 1))]),
  );
}

/** workerd's CPU per position stored over HTTP ingest, one state per request, on one flight. */
async function workerCostPerUpdate(ctx: BenchContext, headers: Record<string, string>) {
  const services = JSON.parse(readFileSync(path.join(ctx.stateDir, "services.json"), "utf8")) as {
    worker: { pid: number };
  };
  const res = await fetch(`${ctx.baseUrl}/flight/v2/point`, {
    method: "POST",
    headers,
    body: JSON.stringify({ latitude: SFO[0], longitude: SFO[1], buffer: 200, max_altitude: 100 }),
  });
  const flightId = ((await res.json()) as { data: { id: string } }).data.id;
  const before = readGroupActivity(services.worker.pid, "workerd")?.cpuTicks ?? 0;
  for (let i = 0; i < WORKER_UPDATES; i++) {
    const r = await fetch(`${ctx.baseUrl}/flight/v2/${flightId}/telemetry`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        states: [
          {
            timestamp: { value: new Date().toISOString(), format: "RFC3339" },
            position: { lat: SFO[0] + i * 1e-5, lng: SFO[1], alt: 60 },
            track: 0,
            speed: 5,
            vertical_speed: 0,
          },
        ],
      }),
    });
    await r.body?.cancel();
  }
  const after = readGroupActivity(services.worker.pid, "workerd")?.cpuTicks ?? 0;
  return { microseconds: ((after - before) / TICKS_PER_SECOND / WORKER_UPDATES) * 1e6 };
}
