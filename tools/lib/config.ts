import path from "node:path";

/** Where everything local lives; `STATE_DIR` lets two copies run side by side. */
export const ROOT = path.resolve(import.meta.dirname, "../..");
const DEFAULT_STATE_DIR = path.join(ROOT, ".wrangler/state");
export const STATE_DIR = path.resolve(ROOT, process.env.STATE_DIR ?? DEFAULT_STATE_DIR);
/**
 * The shell file `npm start` writes (WINDSOCK_URL, WINDSOCK_API_KEY, WINDSOCK_RELAY): `.windsock/env`
 * for the default state, `$STATE_DIR/env` for a copy with its own, so copies side by side never
 * overwrite each other's.
 */
export const ENV_FILE =
  STATE_DIR === DEFAULT_STATE_DIR ? path.join(ROOT, ".windsock/env") : path.join(STATE_DIR, "env");
export const WRANGLER_CONFIG = path.join(ROOT, "wrangler.toml");
export const D1_DATABASE = "windsock";
export const ELEVATION_BUCKET = "windsock-elevation";
/** Where `npm start` loads the embedded vector basemap, and MAP_PMTILES_KEY's local default. */
export const EMBEDDED_BASEMAP_KEY = "basemap/basemap.pmtiles";

/**
 * wrangler and miniflare run offline: skip the `request.cf` download and metrics. wrangler dev's
 * request trace capture (the Local Explorer's Observability tab, on by default since wrangler
 * 4.118) is off unless asked for: it wrote every request's trace into SQLite, in the worker's own
 * process and never pruned, and cost a third of the front's throughput. `X_LOCAL_OBSERVABILITY=true`
 * turns it on.
 */
export const WRANGLER_ENV = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
  X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? "false",
};

/** Parses `--flag value`, `--flag=value` and bare `--flag` into a map; the rest are positionals. */
export function parseArgs(argv: string[]): { flags: Map<string, string | true>; positionals: string[] } {
  const flags = new Map<string, string | true>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    if (eq > 0) flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--")) flags.set(arg.slice(2), argv[++i]!);
    else flags.set(arg.slice(2), true);
  }
  return { flags, positionals };
}

export function fail(message: string): never {
  console.error(`error: ${message}`);
  process.exit(1);
}
