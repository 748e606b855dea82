import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { ROOT } from "../lib/config";
import { AREA as DEEPLINK_AREA } from "./deeplink";
import { planBody } from "./hardening";
import {
  type BenchContext,
  type BenchSuite,
  chosenNames,
  failureText,
  type Measurement,
  measure,
  median,
  ratio,
  report,
  SECONDS,
  WARM_UP_SECONDS,
} from "./harness";

/**
 * Noisy neighbours (issue 27): one account's heavy use must not raise another account's p50 more
 * than 2×. The quiet account reads `GET /pilot/v2/{id}` (key, token, one D1 read) at a steady
 * QUIET_RATE requests a second, alone and then while the noisy account (the bench's development
 * account) runs each of the loads, with the service's own limits on (rate limits, stream
 * caps, the per-account share of expensive work):
 *   watchers: 500 stream attempts with one ticket, then the account's other flights filled with
 *     API-key watchers until its cap refuses them, while telemetry flows to every watched flight;
 *   polygons: four 10,000-position `POST /flight/v2/plan` at once, back to back;
 *   live-page: a flood of the live page with one ticket (10 connections, no key);
 *   deeplink-page: a flood of the deep-link page `/create_flight/v1/` (10 connections, no key);
 *   stranger-pages (issue 37): strangers flood the noisy account's own deep-link page (16 connections,
 *     no key, the `client_id` read from its link); measured here is that account itself, its key's
 *     `POST /flight/v2/point` with its pilot's token, not the quiet account: its p50 at most 2×, no 429.
 * Each load runs NOISY_SECONDS (default 14); the quiet sample (BENCH_SECONDS) starts after
 * BENCH_WARM_UP_SECONDS of it. ratio = quiet p50 alone ÷ quiet p50 under the load, per load; the
 * closing `ratio` is the worst of them (goal ≥ 0.5, the other account's p50 at most 2× its own).
 * NOISY_PARTS=watchers,polygons,live-page,deeplink-page (a comma-separated subset) runs only those.
 * A short check: BENCH_SECONDS=2 BENCH_WARM_UP_SECONDS=1 NOISY_SECONDS=4 npm run bench -- noisy
 */

const NOISE_SECONDS = Number(process.env.NOISY_SECONDS ?? 14);
/** The quiet account's steady rate: well under its key's 1,200 requests a minute. */
const QUIET_RATE = 10;
const TICKET_ATTEMPTS = 500;
const POLYGON_WORKERS = 4;
const POLYGON_POSITIONS = 10_000;
const FLOOD_CONNECTIONS = 10;
const CALLBACK = "https://bench.example/windsock";
const STRANGER_CONNECTIONS = 16;
const PARTS = ["watchers", "polygons", "live-page", "deeplink-page", "stranger-pages"] as const;
type Part = (typeof PARTS)[number];

interface Account {
  apiKey: string;
  token: string;
  pilotId: string;
}

