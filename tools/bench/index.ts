import { parseCommandLine, usageError, wholeNumber } from "../lib/cli";
import { suite as airspace } from "./airspace";
import { suite as api } from "./api";
import { suite as cost } from "./cost";
import { suite as deeplink } from "./deeplink";
import { suite as docs } from "./docs";
import { suite as dss } from "./dss";
import { suite as elevation } from "./elevation";
import { suite as evaluation } from "./evaluation";
import { suite as flights } from "./flights";
import { suite as hardening } from "./hardening";
import { type BenchSuite, startService } from "./harness";
import { suite as latency, latencyOptions } from "./latency";
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
  docs,
  airspace,
  evaluation,
  relay,
  live,
  hardening,
  rid,
  dss,
  traffic,
  cost,
  noisy,
  latency,
];

const HELP = `Benchmarks the local service (started here on BENCH_PORT, default 8797, with state in
BENCH_STATE_DIR, default .wrangler/bench-state). Ratios compare routes measured in this same run.
Rate limits and the per-account share of expensive work are lifted, except for the noisy suite,
which runs last on a copy started with them on.

Usage: npm run bench [-- <suite> …] [-- options]     suites: ${suites.map((s) => s.name).join(", ")}

The latency suite runs the worker with its storage calls delayed (worker/dev/index.ts):
  --primary-ms N    simulated round trip to D1's primary, Durable Objects and R2 (default ${latencyOptions.primaryMs})
  --replica-ms N    simulated round trip to a D1 read replica (default ${latencyOptions.replicaMs})
  --requests N      timed requests per route and setting (default ${latencyOptions.requests})`;

async function main() {
  const { positionals, values } = parseCommandLine({
    help: HELP,
    options: {
      "primary-ms": { type: "string" },
      "replica-ms": { type: "string" },
      requests: { type: "string" },
    },
    positionals: true,
  });
  latencyOptions.primaryMs =
    wholeNumber("primary-ms", values["primary-ms"], 0, 5000) ?? latencyOptions.primaryMs;
  latencyOptions.replicaMs =
    wholeNumber("replica-ms", values["replica-ms"], 0, 5000) ?? latencyOptions.replicaMs;
  latencyOptions.requests = wholeNumber("requests", values.requests, 1, 1000) ?? latencyOptions.requests;
  const unknown = positionals.filter((name) => !suites.some((s) => s.name === name));
  if (unknown.length > 0) usageError(`unknown suite ${unknown.join(", ")}`);
  const chosen = positionals.length > 0 ? suites.filter((s) => positionals.includes(s.name)) : suites;
  // Suites that measure the service's own limits get a copy started with them on (harness.ts), and
  // the latency suite one serving the traced worker.
  for (const [limited, traced] of [
    [false, false],
    [true, false],
    [false, true],
  ] as const) {
    const group = chosen.filter((s) => (s.limited ?? false) === limited && (s.traced ?? false) === traced);
    if (group.length === 0) continue;
    const { ctx, stop } = await startService({ limited, traced });
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
