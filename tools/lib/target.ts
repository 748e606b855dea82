import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { D1_DATABASE, ELEVATION_BUCKET, ROOT, STATE_DIR, WRANGLER_ENV } from "./config";
import { openLocalPlatform } from "./localPlatform";
import { whileLocked } from "./retry";
import { inline, type Statement } from "./sql";

const run = promisify(execFile);

export type { Statement };
export { inline };

/**
 * Where operator commands write: the local state that `npm start` serves, or with `--remote` the
 * deployed D1 database and R2 bucket. One interface, so every importer and command works on both.
 */
export interface Target {
  readonly remote: boolean;
  /** Runs statements in order, atomically per call where the backend allows. */
  execute(statements: Statement[]): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  putObject(key: string, body: Uint8Array | string, contentType?: string): Promise<void>;
  /** The object's bytes, or null when the bucket has no such key. */
  getObject(key: string): Promise<Uint8Array | null>;
  close(): Promise<void>;
}

export async function openTarget(options: { remote: boolean }): Promise<Target> {
  return options.remote ? new RemoteTarget() : LocalTarget.open();
}

class LocalTarget implements Target {
  readonly remote = false;
  private constructor(
    private readonly env: { DB: D1Database; ELEVATION: R2Bucket },
    private readonly dispose: () => Promise<void>,
  ) {}

  static async open(): Promise<LocalTarget> {
    // Only D1 and R2, through Miniflare (tools/lib/localPlatform.ts): no Durable Object warnings.
    const platform = await openLocalPlatform();
    return new LocalTarget(platform.env, platform.dispose);
  }

  async execute(statements: Statement[]): Promise<void> {
    if (statements.length === 0) return;
    const { DB } = this.env;
    await whileLocked(() => DB.batch(statements.map((s) => DB.prepare(s.sql).bind(...(s.params ?? [])))));
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const result = await whileLocked(() =>
      this.env.DB.prepare(sql)
        .bind(...params)
        .all<T>(),
    );
    return result.results;
  }

  async putObject(key: string, body: Uint8Array | string, contentType?: string): Promise<void> {
    await this.env.ELEVATION.put(key, body, contentType ? { httpMetadata: { contentType } } : undefined);
  }

  async getObject(key: string): Promise<Uint8Array | null> {
    const object = await this.env.ELEVATION.get(key);
    return object ? new Uint8Array(await object.arrayBuffer()) : null;
  }

  close(): Promise<void> {
    return this.dispose();
  }
}

/** The deployed resources, through wrangler's CLI (the operator must be logged in). */
class RemoteTarget implements Target {
  readonly remote = true;

  async execute(statements: Statement[]): Promise<void> {
    if (statements.length === 0) return;
    const dir = await mkdtemp(path.join(os.tmpdir(), "windsock-sql-"));
    try {
      const file = path.join(dir, "statements.sql");
      await writeFile(file, statements.map((s) => `${inline(s)};`).join("\n"));
      await wrangler(["d1", "execute", D1_DATABASE, "--remote", "--yes", `--file=${file}`]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const out = await wrangler([
      "d1",
      "execute",
      D1_DATABASE,
      "--remote",
      "--json",
      `--command=${inline({ sql, params })}`,
    ]);
    const parsed = JSON.parse(out) as { results: T[] }[];
    return parsed[0]?.results ?? [];
  }

  async putObject(key: string, body: Uint8Array | string, contentType?: string): Promise<void> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "windsock-r2-"));
    try {
      const file = path.join(dir, "object");
      await writeFile(file, body);
      const args = ["r2", "object", "put", `${ELEVATION_BUCKET}/${key}`, "--remote", `--file=${file}`];
      if (contentType) args.push(`--content-type=${contentType}`);
      await wrangler(args);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async getObject(key: string): Promise<Uint8Array | null> {
    try {
      const { stdout } = await run(
        path.join(ROOT, "node_modules/.bin/wrangler"),
        ["r2", "object", "get", `${ELEVATION_BUCKET}/${key}`, "--remote", "--pipe"],
        { cwd: ROOT, env: WRANGLER_ENV, encoding: "buffer", maxBuffer: 256 * 1024 * 1024 },
      );
      return new Uint8Array(stdout);
    } catch (err) {
      if (/does not exist|not found/i.test(String((err as { stderr?: Buffer }).stderr ?? err))) return null;
      throw err;
    }
  }

  async close(): Promise<void> {}
}

export async function wrangler(args: string[]): Promise<string> {
  const { stdout } = await run(path.join(ROOT, "node_modules/.bin/wrangler"), args, {
    cwd: ROOT,
    env: WRANGLER_ENV,
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

/** Applies the D1 migrations to the local state (or with `remote`, the deployed database). */
export async function applyMigrations(options: { remote: boolean }): Promise<string> {
  const where = options.remote ? ["--remote"] : ["--local", `--persist-to=${STATE_DIR}`];
  return wrangler(["d1", "migrations", "apply", D1_DATABASE, ...where]);
}

/**
 * The local database with every migration applied, open. wrangler applies them (its d1_migrations
 * table), but only when some are pending: wrangler's own start-up costs seconds, and a command run on
 * existing state skips it. `log` hears what is applied.
 */
export async function openMigratedLocalTarget(log: (message: string) => void): Promise<Target> {
  const files = readdirSync(path.join(ROOT, "schema/migrations")).filter((f) => f.endsWith(".sql"));
  if (existsSync(path.join(STATE_DIR, "v3/d1"))) {
    const target = await openTarget({ remote: false });
    const applied = new Set(
      await target
        .query<{ name: string }>("SELECT name FROM d1_migrations")
        .then((rows) => rows.map((r) => r.name))
        .catch(() => [] as string[]),
    );
    const pending = files.filter((f) => !applied.has(f));
    if (pending.length === 0) {
      log("D1 migrations: all applied");
      return target;
    }
    // One process at a time on the database files.
    await target.close();
    log(`applying D1 migrations: ${pending.join(", ")}`);
  } else {
    log(`applying D1 migrations (${files.length}, new state)`);
  }
  const started = Date.now();
  await applyMigrations({ remote: false });
  log(`D1 migrations applied in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return openTarget({ remote: false });
}
