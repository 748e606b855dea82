import {
  type BenchSuite,
  compare,
  comparisonFields,
  measure,
  ratio,
  report,
  reportComparison,
} from "./harness";

/** Three nautical miles north of McGhee Tyson: rulesets and a controlled-airspace advisory to draw. */
export const AREA = {
  type: "Polygon",
  coordinates: [
    [
      [-83.995, 35.858],
      [-83.99, 35.858],
      [-83.99, 35.862],
      [-83.995, 35.862],
      [-83.995, 35.858],
    ],
  ],
};
const CALLBACK = "https://bench.example/windsock";

/**
 * The link builder against the one-query floor, and the page, which renders after two in-process
 * API calls (rules, then advisories): its cost against calling those two routes directly.
 */
export const suite: BenchSuite = {
  name: "deeplink",
  async run(ctx) {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${ctx.baseUrl}${path}`, {
        method: "POST",
        headers: { "x-api-key": ctx.apiKey, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data: { link?: string } };
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
      return json.data;
    };
    await post("/deeplink/v1/callbacks", { url: CALLBACK });
    const linkRequest = { geometry: AREA, altitude: 60, callback_url: CALLBACK };
    const { link } = await post("/deeplink/v1/create_flight", linkRequest);
    const creation = new URL(new URL(link!).searchParams.get("link")!);

    const floorLoad = { path: "/dev/v1/db-ping" };
    const floorLabel = "GET /dev/v1/db-ping (one D1 query)";
    const builder = await compare(ctx, floorLoad, {
      path: "/deeplink/v1/create_flight",
      method: "POST",
      body: linkRequest,
    });
    reportComparison("POST /deeplink/v1/create_flight", floorLabel, builder);
    const rules = await measure(ctx, { path: "/rules/v1/", method: "POST", body: { geometry: AREA } });
    report("POST /rules/v1/", rules);
    const advisory = await measure(ctx, {
      path: "/advisory/v2/airspace",
      method: "POST",
      body: { geometry: AREA, rulesets: "usa_part_107,usa_national_parks,usa_advisories" },
    });
    report("POST /advisory/v2/airspace", advisory);
    const page = await compare(ctx, floorLoad, {
      path: `${creation.pathname}${creation.search}`,
      headers: { "accept-language": "en-US" },
    });
    reportComparison("GET /create_flight/v1/ (rules + advisories + render)", floorLabel, page);
    // Serving rules then advisories one after the other bounds what the page can reach.
    const directMs = 1000 / rules.rps + 1000 / advisory.rps;
    return {
      ratio: builder.ratio,
      builder_rps: builder.target.rps,
      builder_p99_ms: builder.target.p99,
      page_rps: page.target.rps,
      page_p50_ms: page.target.p50,
      page_p99_ms: page.target.p99,
      page_to_direct_calls: ratio(page.target.rps, 1000 / directMs),
      non2xx: builder.target.non2xx + page.target.non2xx + rules.non2xx + advisory.non2xx,
      ...comparisonFields("builder", builder),
      ...comparisonFields("page", page),
    };
  },
};
