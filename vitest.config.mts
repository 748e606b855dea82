import { generateKeyPairSync, randomBytes } from "node:crypto";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const migrations = await readD1Migrations(path.join(import.meta.dirname, "schema/migrations"));
// A fresh signing key per run: tests never depend on a committed secret.
const testJwtKey = JSON.stringify(
  generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" }),
);

export default defineConfig({
  test: {
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
                // The operator's app identities for /.well-known/* (test values).
                DEEPLINK_APPLE_TEAM_ID: "ABCDE12345",
                DEEPLINK_ANDROID_SHA256:
                  "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5",
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
        // Real Chromium against the whole service (npm start); skipped loudly without Chromium.
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
