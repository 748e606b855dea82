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
  statement: D1PreparedStatement;
  prepared: PreparedQuery<Rows>;
}

/**
 * A read built once per database by `build` (a drizzle select with placeholders, `.prepare()`d);
 * call it with the placeholders' values.
 */
export function preparedRead<Rows>(
  build: (db: Db) => PreparedQuery<Rows>,
): (db: Db, values: Record<string, unknown>) => BoundRead<Rows> {
  const built = new WeakMap<Db, Built<Rows>>();
  return (db, values) => {
    let read = built.get(db);
    if (read === undefined) {
      const prepared = build(db);
      const query = prepared.getQuery();
      read = { query, statement: db.$client.prepare(query.sql), prepared };
      built.set(db, read);
    }
    const { query, statement, prepared } = read;
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
