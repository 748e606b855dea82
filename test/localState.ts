import path from "node:path";
import { readD1Migrations } from "@cloudflare/vitest-plugin";
import { openLocalPlatform } from "../tools/lib/localPlatform";

const MIGRATIONS = path.resolve(import.meta.dirname, "../schema/migrations");

/**
 * Applies schema/migrations to a local state directory in this process, as the worker pool applies
 * them (cloudflare:test applyD1Migrations) and recorded in wrangler's own d1_migrations table: `wrangler
 * dev --persist-to` and the operator commands then find the schema. A `wrangler d1 migrations apply`
 * process costs about 10 s of CPU for the same.
 */
export async function migrateLocalState(stateDir: string): Promise<void> {
  const migrations = await readD1Migrations(MIGRATIONS);
  const platform = await openLocalPlatform(stateDir);
  try {
    const { DB } = platform.env;
    await DB.prepare(
      `CREATE TABLE IF NOT EXISTS d1_migrations (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT UNIQUE,
        applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
      )`,
    ).run();
    const applied = new Set(
      (await DB.prepare("SELECT name FROM d1_migrations").all<{ name: string }>()).results.map((r) => r.name),
    );
    const record = DB.prepare("INSERT INTO d1_migrations (name) VALUES (?)");
    for (const { name, queries } of migrations) {
      if (applied.has(name)) continue;
      await DB.batch([...queries.map((query) => DB.prepare(query)), record.bind(name)]);
    }
  } finally {
    await platform.dispose();
  }
}
