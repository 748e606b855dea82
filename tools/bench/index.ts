import { parseCommandLine, usageError } from "../lib/cli";
import { suite as airspace } from "./airspace";
import { suite as api } from "./api";
import { suite as cost } from "./cost";
import { suite as deeplink } from "./deeplink";
import { suite as elevation } from "./elevation";
import { suite as evaluation } from "./evaluation";
import { suite as flights } from "./flights";
import { suite as hardening } from "./hardening";
import { type BenchSuite, startService } from "./harness";
import { suite as live } from "./live";
import { suite as noisy } from "./noisy";
import { suite as relay } from "./relay";
import { suite as rid } from "./rid";
import { suite as traffic } from "./traffic";

/** Every suite of `npm run bench`; each ends with one JSON line `{"bench":<name>,"ratio":…}`. */
const suites: BenchSuite[] = [
  api,
  flights,
  elevation,
  deeplink,
  airspace,
  evaluation,
  relay,
  live,
  hardening,
  rid,
  traffic,
  cost,
  noisy,
];

const HELP = `Benchmarks the local service (started here on BENCH_PORT, default 8790, with state in
BENCH_STATE_DIR, default .wrangler/bench-state). Ratios compare routes measured in this same run.
Rate limits and the per-account share of expensive work are lifted, except for the noisy suite,
which runs last on a copy started with them on.

Usage: npm run bench [-- <suite> …]     suites: ${suites.map((s) => s.name).join(", ")}`;

async function main() {
  const { positionals } = parseCommandLine({ help: HELP, options: {}, positionals: true });
  const unknown = positionals.filter((name) => !suites.some((s) => s.name === name));
  if (unknown.length > 0) usageError(`unknown suite ${unknown.join(", ")}`);
  const chosen = positionals.length > 0 ? suites.filter((s) => positionals.includes(s.name)) : suites;
  // Suites that measure the service's own limits get a copy started with them on (harness.ts).
  for (const limited of [false, true]) {
    const group = chosen.filter((s) => (s.limited ?? false) === limited);
    if (group.length === 0) continue;
    const { ctx, stop } = await startService({ limited });
    try {
      for (const suite of group) {
        console.log(`\n# ${suite.name}`);
        const fields = await suite.run(ctx);
        console.log(JSON.stringify({ bench: suite.name, ...fields }));
      }
    } finally {
      await stop();
    }
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
