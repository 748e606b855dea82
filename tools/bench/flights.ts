import {
  type BenchContext,
  type BenchSuite,
  compare,
  comparisonFields,
  reportComparison,
  withRetries,
} from "./harness";

const FLIGHTS = 10_000;
/** Concurrent creations while seeding: enough to keep the worker busy, few enough not to time out. */
const SEEDERS = 8;

const headersOf = (ctx: BenchContext) => ({
  "x-api-key": ctx.apiKey,
  authorization: `Bearer ${ctx.token}`,
  "content-type": "application/json",
});

async function flightCount(ctx: BenchContext): Promise<number> {
  return withRetries("counting the bench pilot's flights", async () => {
    const res = await fetch(`${ctx.baseUrl}/flight/v2/?limit=1`, { headers: headersOf(ctx) });
    if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { paging: { total: number } } }).data.paging.total;
  });
}

/**
 * Gives the bench pilot 10,000 flights once (the bench state keeps them between runs): each
 * creation is retried on failure, and the count is checked afterwards, topping up what is missing.
 */
async function ensureFlights(ctx: BenchContext): Promise<void> {
  const day = 24 * 60 * 60 * 1000;
  for (let pass = 1; pass <= 3; pass++) {
    const have = await flightCount(ctx);
    if (have >= FLIGHTS) return;
    console.log(`  creating ${FLIGHTS - have} flights for the bench pilot (pass ${pass})…`);
    let next = have;
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
        await withRetries(`creating flight ${i}`, async () => {
          const created = await fetch(`${ctx.baseUrl}/flight/v2/point`, {
            method: "POST",
            headers: headersOf(ctx),
            body,
          });
          if (!created.ok) throw new Error(`${created.status} ${await created.text()}`);
        });
        if (i % 2000 === 0) console.log(`  … ${i} / ${FLIGHTS}`);
      }
    };
    await Promise.all(Array.from({ length: SEEDERS }, worker));
  }
  const have = await flightCount(ctx);
  if (have < FLIGHTS) throw new Error(`seeding left the bench pilot ${have} flights of ${FLIGHTS}`);
}

/**
 * Listing 100 of a pilot's 10,000 flights (unfiltered, and filtered by time and by state, which
 * count their matches) and creating one by point, each against one D1 query, sampled alternately.
 */
export const suite: BenchSuite = {
  name: "flights",
  async run(ctx) {
    await ensureFlights(ctx);
    const oneQuery = { path: "/dev/v1/db-ping" };
    const floorLabel = "GET /dev/v1/db-ping (one D1 query)";
    const yearAgo = new Date(Date.now() - 365 * 86_400_000).toISOString();
    const lists = [
      { name: "list", label: "GET /flight/v2/?limit=100 (of 10,000)", path: "/flight/v2/?limit=100" },
      {
        name: "list_by_time",
        label: "GET /flight/v2/?limit=100&start_after=<a year ago>",
        path: `/flight/v2/?limit=100&start_after=${encodeURIComponent(yearAgo)}`,
      },
      {
        name: "list_by_state",
        label: "GET /flight/v2/?limit=100&state=California",
        path: "/flight/v2/?limit=100&state=California",
      },
    ];
    const fields: Record<string, unknown> = {};
    let first: Awaited<ReturnType<typeof compare>> | undefined;
    for (const l of lists) {
      const result = await compare(ctx, oneQuery, { path: l.path, withToken: true });
      reportComparison(l.label, floorLabel, result);
      first ??= result;
      Object.assign(fields, comparisonFields(l.name, result));
    }
    const create = await compare(
      ctx,
      oneQuery,
      {
        path: "/flight/v2/point",
        method: "POST",
        withToken: true,
        // A month ahead: a future flight, within the year ahead the service accepts.
        body: {
          latitude: 47.3769,
          longitude: 8.5417,
          start_time: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        },
      },
      { seconds: 3 },
    );
    reportComparison("POST /flight/v2/point", floorLabel, create);
    return {
      ratio: first!.ratio,
      list_rps: first!.target.rps,
      create_rps: create.target.rps,
      one_query_rps: first!.baseline.rps,
      create_ratio: create.ratio,
      ...fields,
      ...comparisonFields("create", create),
    };
  },
};
