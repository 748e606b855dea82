import { parseCommandLine, runCommand } from "./lib/cli";

const HELP = `npm run check

The static checks npm test runs first, in order, stopping at the first that fails:
  1. tsc --noEmit                          the strict type check of every file
  2. biome check .                         format and lint (npm run format fixes what it can)
  3. tsx tools/wranglerTypes.ts --check    worker-configuration.d.ts matches wrangler.toml
                                           (npm run types regenerates it)`;

parseCommandLine({ help: HELP, options: {} });

const STEPS: [string, string[]][] = [
  ["tsc", ["--noEmit"]],
  ["biome", ["check", "."]],
  ["tsx", ["tools/wranglerTypes.ts", "--check"]],
];

runCommand(async () => {
  const { runSteps } = await import("./lib/steps");
  await runSteps(STEPS);
});
