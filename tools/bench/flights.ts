import { type BenchContext, type BenchSuite, measure, ratio, report } from "./harness";

const FLIGHTS = 10_000;

/** Gives the bench pilot 10,000 flights once; the bench state keeps them between runs. */
async function ensureFlights(ctx: BenchContext): Promise<void> {
  const headers = {
    "x-api-key": ctx.apiKey,
    authorization: `Bearer ${ctx.token}`,
    "content-type": "application/json",
  };
  const res = await fetch(`${ctx.baseUrl}/flight/v2/?limit=1`, { headers });
  const have = ((await res.json()) as { data: { paging: { total: number } } }).data.paging.total;
  if (have >= FLIGHTS) return;
  console.log(`  creating ${FLIGHTS - have} flights for the bench pilot (once)…`);
  let next = have;
  const day = 24 * 60 * 60 * 1000;
  const worker = async () => {
    while (next < FLIGHTS) {
      const i = next++;
      const start = Date.now() - i * day;
      const body = JSON.stringify({
        latitude: 34 + (i % 100) * 0.01,
        longitude: -118 - Math.floor(i / 100) * 0.01,
        start_time: new Date(start).toISOString(),
        end_time: new Date(start + 3_600_000).toISOString(),
      });
      const created = await fetch(`${ctx.baseUrl}/flight/v2/point`, { method: "POST", headers, body });
      if (!created.ok) throw new Error(`creating flight ${i}: ${created.status} ${await created.text()}`);
      if (i % 2000 === 0) console.log(`  … ${i} / ${FLIGHTS}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/** Listing 100 of a pilot's 10,000 flights and creating one by point, against one D1 query. */
export const suite: BenchSuite = {
  name: "flights",
  async run(ctx) {
    await ensureFlights(ctx);
    const oneQuery = await measure(ctx, { path: "/dev/v1/db-ping" });
    report("GET /dev/v1/db-ping (one D1 query)", oneQuery);
    const list = await measure(ctx, { path: "/flight/v2/?limit=100", withToken: true });
    report("GET /flight/v2/?limit=100 (of 10,000)", list);
    const create = await measure(ctx, {
      path: "/flight/v2/point",
      method: "POST",
      withToken: true,
      body: { latitude: 47.3769, longitude: 8.5417, start_time: "2040-01-01T00:00:00Z" },
      seconds: 3,
    });
    report("POST /flight/v2/point", create);
    return {
      ratio: ratio(list.rps, oneQuery.rps),
      list_rps: list.rps,
      create_rps: create.rps,
      one_query_rps: oneQuery.rps,
      create_ratio: ratio(create.rps, oneQuery.rps),
      list_p99_ms: list.p99,
    };
  },
};
