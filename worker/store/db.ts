import { drizzle } from "drizzle-orm/d1";
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