/** A running load: stop() ends it and says what it did. */
type Noise = () => Promise<string>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function call(ctx: BenchContext, who: Account, method: string, route: string, body?: unknown) {
  const res = await fetch(`${ctx.baseUrl}${route}`, {
    method,
    headers: {
      "x-api-key": who.apiKey,
      authorization: `Bearer ${who.token}`,
      "content-type": "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: any }).data;
}

async function pilotOf(ctx: BenchContext, apiKey: string, userId: string): Promise<Account | null> {
  const res = await fetch(`${ctx.baseUrl}/auth/v1/anonymous/token`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify({ user_id: userId }),
  });
  if (res.status === 401) return null;
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`);
  const token = ((await res.json()) as { data: { id_token: string } }).data.id_token;
  const pilotId = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).sub as string;
  return { apiKey, token, pilotId };
}

/** Another account than the development one: its key is made once (keys:create) and kept in the state. */
async function quietAccount(ctx: BenchContext): Promise<Account> {
  const file = path.join(ctx.stateDir, "bench-quiet-api-key");
  if (existsSync(file)) {
    const kept = await pilotOf(ctx, readFileSync(file, "utf8").trim(), "bench-quiet");
    if (kept) return kept;
  }
  const created = spawnSync(
    process.execPath,
    ["--import", "tsx", "tools/keys.ts", "create", "--name", "bench quiet neighbour"],
    { cwd: ROOT, env: { ...process.env, STATE_DIR: ctx.stateDir }, encoding: "utf8" },
  );
  const apiKey = created.stdout.trim().split("\n").at(-1)?.trim();
  if (created.status !== 0 || !apiKey) throw new Error(`keys:create failed: ${created.stderr}`);
  writeFileSync(file, `${apiKey}\n`, { mode: 0o600 });
  const quiet = await pilotOf(ctx, apiKey, "bench-quiet");
  if (!quiet) throw new Error("the quiet account's new key was refused");
  return quiet;
}

async function activeFlight(ctx: BenchContext, noisy: Account): Promise<string> {
  const flight = await call(ctx, noisy, "POST", "/flight/v2/point", {
    latitude: 47.37,
    longitude: 8.54,
    buffer: 200,
    max_altitude: 60,
    start_time: new Date(Date.now() - 60_000).toISOString(),
    end_time: new Date(Date.now() + 3_600_000).toISOString(),
  });
  return flight.id;
}

const ticketOf = async (ctx: BenchContext, noisy: Account, flightId: string): Promise<string> =>
  (await call(ctx, noisy, "POST", `/flight/v2/${encodeURIComponent(flightId)}/ticket`)).ticket;

/** Counts answers by status ("error" for a failed connection). */
function tally(into: Map<string, number>, status: number | string): void {
  into.set(String(status), (into.get(String(status)) ?? 0) + 1);
}
const tallyText = (t: Map<string, number>) => [...t].map(([status, n]) => `${status}×${n}`).join(", ");

/** Opens a stream and reads it until stopped; the status it was answered, or why it failed. */
async function watch(
  url: string,
  headers: Record<string, string>,
  stop: AbortSignal,
): Promise<number | string> {
  try {
    const res = await fetch(url, { headers, signal: stop });
    if (res.status !== 200) {
      await res.body?.cancel();
      return res.status;
    }
    const reader = res.body!.getReader();
    // Read in the background, as an EventSource does, until the bench stops it.
    void (async () => {
      try {
        while (!(await reader.read()).done);
      } catch {
        // stopped
      }
    })();
    return 200;
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return `error (${cause?.code ?? cause?.message ?? String(err)})`;
  }
}

/** A position near the flights' point, now, as ASTM F3411 states. */
function statesNow(count: number) {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    timestamp: { value: new Date(now - (count - i) * 50).toISOString(), format: "RFC3339" },
    position: { lat: 47.37 + i * 1e-5, lng: 8.54, alt: 500, accuracy_h: "HA3m" },
    track: 90,
    speed: 5,
    vertical_speed: 0,
  }));
}

async function watchers(ctx: BenchContext, noisy: Account): Promise<Noise> {
  const flights = await Promise.all([0, 1, 2].map(() => activeFlight(ctx, noisy)));
  const ticket = await ticketOf(ctx, noisy, flights[0]!);
  const stop = new AbortController();
  const statuses = new Map<string, number>();
  const streamUrl = (id: string, query = "") =>
    `${ctx.baseUrl}/flight/v2/${encodeURIComponent(id)}/telemetry/stream${query}`;
  // The attack: 500 watchers on one ticket, at once.
  const onTicket = await Promise.all(
    Array.from({ length: TICKET_ATTEMPTS }, () =>
      watch(streamUrl(flights[0]!, `?ticket=${ticket}`), {}, stop.signal),
    ),
  );
  for (const s of onTicket) tally(statuses, s);
  // Then as many API-key watchers as the caps allow over the account's flights, and then some.
  const keyHeaders = { "x-api-key": noisy.apiKey, authorization: `Bearer ${noisy.token}` };
  const byKey = await Promise.all(
    flights.flatMap((id) => Array.from({ length: 100 }, () => watch(streamUrl(id), keyHeaders, stop.signal))),
  );
  for (const s of byKey) tally(statuses, s);
  // Telemetry to every watched flight, so the watchers are sent frames.
  const feeding = (async () => {
    while (!stop.signal.aborted) {
      await Promise.all(
        flights.map((id) =>
          call(ctx, noisy, "POST", `/flight/v2/${encodeURIComponent(id)}/telemetry`, {
            states: statesNow(20),
          }).catch(() => {}),
        ),
      );
      await sleep(1000);
    }
  })();
  return async () => {
    stop.abort();
    await feeding;
    return `${TICKET_ATTEMPTS + byKey.length} stream attempts: ${tallyText(statuses)}`;
  };
}

async function polygons(ctx: BenchContext, noisy: Account): Promise<Noise> {
  let running = true;
  const statuses = new Map<string, number>();
  const body = planBody(POLYGON_POSITIONS);
  const workers = Array.from({ length: POLYGON_WORKERS }, async () => {
    while (running) {
      try {
        const res = await fetch(`${ctx.baseUrl}/flight/v2/plan`, {
          method: "POST",
          headers: {
            "x-api-key": noisy.apiKey,
            authorization: `Bearer ${noisy.token}`,
            "content-type": "application/json",
          },
          body,
          signal: AbortSignal.timeout(60_000),
        });
        await res.text();
        tally(statuses, res.status);
        // A refused request waits as told (the Retry-After a client honours), not in a hot loop.
        if (res.status === 429) await sleep(Number(res.headers.get("retry-after") ?? 1) * 1000);
      } catch {
        tally(statuses, "error");
      }
    }
  });
  return async () => {
    running = false;
    await Promise.all(workers);
    return `${POLYGON_WORKERS} at once, ${POLYGON_POSITIONS} positions each: ${tallyText(statuses)}`;
  };
}

/** A flood of one keyless URL (a page a browser opens) until stopped. */
function flood(url: string, connections = FLOOD_CONNECTIONS): Noise {
  // Without a callback autocannon returns its running instance, which is also the result's promise.
  const instance = autocannon({
    url,
    connections,
    duration: 3600,
  }) as unknown as autocannon.Instance & PromiseLike<autocannon.Result>;
  return async () => {
    instance.stop();
    const result = await instance;
    const statuses = new Map<string, number>();
    for (const [code, stats] of Object.entries(result.statusCodeStats ?? {}))
      statuses.set(code, (stats as { count: number }).count);
    if (result.errors > 0) statuses.set("error", result.errors);
    return `${result.requests.total} requests (${Math.round(result.requests.average)}/s): ${tallyText(statuses)}`;
  };
}

async function livePage(ctx: BenchContext, noisy: Account): Promise<Noise> {
  const id = await activeFlight(ctx, noisy);
  const ticket = await ticketOf(ctx, noisy, id);
  return flood(`${ctx.baseUrl}/flight/v2/${encodeURIComponent(id)}/live?ticket=${ticket}`);
}

async function deeplinkPage(
  ctx: BenchContext,
  noisy: Account,
  connections = FLOOD_CONNECTIONS,
): Promise<Noise> {
  await call(ctx, noisy, "POST", "/deeplink/v1/callbacks", { url: CALLBACK });
  const { link } = await call(ctx, noisy, "POST", "/deeplink/v1/create_flight", {
    geometry: DEEPLINK_AREA,
    altitude: 60,
    callback_url: CALLBACK,
  });
  const creation = new URL(new URL(link).searchParams.get("link")!);
  return flood(`${ctx.baseUrl}${creation.pathname}${creation.search}`, connections);
}

/** The front's pid as npm start records it: a change means its supervisor restarted it. */
function frontPid(ctx: BenchContext): number | undefined {
  try {
    return JSON.parse(readFileSync(path.join(ctx.stateDir, "services.json"), "utf8")).worker?.pid;
  } catch {
    return undefined; // being rewritten
  }
}

const LOADS: Record<Part, (ctx: BenchContext, noisy: Account) => Promise<Noise>> = {
  watchers,
  polygons,
  "live-page": livePage,
  "deeplink-page": deeplinkPage,
  "stranger-pages": (ctx, noisy) => deeplinkPage(ctx, noisy, STRANGER_CONNECTIONS),
};

export const suite: BenchSuite = {
  name: "noisy",
  limited: true,
  async run(ctx) {
    const parts = chosenNames("NOISY_PARTS", PARTS);
    const noisy: Account = { apiKey: ctx.apiKey, token: ctx.token, pilotId: ctx.pilotId };
    const quiet = await quietAccount(ctx);
    const quietCtx = { ...ctx, apiKey: quiet.apiKey, token: quiet.token };
    const probe = (seconds: number) =>
      measure(quietCtx, {
        path: `/pilot/v2/${encodeURIComponent(quiet.pilotId)}`,
        withToken: true,
        seconds,
        connections: 2,
        rate: QUIET_RATE,
      });
    // stranger-pages measures the flooded account itself: its key's flights, with a pilot of its own.
    const target = (await pilotOf(ctx, ctx.apiKey, "bench-stranger-target"))!;
    const targetCtx = { ...ctx, token: target.token };
    const ownProbe = (seconds: number) =>
      measure(targetCtx, {
        path: "/flight/v2/point",
        method: "POST",
        body: { latitude: 36.12, longitude: -86.68, buffer: 100 },
        withToken: true,
        seconds,
        connections: 2,
        rate: QUIET_RATE,
      });
    await probe(WARM_UP_SECONDS);
    const fields: Record<string, unknown> = {};
    const ratios: number[] = [];
    const alone: number[] = [];
    let failed = false;
    for (const part of parts) {
      const measured = part === "stranger-pages" ? ownProbe : probe;
      const who = part === "stranger-pages" ? "flooded account's own key" : "quiet account";
      const before: Measurement = await measured(SECONDS);
      report(`${who} alone (before ${part})`, before);
      const started = Date.now();
      const pidBefore = frontPid(ctx);
      const stop = await LOADS[part](ctx, noisy);
      await sleep(WARM_UP_SECONDS * 1000);
      const during = await measured(SECONDS);
      report(`${who} during ${part}`, during);
      await sleep(Math.max(0, NOISE_SECONDS * 1000 - (Date.now() - started)));
      console.log(`  ${part}: ${await stop()}`);
      const partRatio = ratio(before.p50, during.p50);
      // A front restarted by npm start's health probes dropped every client's connections.
      const restarted = frontPid(ctx) !== pidBefore;
      if (restarted) console.log(`  ${part}: the front stopped answering /health and was restarted!`);
      const spoiled = before.non2xx + during.non2xx > 0 || restarted;
      if (before.non2xx + during.non2xx > 0)
        console.log(
          `  quiet account refused or failed: ${failureText({ ...before.failures, ...during.failures })}`,
        );
      console.log(
        `  ${part}: quiet p50 ${before.p50} ms alone, ${during.p50} ms during: ${spoiled ? "failed" : partRatio}`,
      );
      failed ||= spoiled;
      ratios.push(partRatio);
      alone.push(before.p50);
      const key = part.replace("-", "_");
      fields[`${key}_ratio`] = spoiled ? null : partRatio;
      fields[`${key}_p50_ms`] = during.p50;
    }
    const worst = failed || ratios.length === 0 ? null : Math.min(...ratios);
    console.log(`  worst: ${worst} (goal ≥ 0.5: the other account's p50 at most 2× its quiet p50)`);
    return { ratio: worst, quiet_p50_ms: median(alone), ...fields };
  },
};
