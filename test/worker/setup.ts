import { applyD1Migrations, env } from "cloudflare:test";

// Each test file gets its own storage; migrations are applied once per file (Cloudflare's D1 pattern).
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
