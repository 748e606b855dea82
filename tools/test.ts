import { runSteps } from "./lib/steps";

const HELP = `npm test [-- <vitest arguments>]

Every check and test, as CI runs them (.ci/run):
  1. npm run check       tsc --noEmit, biome check ., worker-configuration.d.ts up to date
  2. vitest run          the Vitest projects of vitest.config.mts:
       worker   route and store tests inside workerd (test/worker/)
       node     domain, relay, tools and end-to-end tests (test/domain, relay, tools, e2e/)
       service  one npm start shared by the browser tests (Chromium) and the docs' examples
Arguments after -- go to vitest run, e.g.
  npm test -- --project worker test/worker/auth.test.ts
Chromium: /usr/bin/chromium (CHROMIUM_PATH elsewhere); REQUIRE_BROWSER=1 fails instead of skipping.`;

// No parser: everything but --help belongs to vitest, which refuses what it does not know.
const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  console.log(HELP);
  process.exit(0);
}

await runSteps([
  ["tsx", ["tools/check.ts"]],
  ["vitest", ["run", ...args]],
]);
