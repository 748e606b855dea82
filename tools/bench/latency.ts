import { type BenchContext, type BenchSuite, median } from "./harness";
import { type Answer, type Send, type TypicalRequest, typicalRoutes } from "./typicalRequests";

/**
 * What a consumer far from D1's primary waits: each typical route (typicalRequests.ts) timed one
 * request at a time against the traced worker (worker/dev/index.ts), which delays every storage
 * call by the round trip it would cost (`x-simulated-storage-ms`): first with every read at the
 * primary (replication off), then with session reads at a replica. Only the storage delay is
 * simulated; the worker's own CPU and loopback HTTP are measured as they are.
 */
export const latencyOptions = {
  /** Round trip to D1's primary, and to each Durable Object (they live near their first caller). */
  primaryMs: 150,
  /** Round trip to the nearest D1 read replica. */
  replicaMs: 20,
  /** Timed requests per route and setting. */
  requests: 15,
};

const GOALS = { readP50: 200, readP50WithReplicas: 60, writeP50: 400 };
/** The writes the goal names: flight creation and submit. */
const GOAL_WRITES = ["POST /flight/v2/point", "POST /flight/v2/plan/{plan_id}/submit"];
const WARM_UP_REQUESTS = 2;

/** The p-th percentile of the samples (nearest rank). */
function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function sender(ctx: BenchContext, headers: () => Record<string, string>): Send {
  return async (request: TypicalRequest): Promise<Answer> => {
    const all: Record<string, string> = { "x-api-key": ctx.apiKey, ...headers(), ...request.headers };
    if (request.withToken) all.authorization = `Bearer ${ctx.token}`;
    if (request.body !== undefined) all["content-type"] = "application/json";
    const response = await fetch(`${ctx.baseUrl}${request.path}`, {
      method: request.method,
      headers: all,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    const text = await response.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: response.status, headers: response.headers, json };
  };
}

interface Timing {
  p50: number;
  p95: number;
  roundTrips: number;
}

export const suite: BenchSuite = {
  name: "latency",
  traced: true,
  async run(ctx) {
    const { primaryMs, replicaMs, requests } = latencyOptions;
    const settings = [
      {
        name: "primary",
        delays: `primary=${primaryMs},replica=${primaryMs},object=${primaryMs},r2=${primaryMs}`,
      },
      {
        name: "replicas",
        delays: `primary=${primaryMs},replica=${replicaMs},object=${primaryMs},r2=${primaryMs}`,
      },
    ] as const;
    console.log(
      `  each storage call delayed: ${primaryMs} ms to the primary (and Durable Objects, R2), ${replicaMs} ms to a replica; ${requests} requests a route, one at a time`,
    );
    console.log(
      `  ${"route".padEnd(44)} ${"trips".padStart(5)}  ${"primary p50/p95".padStart(16)}  ${"replicas p50/p95".padStart(17)}`,
    );
    // Preparing (a fresh flight or plan) is not measured: it goes undelayed.
    const prepareSend = sender(ctx, () => ({}));
    const results: Record<string, Record<string, Timing>> = {};
    const failures: string[] = [];
    for (const route of typicalRoutes()) {
      results[route.name] = {};
      for (const setting of settings) {
        let bookmark: string | null = null;
        const send = sender(ctx, () => ({
          "x-simulated-storage-ms": setting.delays,
          ...(bookmark ? { "x-d1-bookmark": bookmark } : {}),
        }));
        const samples: number[] = [];
        const trips: number[] = [];
        for (let i = 0; i < WARM_UP_REQUESTS + requests; i++) {
          const made = route.prepare ? await route.prepare(prepareSend) : "";
          const started = performance.now();
          const answer = await send(route.request(made));
          const elapsed = performance.now() - started;
          if (answer.status !== 200) {
            failures.push(`${route.name}: ${answer.status}`);
            break;
          }
          // The pilot's next request carries what this one saw, as a client keeping bookmarks does.
          bookmark = answer.headers.get("x-d1-bookmark");
          if (i < WARM_UP_REQUESTS) continue;
          const counted = answer.headers.get("x-storage-round-trips");
          if (counted === null)
            throw new Error("the service counts no storage round trips: is it serving worker/dev/index.ts?");
          samples.push(elapsed);
          trips.push(Number(counted));
        }
        if (samples.length === 0) continue;
        results[route.name]![setting.name] = {
          p50: Math.round(percentile(samples, 50)),
          p95: Math.round(percentile(samples, 95)),
          roundTrips: median(trips),
        };
      }
      const r = results[route.name]!;
      const cell = (t: Timing | undefined) => (t ? `${t.p50} / ${t.p95} ms` : "failed");
      console.log(
        `  ${route.name.padEnd(44)} ${String(r.primary?.roundTrips ?? "-").padStart(5)}  ${cell(r.primary).padStart(16)}  ${cell(r.replicas).padStart(17)}`,
      );
    }
    const routes = typicalRoutes();
    const reads = routes.filter((r) => r.kind === "read").map((r) => results[r.name]!);
    const worst = (values: (number | undefined)[]) =>
      values.some((v) => v === undefined) ? null : Math.max(...(values as number[]));
    const readP50 = worst(reads.map((r) => r.primary?.p50));
    const readP50WithReplicas = worst(reads.map((r) => r.replicas?.p50));
    const writeP50 = worst(GOAL_WRITES.map((name) => results[name]?.primary?.p50));
    const met = {
      reads: readP50 !== null && readP50 <= GOALS.readP50,
      reads_with_replicas: readP50WithReplicas !== null && readP50WithReplicas <= GOALS.readP50WithReplicas,
      create_and_submit: writeP50 !== null && writeP50 <= GOALS.writeP50,
    };
    console.log(
      `  slowest read p50 ${readP50} ms (goal ≤ ${GOALS.readP50}${met.reads ? " ✓" : " ✗"}), with replicas ${readP50WithReplicas} ms (goal ≤ ${GOALS.readP50WithReplicas}${met.reads_with_replicas ? " ✓" : " ✗"}); creation and submit ${writeP50} ms (goal ≤ ${GOALS.writeP50}${met.create_and_submit ? " ✓" : " ✗"})`,
    );
    if (failures.length > 0) console.log(`  FAILED: ${failures.join(", ")}`);
    // The worst of the three, as a share of its goal: ≤ 1 when every goal holds.
    const shares = [
      readP50 === null ? null : readP50 / GOALS.readP50,
      readP50WithReplicas === null ? null : readP50WithReplicas / GOALS.readP50WithReplicas,
      writeP50 === null ? null : writeP50 / GOALS.writeP50,
    ];
    return {
      ratio: shares.includes(null) ? null : Math.round(Math.max(...(shares as number[])) * 100) / 100,
      primary_ms: primaryMs,
      replica_ms: replicaMs,
      read_p50_ms: readP50,
      read_p50_with_replicas_ms: readP50WithReplicas,
      create_submit_p50_ms: writeP50,
      goals: GOALS,
      met,
      failures,
      routes: results,
    };
  },
};
