import {
  type BenchSuite,
  type Comparison,
  chosenRows,
  compare,
  comparisonFields,
  reportComparison,
  SFO,
} from "./harness";

const ONE_QUERY = { path: "/dev/v1/db-ping" };

/** A square of `km` a side centred on a point, as a GeoJSON polygon. */
function square([lat, lng]: [number, number], km: number) {
  const dLat = km / 2 / 111.32;
  const dLng = km / 2 / (111.32 * Math.cos((lat * Math.PI) / 180));
  const [w, s, e, n] = [lng - dLng, lat - dLat, lng + dLng, lat + dLat];
  return {
    type: "Polygon",
    coordinates: [
      [
        [w, s],
        [e, s],
        [e, n],
        [w, n],
        [w, s],
      ],
    ],
  };
}

/** Goals of issue 16 against the one-query route; status's buffer is at most 20 km (a 40 km square). */
const cases: { name: string; label: string; goal?: number; load: Parameters<typeof compare>[2] }[] = [
  ...([1, 10, 50] as const).map((km) => ({
    name: `advisory_v2_${km}km`,
    label: `POST /advisory/v2/airspace (${km} km square, SFO)`,
    goal: km === 10 ? 0.5 : km === 50 ? 0.25 : undefined,
    load: {
      path: "/advisory/v2/airspace",
      method: "POST" as const,
      body: { geometry: square(SFO, km), rulesets: "usa_part_107,usa_advisories" },
    },
  })),
  ...(
    [
      [1, 500],
      [10, 5_000],
      [40, 20_000],
    ] as const
  ).map(([km, buffer]) => ({
    name: `status_${km}km`,
    label: `GET /status/v2/point (SFO, ${buffer / 1000} km buffer)`,
    goal: km === 10 ? 0.5 : km === 40 ? 0.25 : undefined,
    load: { path: `/status/v2/point?latitude=${SFO[0]}&longitude=${SFO[1]}&buffer=${buffer}` },
  })),
];

/**
 * Advisory v2 over squares of 1, 10 and 50 km and status over buffers of 0.5, 5 and 20 km at SFO,
 * each against one D1 query, sampled alternately (full embedded seed).
 */
export const suite: BenchSuite = {
  name: "airspace",
  async run(ctx) {
    const fields: Record<string, unknown> = {};
    const results: Record<string, Comparison> = {};
    // AIRSPACE_ROWS=status_10km,status_40km: only those rows (names as in `cases`).
    const rows = chosenRows("AIRSPACE_ROWS", cases);
    for (const c of rows) {
      const result = await compare(ctx, ONE_QUERY, c.load);
      reportComparison(c.label, "GET /dev/v1/db-ping (one D1 query)", result, c.goal);
      results[c.name] = result;
      Object.assign(fields, comparisonFields(c.name, result, c.goal));
    }
    // The suite's ratio is the 1 km advisory's; a chosen subset without it reports its first row's.
    const headline = results.advisory_v2_1km ?? results[rows[0]!.name]!;
    return {
      ratio: headline.ratio,
      goals_met: rows.every((c) => c.goal === undefined || (results[c.name]!.ratio ?? 0) >= c.goal),
      one_query_rps: headline.baseline.rps,
      ...fields,
    };
  },
};
