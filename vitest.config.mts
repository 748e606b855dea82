import { generateKeyPairSync, randomBytes } from "node:crypto";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./test/longestFirstSequencer.ts";
import { prepareStaticAssets } from "./tools/lib/staticAssets.ts";

// wrangler's informational lines ("Using secrets defined in .dev.vars", once per test file) are noise
// in a test log; its warnings and errors still show.
process.env.WRANGLER_LOG ??= "warn";

// wrangler.toml's [assets] directory, which the worker pool reads and npm start serves: made from
// node_modules, so a clean clone's first run finds it. (Imports with extensions down this chain: Vite
// loads its config as Node would.)
prepareStaticAssets();

const migrations = await readD1Migrations(path.join(import.meta.dirname, "schema/migrations"));
// A fresh signing key per run: tests never depend on a committed secret.
const testJwtKey = JSON.stringify(
  generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" }),
);

/**
 * Worker test files share one workerd runtime and one test D1 (Vitest `isolate: false`): loading
 * the worker's modules once instead of once per file is most of the worker tests' time. Each file
 * makes its own accounts and pilots, so files do not see each other's. These files need an isolate
 * of their own: they load data the worker keeps per isolate (elevation manifests and chunks, the
 * service's own application, loaded airspace and status checks) or count what they alone wrote.
 */
const FRESH_ISOLATE = [
  "test/worker/deeplink.test.ts",
  "test/worker/deeplink.firstParty.test.ts",
  "test/worker/elevation.test.ts",
  "test/worker/elevation.post.test.ts",
  "test/worker/ridDss.test.ts",
  "test/worker/security/airspace.test.ts",
  "test/worker/system.test.ts",
  "test/worker/openapi.responses.test.ts",
  "test/worker/pageMaps.test.ts",
  "test/worker/syntheticMarks.test.ts",
  // Every file that loads elevation tiles: the isolate keeps the manifest and chunks it read.
  "test/worker/elevation.etag.test.ts",
  "test/worker/live.test.ts",
  "test/worker/webhooks.test.ts",
  // Swaps in the feeds' records (a Class B area among them) that the shared D1's other files do not expect.
  "test/worker/airspaceSources.test.ts",
];

/**
 * End-to-end files that use the service project's `npm start` (inject("service")) instead of starting
 * their own wrangler dev. The rest of test/e2e stop or kill the processes they test, so they keep theirs.
 */
const SHARED_SERVICE_E2E = ["test/e2e/pilots.test.ts"];

/**
 * Files at a time. Vitest's default on a 2-core machine is one (cores - 1). The node and service files
 * spend most of their time waiting on processes they started (wrangler dev, npm start, the relay,
 * Chromium, operator commands): three at a time keep both cores busy. The worker files keep workerd
 * busy instead: two runtimes, one per core, run after them (a later sequence.groupOrder; Vitest
 * wants one maxWorkers per group). Every file makes its own state, ports and accounts.
 */
const WAITING_FILES = { maxWorkers: 3, sequence: { groupOrder: 0 } };
const BUSY_FILES = { maxWorkers: 2, sequence: { groupOrder: 1 } };

/**
 * npm start's restarts must answer within 10 s of a kill: that file runs with the busy files, where
 * it shares the two cores with one workerd, not with two other files starting processes.
 */
const TIMED_E2E = ["test/e2e/startSupervision.test.ts"];

function workerProject(name: string, files: { include: string[]; exclude?: string[]; isolate: boolean }) {
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            ENVIRONMENT: "development",
            JWT_PRIVATE_KEY: testJwtKey,
            TELEMETRY_MASTER_KEY: randomBytes(32).toString("base64"),
            RELAY_SECRET: "test-relay-secret",
            // The operator's app identities for the outer link and /.well-known/* (test values;
            // wrangler.toml leaves them empty: no app).
            DEEPLINK_APN: "dev.windsock.app",
            DEEPLINK_ISI: "1000000001",
            DEEPLINK_IBI: "dev.windsock.app",
            DEEPLINK_APPLE_TEAM_ID: "ABCDE12345",
            DEEPLINK_ANDROID_SHA256:
              "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5",
            TEST_MIGRATIONS: migrations,
          },
        },
      }),
    ],
    test: {
      name,
      ...files,
      ...BUSY_FILES,
      // Suites that load airspace data and fetch a dozen briefings in beforeAll need more than 10 s
      // on a busy 2-core machine.
      hookTimeout: 60_000,
      testTimeout: 30_000,
      setupFiles: ["./test/worker/setup.ts"],
    },
  };
}

export default defineConfig({
  test: {
    // A test's console output is shown only when it fails: a green run is a short log.
    silent: "passed-only",
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      workerProject("worker", {
        include: ["test/worker/**/*.test.ts"],
        exclude: FRESH_ISOLATE,
        isolate: false,
      }),
      workerProject("worker-fresh", { include: FRESH_ISOLATE, isolate: true }),
      {
        test: {
          name: "node",
          include: [
            "test/domain/**/*.test.ts",
            "test/relay/**/*.test.ts",
            "test/tools/**/*.test.ts",
            "test/e2e/**/*.test.ts",
          ],
          exclude: [...SHARED_SERVICE_E2E, ...TIMED_E2E],
          environment: "node",
          ...WAITING_FILES,
          // Three files at a time each starting processes: a slow spell on a shared machine is not a failure.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "supervision",
          include: TIMED_E2E,
          environment: "node",
          ...BUSY_FILES,
          testTimeout: 60_000,
          hookTimeout: 300_000,
        },
      },
      {
        // One whole service (npm start, test/browser/globalSetup.ts) shared by real Chromium (skipped
        // loudly without it), the documentation's examples and the end-to-end files that need no
        // service of their own.
        test: {
          name: "service",
          include: ["test/browser/**/*.test.ts", "test/docs/**/*.test.ts", ...SHARED_SERVICE_E2E],
          globalSetup: ["./test/browser/globalSetup.ts"],
          environment: "node",
          ...WAITING_FILES,
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
