import { fillPlaceholders, type Query } from "drizzle-orm";
import type { Db } from "../env";

/**
 * Reads whose SQL drizzle builds once per isolate, with `sql.placeholder`s where the values go:
 * each use only binds its values. Building the SQL of the airspace reads anew took a sixth of a
 * status request's CPU (drizzle walks the whole query tree each time).
 */

/** What a batch needs of drizzle's prepared query: its SQL and how it maps D1's rows. */
interface PreparedQuery<Rows> {
  getQuery(): Query;
  mapResult(response: unknown, isFromBatch?: boolean): unknown;
  /** Only carries the row type (drizzle's `all`). */
  all(): Promise<Rows>;
}

/** One read with its values, ready for `readBatch`. */
export interface BoundRead<Rows> {
  statement: D1PreparedStatement;
  rows(result: D1Result): Rows;
}

interface Built<Rows> {
  query: Query;
  prepared: PreparedQuery<Rows>;
}

/**
 * A read built once per isolate by `build` (a drizzle select with placeholders, `.prepare()`d);
 * call it with the placeholders' values. Its SQL is the same on every connection: each D1 binding
 * or request's session (store/db.ts) only prepares its own statement of it, once.
 */
export function preparedRead<Rows>(
  build: (db: Db) => PreparedQuery<Rows>,
): (db: Db, values: Record<string, unknown>) => BoundRead<Rows> {
  let built: Built<Rows> | undefined;
  const statements = new WeakMap<D1Database, D1PreparedStatement>();
  return (db, values) => {
    if (built === undefined) {
      const prepared = build(db);
      built = { query: prepared.getQuery(), prepared };
    }
    const { query, prepared } = built;
    let statement = statements.get(db.$client);
    if (statement === undefined) {
      statement = db.$client.prepare(query.sql);
      statements.set(db.$client, statement);
    }
    return {
      statement: statement.bind(...fillPlaceholders(query.params, values)),
      rows: (result) => prepared.mapResult(result, true) as Rows,
    };
  };
}

type RowsOf<T> = { -readonly [K in keyof T]: T[K] extends BoundRead<infer Rows> ? Rows : never };

/** Runs bound reads in one D1 round trip (one implicit transaction), each mapped as drizzle maps it. */
export async function readBatch<T extends readonly BoundRead<unknown>[]>(
  db: Db,
  reads: readonly [...T],
): Promise<RowsOf<T>> {
  const results = await db.$client.batch(reads.map((r) => r.statement));
  return reads.map((read, i) => read.rows(results[i]!)) as RowsOf<T>;
}
