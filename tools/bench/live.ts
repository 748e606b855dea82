import { createSocket } from "node:dgram";
import { buildDatagram } from "../../proto/datagram";
import { encodeRecords } from "../../proto/messages";
import { orbit, sampleAt } from "../lib/flightSimulator";
import { type BenchContext, type BenchSuite, median, ratio } from "./harness";

/**
 * Live flights. 1. Records stored per second by a flight's Durable Object with conformance
 * monitoring on (area, window, ceiling against our ground over real terrain: Gothenburg's SRTM3
 * tile) against the same flight shape with monitoring off, in alternating rounds of the same run;
 * `ratio` = on ÷ off (goal ≥ 0.8). 2. The delay from a UDP datagram leaving the sender to its record
 * reaching a watcher of the live stream, through the relay (which batches for up to 200 ms).
 */

const CENTER: [number, number] = [57.67, 11.965];
const STATES_PER_POST = 1000;
const POSTS_PER_ROUND = 6;
const ROUNDS = 3;
const LATENCY_SECONDS = 10;
const LATENCY_RATE = 20;

function headers(ctx: BenchContext) {
  return {
    "x-api-key": ctx.apiKey,
    authorization: `Bearer ${ctx.token}`,
    "content-type": "application/json",
  };
}

async function post<T>(ctx: BenchContext, path: string, body: unknown): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${ctx.baseUrl}${path}`, {
        method: "POST",
        headers: headers(ctx),
        body: JSON.stringify(body),
      });
      text = await res.text();
    } catch (err) {
      if (attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    // wrangler dev reloads when a source file changes and answers "Your worker restarted mid-request".
    if (/restarted mid-request/.test(text) && attempt < 5) continue;
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${text.slice(0, 300)}`);
    return (JSON.parse(text) as { data: T }).data;
  }
}

async function newFlight(ctx: BenchContext): Promise<string> {
  const flight = await post<{ id: string }>(ctx, "/flight/v2/point", {
    latitude: CENTER[0],
    longitude: CENTER[1],
    buffer: 150,
    max_altitude: 60,
    start_time: new Date(Date.now() - 60_000).toISOString(),
    // The rounds' states reach 80 min ahead: the flight lasts beyond them (states are taken up to
    // 5 min after the flight's end, proto/recordTime.ts).
    end_time: new Date(Date.now() + 3 * 3_600_000).toISOString(),
  });
  return flight.id;
}

/** States of an orbit over the terrain that crosses the area's edge and the ceiling now and then. */
function states(count: number, start: number) {
  const pattern = orbit(CENTER, 160);
  return Array.from({ length: count }, (_, i) => {
    const s = sampleAt(
      { pattern, speed: 10, height: 50 + (i % 40), ground: () => 40 },
      i / 5,
      start + i * 200,
      0.2,
    );
    return {
      timestamp: { value: new Date(start + i * 200).toISOString(), format: "RFC3339" },
      // An ellipsoid height: about 36 m of geoid separation at Gothenburg.
      position: { lat: s.position[0], lng: s.position[1], alt: s.altitudeMsl + 36 },
      track: s.heading,
      speed: 10,
      vertical_speed: 0,
    };
  });
}

