import { runAlongside } from "./lib/steps";

const HELP = `npm test [-- <vitest arguments>]

Every check and test, as CI runs them (.ci/run), both at once (on two cores the type check fills
the time the tests spend waiting on the processes they start):
  npm run check       tsc --noEmit, biome check ., worker-configuration.d.ts up to date;
                      its output is shown only if it fails
  vitest run          the Vitest projects of vitest.config.mts:
     worker       route and store tests inside workerd (test/worker/)
     node         domain, relay, tools and end-to-end tests (test/domain, relay, tools, e2e/)
     supervision  npm start's restarts after kills, timed (test/e2e/startSupervision.test.ts)
     service      one npm start shared by the browser tests (Chromium), the docs' examples
                  and the federated pilots' end-to-end test
Arguments after -- go to vitest run, e.g.
  npm test -- --project worker test/worker/auth.test.ts
Chromium: /usr/bin/chromium (CHROMIUM_PATH elsewhere); REQUIRE_BROWSER=1 fails instead of skipping.`;

// No parser: everything but --help belongs to vitest, which refuses what it does not know.
const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  console.log(HELP);
  process.exit(0);
}

await runAlongside(["tsx", ["tools/check.ts"]], ["vitest", ["run", ...args]]);
