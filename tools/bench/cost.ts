import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { type BenchContext, type BenchSuite, type Load, SFO } from "./harness";

/**
 * `npm run bench -- cost`: the worker's CPU milliseconds per request, from the runtime's own
 * accounting: the user + system CPU time the kernel charged to the workerd processes (under the
 * wrangler that npm start records in STATE_DIR/services.json), read from /proc/<pid>/stat before and
 * after a batch of requests, divided by the requests answered. /health is the floor. The Workers Free
 * plan allows 10 ms of CPU per request; routes over it need a reason or a fix (README).
 * BENCH_SECONDS (default 5) per batch; the kernel counts in ticks of 10 ms, so a batch needs hundreds.
 */

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 4;
const FREE_PLAN_CPU_MS = 10;
/** Tennessee, where npm start loads elevation (N36W085) and airspace. */
const CENTER: [number, number] = [36.55, -84.19];

/** A closed regular polygon of `n` positions, `radiusDeg` across, around CENTER ([lng, lat]). */
function polygon(n: number, radiusDeg = 0.005) {
  const ring = Array.from({ length: n - 1 }, (_, i) => {
    const a = (2 * Math.PI * i) / (n - 1);
    return [CENTER[1] + radiusDeg * Math.cos(a), CENTER[0] + radiusDeg * Math.sin(a)];
  });
  return { type: "Polygon", coordinates: [[...ring, ring[0]]] };
}

/** `count` points on a grid around CENTER, as the `points` text of /ele. */
function points(count: number): string {
  const side = Math.ceil(Math.sqrt(count));
  const out: string[] = [];
  for (let i = 0; i < count; i++)
    out.push(
      `${(CENTER[0] + (Math.floor(i / side) * 0.1) / side).toFixed(5)},${(CENTER[1] + ((i % side) * 0.1) / side).toFixed(5)}`,
    );
  return out.join(",");
}

interface Case {
  route: string;
  input: "floor" | "typical" | "maximum";
  load: Load;
}

function cases(ctx: BenchContext): Case[] {
  const start = new Date(Date.now() + 3600_000).toISOString();
  const end = new Date(Date.now() + 7200_000).toISOString();
  const plan = (n: number) => ({
    takeoff_latitude: CENTER[0],
    takeoff_longitude: CENTER[1],
    geometry: polygon(n),
    start_time: start,
    end_time: end,
    max_altitude_agl: 60,
  });
  const post = (p: string, body: unknown, withToken = false): Load => ({
    path: p,
    method: "POST",
    body,
    withToken,
  });
  const [lat, lng] = CENTER;
  return [
    { route: "GET /health", input: "floor", load: { path: "/health" } },
    {
      route: "GET /elevation/v1/ele",
      input: "typical",
      load: { path: `/elevation/v1/ele?points=${points(10)}` },
    },
    {
      route: "POST /elevation/v1/ele",
      input: "maximum",
      load: post("/elevation/v1/ele", { points: points(10_000) }),
    },
    {
      route: "GET /elevation/v1/ele/carpet",
      input: "typical",
      load: {
        path: `/elevation/v1/ele/carpet?points=${lat - 0.15},${lng + 0.07},${lat - 0.1},${lng + 0.12}`,
      },
    },
    {
      route: "GET /elevation/v1/ele/carpet",
      input: "maximum",
      load: { path: `/elevation/v1/ele/carpet?points=${lat - 0.2},${lng - 0.2},${lat + 0.2},${lng + 0.2}` },
    },
    {
      route: "GET /status/v2/point",
      input: "typical",
      load: { path: `/status/v2/point?latitude=${lat}&longitude=${lng}&buffer=500` },
    },
    {
      // The largest answer: a 20 km buffer at San Francisco lists its Class B's 864 facility-map cells.
      route: "GET /status/v2/point",
      input: "maximum",
      load: { path: `/status/v2/point?latitude=${SFO[0]}&longitude=${SFO[1]}&buffer=20000` },
    },
    { route: "POST /rules/v1", input: "typical", load: post("/rules/v1/", { geometry: polygon(20) }) },
    { route: "POST /rules/v1", input: "maximum", load: post("/rules/v1/", { geometry: polygon(10_000) }) },
    {
      route: "POST /advisory/v2/airspace",
      input: "typical",
      load: post("/advisory/v2/airspace", { geometry: polygon(20), rulesets: "usa_part_107" }),
    },
    {
      route: "POST /advisory/v2/airspace",
      input: "maximum",
      load: post("/advisory/v2/airspace", { geometry: polygon(10_000, 0.4), rulesets: "usa_part_107" }),
    },
    {
      route: "POST /airspace/v2/search",
      input: "typical",
      load: post("/airspace/v2/search", { geometry: polygon(20), buffer: 500 }),
    },
    { route: "POST /flight/v2/plan", input: "typical", load: post("/flight/v2/plan", plan(20), true) },
    { route: "POST /flight/v2/plan", input: "maximum", load: post("/flight/v2/plan", plan(10_000), true) },
    {
      route: "POST /deeplink/v1/create_flight",
      input: "typical",
      load: post("/deeplink/v1/create_flight", { geometry: polygon(20) }),
    },
    {
      route: "GET /pilot/v2/{id}",
      input: "typical",
      load: { path: `/pilot/v2/${encodeURIComponent(ctx.pilotId)}`, withToken: true },
    },
    { route: "GET /system/v1/status", input: "typical", load: { path: "/system/v1/status" } },
    { route: "GET /openapi.json", input: "typical", load: { path: "/openapi.json" } },
  ];
}