/** Records stored per second for one round: POSTS_PER_ROUND posts of STATES_PER_POST states, 2 at a time. */
async function round(ctx: BenchContext, flightId: string, start: number): Promise<number> {
  const bodies = Array.from({ length: POSTS_PER_ROUND }, (_, p) => ({
    states: states(STATES_PER_POST, start + p * STATES_PER_POST * 200),
  }));
  const began = performance.now();
  let stored = 0;
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const result = await post<{ stored: number }>(
        ctx,
        `/flight/v2/${encodeURIComponent(flightId)}/telemetry`,
        body,
      );
      stored += result.stored;
    }
  };
  await Promise.all([worker(), worker()]);
  return stored / ((performance.now() - began) / 1000);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function throughput(ctx: BenchContext) {
  const off = await newFlight(ctx);
  const on = await newFlight(ctx);
  await post(ctx, `/dev/v1/flights/${encodeURIComponent(off)}/monitoring`, { enabled: false });
  // Warm both Durable Objects and the elevation chunks.
  let start = Date.now();
  await round(ctx, off, start);
  await round(ctx, on, start);
  const offRates: number[] = [];
  const onRates: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    start += POSTS_PER_ROUND * STATES_PER_POST * 200 + 1000;
    offRates.push(await round(ctx, off, start));
    onRates.push(await round(ctx, on, start));
  }
  const events = await fetch(`${ctx.baseUrl}/flight/v2/${encodeURIComponent(on)}/conformance`, {
    headers: headers(ctx),
  });
  const kept = ((await events.json()) as { data: { results: unknown[] } }).data.results.length;
  return { on: Math.round(median(onRates)), off: Math.round(median(offRates)), events: kept };
}

/** Datagram → watcher: each position carries its send time as its timestamp. */
async function latency(ctx: BenchContext) {
  const flightId = await newFlight(ctx);
  const { key } = await post<{ key: string }>(
    ctx,
    `/flight/v2/${encodeURIComponent(flightId)}/start-comm`,
    {},
  );
  const abort = new AbortController();
  const res = await fetch(`${ctx.baseUrl}/flight/v2/${encodeURIComponent(flightId)}/telemetry/stream`, {
    headers: headers(ctx),
    signal: abort.signal,
  });
  if (!res.ok || !res.body) throw new Error(`stream: ${res.status}`);
  const delays: number[] = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (frame.includes("event: record") && data) {
            const record = JSON.parse(data) as { type: string; timestamp: number };
            if (record.type === "position") delays.push(Date.now() - record.timestamp);
          }
          end = buffer.indexOf("\n\n");
        }
      }
    } catch {
      // aborted at the end
    }
  })();
  const socket = createSocket("udp4");
  const keyBytes = Buffer.from(key, "base64");
  const pattern = orbit(CENTER, 100);
  const total = LATENCY_SECONDS * LATENCY_RATE;
  for (let serial = 1; serial <= total; serial++) {
    const now = Date.now();
    const sample = sampleAt(
      { pattern, speed: 8, height: 40, ground: () => 40 },
      serial / LATENCY_RATE,
      now,
      0.05,
    );
    socket.send(
      buildDatagram({ serial, flightId, key: keyBytes, payload: encodeRecords(sample.records.slice(0, 1)) }),
      ctx.telemetryPort,
      "127.0.0.1",
    );
    await new Promise((r) => setTimeout(r, 1000 / LATENCY_RATE));
  }
  const deadline = Date.now() + 5000;
  while (delays.length < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  abort.abort();
  socket.close();
  await reading;
  return { sent: total, received: delays.length, p50: percentile(delays, 50), p99: percentile(delays, 99) };
}

export const suite: BenchSuite = {
  name: "live",
  async run(ctx) {
    const stored = await throughput(ctx);
    console.log(
      `  HTTP ingest, records stored/s (median of ${ROUNDS})   monitoring on ${stored.on}   off ${stored.off}   (${stored.events} conformance events kept)`,
    );
    const delay = await latency(ctx);
    console.log(
      `  UDP datagram → stream watcher (${delay.received}/${delay.sent} at ${LATENCY_RATE}/s)   p50 ${delay.p50} ms   p99 ${delay.p99} ms`,
    );
    return {
      ratio: ratio(stored.on, stored.off),
      records_per_s_monitoring_on: stored.on,
      records_per_s_monitoring_off: stored.off,
      conformance_events: stored.events,
      watcher_delay_p50_ms: delay.p50,
      watcher_delay_p99_ms: delay.p99,
      watcher_received: delay.received,
    };
  },
};
