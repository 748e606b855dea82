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

/** Advisory v2 over 1 km² at SFO and status at a point there, against one D1 query, with the full seed. */
export const suite: BenchSuite = {
  name: "airspace",
  async run(ctx) {
    const oneQuery = await measure(ctx, { path: "/dev/v1/db-ping" });
    report("GET /dev/v1/db-ping (one D1 query)", oneQuery);
    const advisory = await measure(ctx, {
      path: "/advisory/v2/airspace",
      method: "POST",
      body: { geometry: SFO_SQUARE_KM, rulesets: "usa_part_107,usa_advisories" },
    });
    report("POST /advisory/v2/airspace (1 km² at SFO)", advisory);
    const status = await measure(ctx, {
      path: "/status/v2/point?latitude=37.619&longitude=-122.375&buffer=500",
    });
    report("GET /status/v2/point (SFO, 500 m)", status);
    return {
      ratio: ratio(advisory.rps, oneQuery.rps),
      advisory_v2_rps: advisory.rps,
      advisory_v2_p50_ms: advisory.p50,
      advisory_v2_p99_ms: advisory.p99,
      status_rps: status.rps,
      status_p50_ms: status.p50,
      status_p99_ms: status.p99,
      one_query_rps: oneQuery.rps,
      status_to_one_query: ratio(status.rps, oneQuery.rps),
    };
  },
};
