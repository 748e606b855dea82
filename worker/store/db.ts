import { DrizzleD1Database, drizzle, SQLiteD1Session } from "drizzle-orm/d1";
import type { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "../../schema";
import type { Db } from "../env";

/**
 * The drizzle database over a D1 binding, made once per binding and isolate: making it reads the
 * whole schema's relations, which cost every request a few percent of its CPU when done per request.
 */
const databases = new WeakMap<D1Database, Db>();

export function dbFor(binding: D1Database): Db {
  let db = databases.get(binding);
  if (db === undefined) {
    db = drizzle(binding, { schema });
    databases.set(binding, db);
  }
  return db;
}

/** The schema's relations as drizzle reads them, worked out once from the binding's database. */
type SchemaConfig = ConstructorParameters<typeof SQLiteD1Session>[2];

/**
 * Drizzle over one request's D1 session (`withSession`): the dialect and the schema's relations of
 * `dbFor`'s database, so that a session costs a request only two small objects.
 */
export function dbForSession(binding: D1Database, session: D1DatabaseSession): Db {
  const base = dbFor(binding) as unknown as { dialect: SQLiteAsyncDialect; _: NonNullable<SchemaConfig> };
  // D1DatabaseSession has the D1Database calls drizzle makes (prepare, batch).
  const client = session as unknown as D1Database;
  const config = base._;
  const db = new DrizzleD1Database(
    "async",
    base.dialect,
    new SQLiteD1Session(client, base.dialect, config, {}),
    config,
  ) as unknown as Db;
  db.$client = client;
  return db;
}
