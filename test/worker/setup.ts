import { applyD1Migrations, env } from "cloudflare:test";

// Cloudflare's D1 pattern. Files that share a runtime (the `worker` project) share its D1: the
// migrations run for the first file, and later files find them applied (d1_migrations) and skip.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
