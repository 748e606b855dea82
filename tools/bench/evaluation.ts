import { type BenchSuite, compare, comparisonFields, reportComparison } from "./harness";

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

const GOAL = 0.5;

/**
 * Rule evaluation as the C++ SDK asks for it (rulesets as a comma string, doubles with `.0`) over
 * 1 km² at SFO, against one D1 query, sampled alternately like every pair. Goal: ratio ≥ 0.5.
 */
export const suite: BenchSuite = {
  name: "evaluation",
  async run(ctx) {
    const body = `{"geometry":${JSON.stringify(SFO_SQUARE_KM)},"rulesets":"usa_part_107,usa_advisories","flight_features":{"flight_max_altitude_agl":60.0,"uav_weight":1.0,"pilot_remote_certificate":true,"flight_at_night":false}}`;
    const result = await compare(
      ctx,
      { path: "/dev/v1/db-ping" },
      { path: "/rules/v1/evaluation", method: "POST", body },
    );
    reportComparison(
      "POST /rules/v1/evaluation (1 km² at SFO)",
      "GET /dev/v1/db-ping (one D1 query)",
      result,
      GOAL,
    );
    return {
      ratio: result.ratio,
      one_query_rps: result.baseline.rps,
      ...comparisonFields("evaluation", result, GOAL),
    };
  },
};