/** The workerd processes serving the API: descendants of the worker npm start recorded. */
function workerdPids(stateDir: string): number[] {
  const services = JSON.parse(readFileSync(path.join(stateDir, "services.json"), "utf8")) as {
    worker: { pid: number };
  };
  const children = new Map<number, number[]>();
  const names = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      names.set(Number(entry), stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")));
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const visit = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      if (names.get(c) === "workerd") found.push(c);
      visit(c);
    }
  };
  visit(services.worker.pid);
  if (found.length === 0) throw new Error(`no workerd process under the worker (pid ${services.worker.pid})`);
  return found;
}

/** User + system CPU of the processes, in ms (/proc/<pid>/stat fields 14 and 15, in clock ticks of 10 ms). */
function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

async function cpuPerRequest(
  ctx: BenchContext,
  load: Load,
): Promise<{ ms: number; requests: number; failed: number }> {
  const pids = workerdPids(ctx.stateDir);
  const headers: Record<string, string> = { "x-api-key": ctx.apiKey };
  if (load.withToken) headers.authorization = `Bearer ${ctx.token}`;
  let body: string | undefined;
  if (load.body !== undefined) {
    body = JSON.stringify(load.body);
    headers["content-type"] = "application/json";
  }
  const before = cpuMs(pids);
  const result = await autocannon({
    url: `${ctx.baseUrl}${load.path}`,
    method: load.method ?? "GET",
    headers,
    body,
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  const spent = cpuMs(pids) - before;
  const requests = result.requests.total;
  return {
    ms: requests > 0 ? spent / requests : Number.NaN,
    requests,
    failed: result.non2xx + result.errors,
  };
}

export const suite: BenchSuite = {
  name: "cost",
  async run(ctx) {
    console.log(
      `CPU ms per request of the workerd processes (${SECONDS} s per row, ${CONNECTIONS} connections)`,
    );
    console.log(
      `${"route".padEnd(34)} ${"input".padEnd(8)} ${"cpu ms".padStart(8)} ${"× health".padStart(9)} ${"requests".padStart(9)}  note`,
    );
    const rows: { route: string; input: string; cpu_ms: number; failed: number }[] = [];
    let floor = Number.NaN;
    for (const c of cases(ctx)) {
      const m = await cpuPerRequest(ctx, c.load);
      if (c.input === "floor") floor = m.ms;
      const notes = [
        m.failed > 0 ? `${m.failed} non-2xx` : "",
        c.input === "typical" && m.ms > FREE_PLAN_CPU_MS ? `over ${FREE_PLAN_CPU_MS} ms` : "",
      ].filter(Boolean);
      console.log(
        `${c.route.padEnd(34)} ${c.input.padEnd(8)} ${m.ms.toFixed(2).padStart(8)} ${(m.ms / floor).toFixed(1).padStart(9)} ${String(m.requests).padStart(9)}  ${notes.join("; ")}`,
      );
      rows.push({ route: c.route, input: c.input, cpu_ms: Math.round(m.ms * 100) / 100, failed: m.failed });
    }
    const typical = rows.filter((r) => r.input === "typical");
    const worst = Math.max(...typical.map((r) => r.cpu_ms));
    return {
      // The heaviest typical request against the Free plan's 10 ms.
      ratio: Math.round((worst / FREE_PLAN_CPU_MS) * 100) / 100,
      health_cpu_ms: Math.round(floor * 100) / 100,
      over_10ms_typical: typical.filter((r) => r.cpu_ms > FREE_PLAN_CPU_MS).map((r) => r.route),
      rows,
    };
  },
};
