import { readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { scrapeMetrics } from "../lib/processes";
import {
  type BenchContext,
  type BenchSuite,
  chosenNames,
  type Measurement,
  measure,
  median,
  ratio,
  report,
} from "./harness";
import { lineWith, peer } from "./relay";

/**
 * Issue 11 against the service as `npm start` runs it (the relay with its default limits):
 *   1. one-address burst: 5,000 datagrams of one session in 0.1 s; stored ÷ sent;
 *   2. NAT fleet: 1,000 sessions at 10 Hz for 3 s from one address; stored ÷ sent;
 *   3. unknown-flight flood: 25,000 datagrams of made-up flights in 10 s from one address, while another
 *      client's API route is measured; its p50 under the flood ÷ its p50 unloaded (alternately, twice);
 *   4. a restarted relay: SIGKILL to npm start's relay, time until it serves again;
 *   5. POST /flight/v2/plan with a 9,999-position polygon ÷ with a 5-position one (medians).
 * The flood runs after the burst and the fleet: it leaves 127.0.0.1's failure budget spent.
 * HARDENING_PARTS=burst,fleet,flood,restart,polygon (a comma-separated subset) runs only those.
 */

const BURST = 5000;
const FLEET_SESSIONS = 1000;
const FLEET_HZ = 10;
const FLEET_SECONDS = 3;
const FLOOD = 25_000;
const FLOOD_RATE = 2500;

interface Pilot {
  token: string;
  pilotId: string;
}

async function call(
  ctx: BenchContext,
  pilot: Pilot | undefined,
  method: string,
  route: string,
  body?: unknown,
) {
  const res = await fetch(`${ctx.baseUrl}${route}`, {
    method,
    headers: {
      "x-api-key": ctx.apiKey,
      ...(pilot ? { authorization: `Bearer ${pilot.token}` } : {}),
      "content-type": "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: any }).data;
}

/** A pilot of its own, so the bench pilot's flight list (the flights suite) is not touched. */
async function hardeningPilot(ctx: BenchContext): Promise<Pilot> {
  const data = await call(ctx, undefined, "POST", "/auth/v1/anonymous/token", { user_id: "bench-hardening" });
  const pilotId = JSON.parse(Buffer.from(data.id_token.split(".")[1], "base64url").toString()).sub;
  return { token: data.id_token, pilotId };
}

async function flightInSession(ctx: BenchContext, pilot: Pilot): Promise<{ flightId: string; key: string }> {
  const flightId: string = (
    await call(ctx, pilot, "POST", "/flight/v2/point", { latitude: 47.37, longitude: 8.54 })
  ).id;
  const { key } = await call(ctx, pilot, "POST", `/flight/v2/${flightId}/start-comm`);
  return { flightId, key };
}

async function storedOf(ctx: BenchContext, pilot: Pilot, flightId: string): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const query = `?limit=10000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await call(ctx, pilot, "GET", `/flight/v2/${flightId}/telemetry${query}`);
    count += page.results.length;
    cursor = page.paging.next;
  } while (cursor);
  return count;
}

/** Runs `work` over items, `concurrency` at a time. */
async function inParallel<T, R>(
  items: T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    }),
  );
  return results;
}

/** Counts stored records until they reach `expected` or stop growing for 5 s. */
async function settledCount(count: () => Promise<number>, expected: number): Promise<number> {
  let last = -1;
  let since = Date.now();
  for (;;) {
    const now = await count();
    if (now >= expected) return now;
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since > 5000) return now;
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function sendWith(args: string[]): Promise<{ sent: number; seconds: number }> {
  const sender = peer(args);
  const result = await lineWith(sender, "sent");
  await sender.stop();
  return { sent: result.sent!, seconds: result.seconds! };
}

interface Services {
  relay?: { pid: number; port: number; metrics_port: number };
}
function services(ctx: BenchContext): Services {
  try {
    return JSON.parse(readFileSync(path.join(ctx.stateDir, "services.json"), "utf8"));
  } catch {
    return {}; // being rewritten
  }
}

async function burst(ctx: BenchContext, pilot: Pilot) {
  const flight = await flightInSession(ctx, pilot);
  const offered = await sendWith([
    "send",
    ...["--port", String(ctx.telemetryPort), "--flight", flight.flightId, "--key", flight.key],
    ...["--count", String(BURST), "--rate", String(BURST * 10)],
  ]);
  const stored = await settledCount(() => storedOf(ctx, pilot, flight.flightId), offered.sent);
  console.log(
    `  one-address burst: ${offered.sent} datagrams in ${offered.seconds.toFixed(2)} s, ${stored} stored ` +
      `(${ratio(stored, offered.sent)})`,
  );
  return { sent: offered.sent, stored };
}

async function fleet(ctx: BenchContext, pilot: Pilot) {
  console.log(`  opening ${FLEET_SESSIONS} sessions…`);
  const sessions = await inParallel(
    Array.from({ length: FLEET_SESSIONS }, (_, i) => i),
    16,
    () => flightInSession(ctx, pilot),
  );
  const file = path.join(os.tmpdir(), `windsock-fleet-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(sessions));
  try {
    const offered = await sendWith([
      "fleet",
      ...["--port", String(ctx.telemetryPort), "--sessions", file],
      ...["--hz", String(FLEET_HZ), "--seconds", String(FLEET_SECONDS)],
    ]);
    const countAll = async () =>
      (await inParallel(sessions, 8, (s) => storedOf(ctx, pilot, s.flightId))).reduce((a, b) => a + b, 0);
    const stored = await settledCount(countAll, offered.sent);
    console.log(
      `  NAT fleet: ${FLEET_SESSIONS} sessions at ${FLEET_HZ} Hz from one address, ${offered.sent} datagrams in ` +
        `${offered.seconds.toFixed(1)} s, ${stored} stored (${ratio(stored, offered.sent)})`,
    );
    return { sent: offered.sent, stored };
  } finally {
    rmSync(file, { force: true });
  }
}

async function flood(ctx: BenchContext) {
  // Another client's API traffic: key, token and a D1 read, unrelated to the datagrams.
  const load = { path: `/pilot/v2/${encodeURIComponent(ctx.pilotId)}`, withToken: true, seconds: 5 };
  const metricsPort = services(ctx).relay?.metrics_port;
  const lookUps = async () =>
    metricsPort === undefined
      ? Number.NaN
      : [...(await scrapeMetrics(metricsPort))]
          .filter(([name]) => name.startsWith("windsock_relay_key_fetches_total"))
          .reduce((sum, [, value]) => sum + value, 0);
  await measure(ctx, { ...load, seconds: 2 }); // warm-up
  const unloaded: Measurement[] = [];
  const loaded: Measurement[] = [];
  let fetched = 0;
  let offered = 0;
  for (let round = 0; round < 2; round++) {
    unloaded.push(await measure(ctx, load));
    report(`unloaded, round ${round + 1}: GET /pilot/v2/{id}`, unloaded[round]!);
    const before = await lookUps();
    const sender = peer([
      "unknown",
      ...["--port", String(ctx.telemetryPort), "--count", String(FLOOD), "--rate", String(FLOOD_RATE)],
    ]);
    // The sender builds its datagrams first; measure while it sends.
    await new Promise((r) => setTimeout(r, 2500));
    loaded.push(await measure(ctx, load));
    report(`under the flood, round ${round + 1}: GET /pilot/v2/{id}`, loaded[round]!);
    const result = await lineWith(sender, "sent");
    await sender.stop();
    offered += result.sent!;
    fetched += (await lookUps()) - before;
  }
  // Two rounds each: their median is their mean.
  const medianP50 = (ms: Measurement[]) => median(ms.map((m) => m.p50));
  const base = medianP50(unloaded);
  const underFlood = medianP50(loaded);
  const failed = [...unloaded, ...loaded].some((m) => m.non2xx > 0);
  console.log(
    `  unknown-flight flood: ${offered} datagrams (${FLOOD_RATE}/s), ${fetched} key look-ups by the relay; ` +
      `p50 ${underFlood} ms under it vs ${base} ms unloaded: ${failed ? "failed (non-2xx)" : ratio(underFlood, base)}`,
  );
  return { ratio: failed ? null : ratio(underFlood, base), base, underFlood, lookUps: fetched, offered };
}

/** SIGKILL to npm start's relay; the time until its successor takes datagrams again. */
async function restart(ctx: BenchContext) {
  const before = services(ctx).relay;
  if (!before) throw new Error("no relay in services.json");
  const killedAt = Date.now();
  process.kill(before.pid, "SIGKILL");
  for (;;) {
    const now = services(ctx).relay;
    if (now && now.pid !== before.pid) {
      try {
        await scrapeMetrics(now.metrics_port);
        const ms = Date.now() - killedAt;
        console.log(`  relay SIGKILLed: serving again after ${ms} ms (pid ${before.pid} → ${now.pid})`);
        return ms;
      } catch {
        // not yet
      }
    }
    if (Date.now() - killedAt > 30_000) throw new Error("the relay did not come back within 30 s");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A valid closed ring of `positions` positions (a circle of ~500 m), as [longitude, latitude]. */
function circle(positions: number): { type: "Polygon"; coordinates: number[][][] } {
  const ring: number[][] = [];
  for (let i = 0; i < positions - 1; i++) {
    const angle = (2 * Math.PI * i) / (positions - 1);
    ring.push([-118.485 + 0.006 * Math.cos(angle), 34.015 + 0.005 * Math.sin(angle)]);
  }
  ring.push(ring[0]!);
  return { type: "Polygon", coordinates: [ring] };
}

/** The body of `POST /flight/v2/plan` for a circular area of `positions` positions, an hour ahead. */
export function planBody(positions: number): string {
  return JSON.stringify({
    takeoff_latitude: 34.015,
    takeoff_longitude: -118.485,
    start_time: new Date(Date.now() + 3_600_000).toISOString(),
    end_time: new Date(Date.now() + 7_200_000).toISOString(),
    max_altitude_agl: 100,
    buffer: 0,
    geometry: circle(positions),
  });
}

async function polygons(ctx: BenchContext) {
  const time = async (positions: number, times: number) => {
    const ms: number[] = [];
    let failed = "";
    for (let i = 0; i < times; i++) {
      const started = performance.now();
      const res = await fetch(`${ctx.baseUrl}/flight/v2/plan`, {
        method: "POST",
        headers: {
          "x-api-key": ctx.apiKey,
          authorization: `Bearer ${ctx.token}`,
          "content-type": "application/json",
        },
        body: planBody(positions),
        signal: AbortSignal.timeout(120_000),
      });
      await res.text();
      ms.push(performance.now() - started);
      if (!res.ok) failed = `${res.status}`;
    }
    ms.sort((a, b) => a - b);
    return { median: ms[Math.floor(ms.length / 2)]!, failed };
  };
  await time(5, 3); // warm-up
  const small = await time(5, 21);
  const big = await time(9999, 3);
  const failed = small.failed || big.failed;
  const polygonRatio = failed ? null : ratio(big.median, small.median);
  console.log(
    `  POST /flight/v2/plan: 9,999 positions ${big.median.toFixed(0)} ms, 5 positions ${small.median.toFixed(1)} ms ` +
      `(medians): ${failed ? `failed (HTTP ${failed})` : `${polygonRatio}×`}`,
  );
  return { ratio: polygonRatio, bigMs: Math.round(big.median), smallMs: Math.round(small.median * 10) / 10 };
}

const HARDENING_PARTS = ["burst", "fleet", "flood", "restart", "polygon"] as const;

export const suite: BenchSuite = {
  name: "hardening",
  async run(ctx) {
    const parts = chosenNames("HARDENING_PARTS", HARDENING_PARTS);
    const skipped = { sent: 0, stored: 0 };
    const pilot = await hardeningPilot(ctx);
    const oneAddress = parts.includes("burst") ? await burst(ctx, pilot) : skipped;
    const nat = parts.includes("fleet") ? await fleet(ctx, pilot) : skipped;
    const flooded = parts.includes("flood")
      ? await flood(ctx)
      : { ratio: null, base: 0, underFlood: 0, lookUps: 0, offered: 0 };
    const restartMs = parts.includes("restart") ? await restart(ctx) : null;
    const polygon = parts.includes("polygon")
      ? await polygons(ctx)
      : { ratio: null, bigMs: null, smallMs: null };
    return {
      ratio: flooded.ratio,
      flood_p50_ms: flooded.underFlood,
      unloaded_p50_ms: flooded.base,
      flood_key_lookups: flooded.lookUps,
      flood_datagrams: flooded.offered,
      burst_stored: oneAddress.stored,
      burst_sent: oneAddress.sent,
      burst_ratio: ratio(oneAddress.stored, oneAddress.sent),
      fleet_stored: nat.stored,
      fleet_sent: nat.sent,
      fleet_ratio: ratio(nat.stored, nat.sent),
      relay_restart_ms: restartMs,
      polygon_ratio: polygon.ratio,
      polygon_9999_ms: polygon.bigMs,
      polygon_5_ms: polygon.smallMs,
    };
  },
};
