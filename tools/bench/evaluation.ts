import { type BenchSuite, measure, ratio, report } from "./harness";

/** About 1 km² over San Francisco International's runways (the embedded default's Class B and facility map). */
const SFO_SQUARE_KM = {
  type: "Polygon",
  coordinates: [
    [
      [-122.3807, 37.6145],
      [-122.3693, 37.6145],
      [-122.3693, 37.6235],
      [-122.3807, 37.6235],
      [-122.3807, 37.6145],
    ],
  ],
};

/**
 * Rule evaluation as the C++ SDK asks for it (rulesets as a comma string, doubles with `.0`) over
 * 1 km² at SFO, against one D1 query. Goal: ratio ≥ 0.5. The one-query route is measured before and
 * after, and the ratio uses their mean, so a machine that gets busier or quieter mid-run skews less.
 */
export const suite: BenchSuite = {
  name: "evaluation",
  async run(ctx) {
    const before = await measure(ctx, { path: "/dev/v1/db-ping" });
    report("GET /dev/v1/db-ping (one D1 query, before)", before);
    const body = `{"geometry":${JSON.stringify(SFO_SQUARE_KM)},"rulesets":"usa_part_107,usa_advisories","flight_features":{"flight_max_altitude_agl":60.0,"uav_weight":1.0,"pilot_remote_certificate":true,"flight_at_night":false}}`;
    const evaluation = await measure(ctx, { path: "/rules/v1/evaluation", method: "POST", body });
    report("POST /rules/v1/evaluation (1 km² at SFO)", evaluation);
    const after = await measure(ctx, { path: "/dev/v1/db-ping" });
    report("GET /dev/v1/db-ping (one D1 query, after)", after);
    const oneQueryRps = (before.rps + after.rps) / 2;
    return {
      ratio: ratio(evaluation.rps, oneQueryRps),
      goal: 0.5,
      evaluation_rps: evaluation.rps,
      evaluation_p50_ms: evaluation.p50,
      evaluation_p99_ms: evaluation.p99,
      evaluation_non2xx: evaluation.non2xx,
      one_query_rps: oneQueryRps,
      one_query_rps_before: before.rps,
      one_query_rps_after: after.rps,
    };
  },
};
