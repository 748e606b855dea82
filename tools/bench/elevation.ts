import {
  type BenchContext,
  type BenchSuite,
  type Comparison,
  chosenRows,
  compare,
  comparisonFields,
  type Load,
  reportComparison,
  withRetries,
} from "./harness";

type LatLng = [number, number];

/** A grid of n×n points in a square of `size` degrees from a south-west corner. */
function grid([lat, lng]: LatLng, n: number, size: number): LatLng[] {
  return Array.from({ length: n * n }, (_, i) => [
    lat + (Math.floor(i / n) * size) / n,
    lng + ((i % n) * size) / n,
  ]);
}

/** `count` points spread at random over the 1° tile with this south-west corner (seeded: same every run). */
function randomInTile([lat, lng]: LatLng, count: number, seed: number): LatLng[] {
  let s = seed;
  const next = () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
  return Array.from({ length: count }, () => [lat + next(), lng + next()]);
}

const query = (points: LatLng[]) =>
  points.map(([lat, lng]) => `${lat.toFixed(5)},${lng.toFixed(5)}`).join(",");

/** The embedded samples: Gothenburg (3″, the whole tile N57E011), Jacksboro (3″) and Luxembourg (30″). */
const GOTHENBURG: LatLng = [57.7, 11.9];
const GOTHENBURG_TILE: LatLng = [57, 11];
const JACKSBORO: LatLng = [36.3, -84.3];
const LUXEMBOURG: LatLng = [49.6, 6.0];

/** 10 km due east at this latitude. */
function tenKmEast([lat, lng]: LatLng): LatLng {
  return [lat, lng + 10 / (111.32 * Math.cos((lat * Math.PI) / 180))];
}

const RANDOM_1000 = randomInTile(GOTHENBURG_TILE, 1000, 16);

/**
 * Each scenario reads chunks no earlier one did, so its first request is cold (manifest or chunks
 * from R2) and the load after it warm (isolate cache only). Goals of issue 16 against /health;
 * `baseline` replaces /health where a row isolates one cost.
 */
const scenarios: (Load & {
  name: string;
  label: string;
  goal?: number;
  baseline?: Load;
  baselineLabel?: string;
})[] = [
  {
    // 25 chunks of a 3″ tile, most points in a different chunk from the one before.
    name: "ele1000_random_tile",
    label: "/ele, 1,000 random points across a tile",
    path: `/elevation/v1/ele?points=${query(RANDOM_1000)}`,
    goal: 0.6,
  },
  {
    // The 18 KB URL with no work behind it: the most any route can reach with this URL, since the
    // local front (wrangler dev's proxy process, then workerd's entry) reads each URL several times.
    name: "health_same_url",
    label: "GET /health?points=<the same 1,000> (the front's ceiling)",
    path: `/health?points=${query(RANDOM_1000)}`,
  },
  {
    // The same 18 KB URL on /health as the baseline: the ratio is the worker's own share of the work.
    name: "ele1000_vs_same_url",
    label: "/ele, 1,000 random points (vs /health, same URL)",
    path: `/elevation/v1/ele?points=${query(RANDOM_1000)}`,
    baseline: { path: `/health?points=${query(RANDOM_1000)}` },
    baselineLabel: "GET /health?points=<the same 1,000>",
  },
  {
    name: "ele1000_post",
    label: "POST /ele, the same 1,000 points in a body",
    path: "/elevation/v1/ele",
    method: "POST",
    body: { points: query(RANDOM_1000) },
  },
  {
    name: "ele100_one_tile",
    label: "/ele, 100 points in one tile",
    path: `/elevation/v1/ele?points=${query(grid(GOTHENBURG, 10, 0.05))}`,
  },
  {
    name: "ele100_three_tiles",
    label: "/ele, 100 points over three tiles",
    path: `/elevation/v1/ele?points=${query([
      ...grid([57.3, 11.3], 6, 0.05).slice(0, 34),
      ...grid(JACKSBORO, 6, 0.05).slice(0, 33),
      ...grid(LUXEMBOURG, 6, 0.05).slice(0, 33),
    ])}`,
  },
  {
    name: "carpet_04deg",
    label: "/ele/carpet, 0.4° (481², 1 MB)",
    path: "/elevation/v1/ele/carpet?points=57.3,11.3,57.7,11.7",
    goal: 0.1,
  },
  {
    name: "carpet_005deg",
    label: "/ele/carpet, 0.05°",
    path: "/elevation/v1/ele/carpet?points=36.40,-84.12,36.45,-84.07",
  },
  {
    name: "path_10km",
    label: "/ele/path, 10 km",
    path: `/elevation/v1/ele/path?points=${query([[57.1, 11.05], tenKmEast([57.1, 11.05])])}`,
  },
];

/** One request's wall time in ms; fails loudly on a non-200 so a broken route never benchmarks. */
async function once(ctx: BenchContext, load: Load): Promise<number> {
  return withRetries(`GET ${load.path.slice(0, 40)}…`, async () => {
    const started = performance.now();
    const res = await fetch(`${ctx.baseUrl}${load.path}`, {
      method: load.method ?? "GET",
      headers: { "x-api-key": ctx.apiKey, "content-type": "application/json" },
      body: load.body === undefined ? undefined : JSON.stringify(load.body),
    });
    const body = await res.text();
    if (res.status !== 200)
      throw new Error(`${load.path.slice(0, 60)}… answered ${res.status}: ${body.slice(0, 200)}`);
    return Math.round((performance.now() - started) * 10) / 10;
  });
}

export const suite: BenchSuite = {
  name: "elevation",
  async run(ctx) {
    // ELEVATION_ROWS=ele1000_random_tile,carpet_04deg: only those rows (names as in `scenarios`).
    const rows = chosenRows("ELEVATION_ROWS", scenarios);
    const cold: Record<string, number> = {};
    // Rows sharing an earlier row's request are warm by then: only the first of each is timed cold.
    const seen = new Set<string>();
    for (const s of rows) {
      if (seen.has(s.path)) continue;
      seen.add(s.path);
      cold[s.name] = await once(ctx, s);
    }
    const fields: Record<string, unknown> = {};
    const results: Record<string, Comparison> = {};
    for (const s of rows) {
      const result = await compare(ctx, s.baseline ?? { path: "/health" }, s);
      const coldNote = cold[s.name] === undefined ? "" : ` (cold ${cold[s.name]} ms)`;
      reportComparison(`${s.label}${coldNote}`, s.baselineLabel ?? "GET /health", result, s.goal);
      results[s.name] = result;
      Object.assign(fields, comparisonFields(s.name, result, s.goal));
    }
    // The suite's ratio is the 100-point row's; a chosen subset without it reports its first row's.
    const headline = results.ele100_one_tile ?? results[rows[0]!.name]!;
    return {
      ratio: headline.ratio,
      goals_met: rows.every((s) => s.goal === undefined || (results[s.name]!.ratio ?? 0) >= s.goal),
      health_rps: headline.baseline.rps,
      ...fields,
      cold_ms: cold,
    };
  },
};
