import { type BenchSuite, compare, comparisonFields, reportComparison } from "./harness";

/** The API floor: health (no D1), one trivial D1 query, and a pilot read (key + token + one query). */
export const suite: BenchSuite = {
  name: "api",
  async run(ctx) {
    const health = { path: "/health" };
    const oneQuery = { path: "/dev/v1/db-ping" };
    const floor = await compare(ctx, health, oneQuery);
    reportComparison("GET /dev/v1/db-ping (one D1 query)", "GET /health", floor);
    const pilot = await compare(ctx, oneQuery, {
      path: `/pilot/v2/${encodeURIComponent(ctx.pilotId)}`,
      withToken: true,
    });
    reportComparison(
      "GET /pilot/v2/{id} (own, with statistics)",
      "GET /dev/v1/db-ping (one D1 query)",
      pilot,
    );
    return {
      ratio: pilot.ratio,
      one_query_rps: pilot.baseline.rps,
      health_rps: floor.baseline.rps,
      one_query_to_health: floor.ratio,
      ...comparisonFields("pilot", pilot),
    };
  },
};
