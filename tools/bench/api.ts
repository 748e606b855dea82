import { type BenchSuite, measure, ratio, report } from "./harness";

/** The API floor: health (no D1), one trivial D1 query, and a pilot read (key + token + one query). */
export const suite: BenchSuite = {
  name: "api",
  async run(ctx) {
    const health = await measure(ctx, { path: "/health" });
    report("GET /health", health);
    const oneQuery = await measure(ctx, { path: "/dev/v1/db-ping" });
    report("GET /dev/v1/db-ping (one D1 query)", oneQuery);
    const pilot = await measure(ctx, {
      path: `/pilot/v2/${encodeURIComponent(ctx.pilotId)}`,
      withToken: true,
    });
    report("GET /pilot/v2/{id} (own, with statistics)", pilot);
    return {
      ratio: ratio(pilot.rps, oneQuery.rps),
      pilot_rps: pilot.rps,
      one_query_rps: oneQuery.rps,
      health_rps: health.rps,
      pilot_p50_ms: pilot.p50,
      pilot_p99_ms: pilot.p99,
      one_query_to_health: ratio(oneQuery.rps, health.rps),
    };
  },
};
