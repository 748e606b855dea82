import { generateKeyPairSync, randomBytes } from "node:crypto";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { prepareStaticAssets } from "./tools/lib/staticAssets.ts";

// wrangler.toml's [assets] directory, which the worker pool reads and npm start serves: made from
// node_modules, so a clean clone's first run finds it. (Imports with extensions down this chain: Vite
// loads its config as Node would.)
prepareStaticAssets();
const migrations = await readD1Migrations(path.join(import.meta.dirname, "schema/migrations"));
// A fresh signing key per run: tests never depend on a committed secret.
const testJwtKey = JSON.stringify(
  generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" }),
);

export default defineConfig({
  test: {
    // A test's console output is shown only when it fails: a green run is a short log.
    silent: "passed-only",
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                ENVIRONMENT: "development",
                JWT_PRIVATE_KEY: testJwtKey,
                TELEMETRY_MASTER_KEY: randomBytes(32).toString("base64"),
                RELAY_SECRET: "test-relay-secret",
                TEST_MIGRATIONS: migrations,
              },
            },
          }),
        ],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          // Suites that load airspace data and fetch a dozen briefings in beforeAll need more than 10 s
          // on a busy 2-core machine.
          hookTimeout: 60_000,
          testTimeout: 30_000,
          setupFiles: ["./test/worker/setup.ts"],
        },
      },
      {
        test: {
          name: "node",
          include: [
            "test/domain/**/*.test.ts",
            "test/relay/**/*.test.ts",
            "test/tools/**/*.test.ts",
            "test/e2e/**/*.test.ts",
          ],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        // One whole service (npm start, test/browser/globalSetup.ts) shared by real Chromium (skipped
        // loudly without it) and the documentation's examples.
        test: {
          name: "service",
          include: ["test/browser/**/*.test.ts", "test/docs/**/*.test.ts"],
          globalSetup: ["./test/browser/globalSetup.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
