import { readFileSync } from "node:fs";
import path from "node:path";
import { STATE_DIR, WRANGLER_CONFIG } from "./config";

/**
 * Local D1 and R2 for the operator tools and `npm start`'s seeding: the same files `wrangler dev
 * --persist-to=STATE_DIR` serves (STATE_DIR/v3/{d1,r2}, keyed by database id and bucket name), opened
 * through Miniflare with only those two bindings. wrangler's getPlatformProxy would also bind the
 * flight Durable Object, whose class lives in the worker it does not run: workerd then warns that it
 * "will not work in local development" though `npm start` serves it. Miniflare alone also loads
 * faster than wrangler.
 */

export interface LocalPlatform {
  env: { DB: D1Database; ELEVATION: R2Bucket };
  dispose(): Promise<void>;
}

/** The values of wrangler.toml these bindings need; a missing one is an error naming it. */
export function localBindingConfig(toml = readFileSync(WRANGLER_CONFIG, "utf8")) {
  const section = (name: string) => {
    const start = toml.indexOf(`[[${name}]]`);
    if (start < 0) throw new Error(`wrangler.toml has no [[${name}]]`);
    const rest = toml.slice(start + name.length + 4);
    const next = rest.search(/^\[/m);
    return next < 0 ? rest : rest.slice(0, next);
  };
  const value = (text: string, key: string, where: string) => {
    const match = new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`, "m").exec(text);
    if (!match) throw new Error(`wrangler.toml: ${where} lacks ${key}`);
    return match[1]!;
  };
  return {
    compatibilityDate: value(toml, "compatibility_date", "the top level"),
    databaseId: value(section("d1_databases"), "database_id", "[[d1_databases]]"),
    bucketName: value(section("r2_buckets"), "bucket_name", "[[r2_buckets]]"),
  };
}

export async function openLocalPlatform(stateDir = STATE_DIR): Promise<LocalPlatform> {
  const config = localBindingConfig();
  const { Miniflare, convertV4MiniflareOptions } = await import("miniflare");
  const v3 = path.join(stateDir, "v3");
  // The v4-style options wrangler.toml maps onto; miniflare 5 converts them to its own shape.
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: "export default { fetch: () => new Response(null, { status: 404 }) };",
      compatibilityDate: config.compatibilityDate,
      d1Databases: { DB: config.databaseId },
      r2Buckets: { ELEVATION: config.bucketName },
      // The same root wrangler dev and `wrangler d1 execute --local` use, so all see one database.
      resourcePersistencePath: v3,
    }),
  );
  const DB = (await mf.getD1Database("DB")) as unknown as D1Database;
  const ELEVATION = (await mf.getR2Bucket("ELEVATION")) as unknown as R2Bucket;
  return { env: { DB, ELEVATION }, dispose: () => mf.dispose() };
}
