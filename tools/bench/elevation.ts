import { type BenchContext, type BenchSuite, type Load, measure, ratio, report } from "./harness";

type LatLng = [number, number];

/** A grid of n×n points in a square of `size` degrees from a south-west corner. */
function grid([lat, lng]: LatLng, n: number, size: number): LatLng[] {
  return Array.from({ length: n * n }, (_, i) => [
    lat + (Math.floor(i / n) * size) / n,
    lng + ((i % n) * size) / n,
  ]);
}

const query = (points: LatLng[]) =>
  points.map(([lat, lng]) => `${lat.toFixed(5)},${lng.toFixed(5)}`).join(",");

/** The embedded samples: Gothenburg (3″), Jacksboro (3″) and Luxembourg (30″). */
const GOTHENBURG: LatLng = [57.7, 11.9];
const JACKSBORO: LatLng = [36.3, -84.3];
const LUXEMBOURG: LatLng = [49.6, 6.0];

/** 10 km due east at this latitude. */
function tenKmEast([lat, lng]: LatLng): LatLng {
  return [lat, lng + 10 / (111.32 * Math.cos((lat * Math.PI) / 180))];
}

/**
 * Each scenario reads chunks no earlier one did, so its first request is cold (manifest or chunks
 * from R2) and the load after it warm (isolate cache only).
 */
const scenarios: { name: string; path: string }[] = [
  {
    name: "/ele, 100 points in one tile",
    path: `/elevation/v1/ele?points=${query(grid(GOTHENBURG, 10, 0.05))}`,
  },
  {
    name: "/ele, 100 points over three tiles",
    path: `/elevation/v1/ele?points=${query([
      ...grid([57.3, 11.3], 6, 0.05).slice(0, 34),
      ...grid(JACKSBORO, 6, 0.05).slice(0, 33),
      ...grid(LUXEMBOURG, 6, 0.05).slice(0, 33),
    ])}`,
  },
  { name: "/ele/carpet, 0.05°", path: "/elevation/v1/ele/carpet?points=36.40,-84.12,36.45,-84.07" },
  {
    name: "/ele/path, 10 km",
    path: `/elevation/v1/ele/path?points=${query([[57.1, 11.05], tenKmEast([57.1, 11.05])])}`,
  },
];

/** One request's wall time in ms; fails loudly on a non-200 so a broken route never benchmarks. */
async function once(ctx: BenchContext, load: Load): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${ctx.baseUrl}${load.path}`, { headers: { "x-api-key": ctx.apiKey } });
  const body = await res.text();
  if (res.status !== 200)
    throw new Error(`${load.path.slice(0, 60)}… answered ${res.status}: ${body.slice(0, 200)}`);
  return Math.round((performance.now() - started) * 10) / 10;
}

export const suite: BenchSuite = {
  name: "elevation",
  async run(ctx) {
    const cold: number[] = [];
    for (const s of scenarios) cold.push(await once(ctx, s));
    const health = await measure(ctx, { path: "/health" });
    report("GET /health", health);
    const warm = [];
    for (const [i, s] of scenarios.entries()) {
      const m = await measure(ctx, { path: s.path });
      report(`${s.name} (cold ${cold[i]} ms)`, m);
      warm.push(m);
    }
    const [one, three, carpet, path] = warm as [typeof health, typeof health, typeof health, typeof health];
    return {
      ratio: ratio(one.rps, health.rps),
      health_rps: health.rps,
      ele100_one_tile_rps: one.rps,
      ele100_one_tile_p99_ms: one.p99,
      ele100_three_tiles_rps: three.rps,
      carpet_005deg_rps: carpet.rps,
      path_10km_rps: path.rps,
      cold_ms: {
        ele100_one_tile: cold[0],
        ele100_three_tiles: cold[1],
        carpet_005deg: cold[2],
        path_10km: cold[3],
      },
    };
  },
};
