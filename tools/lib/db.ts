import { drizzle } from "drizzle-orm/sqlite-proxy";
import * as schema from "../../schema";
import { openTarget, type Target } from "./target";

export type ToolDb = ReturnType<typeof toolDb>;

/**
 * Drizzle over any Target: the operator commands write queries against `schema/`'s tables, and the
 * Target runs the SQL drizzle renders, bound locally, inlined for `wrangler d1 execute` remotely.
 * Targets answer rows as objects; drizzle wants them positional. A select is wrapped in
 * `SELECT * FROM (…)` so that SQLite renames duplicate column names (`id`, `id:1`) and no value is
 * lost when the object's values are taken in order.
 */
export function toolDb(target: Target) {
  const rows = async (sql: string, params: unknown[]) => {
    const wrapped = /^\s*select\b/i.test(sql) ? `SELECT * FROM (${sql})` : sql;
    return (await target.query(wrapped, params)).map((row) => Object.values(row));
  };
  return drizzle(
    async (sql, params, method) => {
      if (method === "run") {
        await target.execute([{ sql, params }]);
        return { rows: [] };
      }
      const all = await rows(sql, params);
      return { rows: method === "get" ? (all[0] as unknown[]) : all };
    },
    async (batch) => {
      // Writes go as one call (one wrangler run remotely, one D1 batch locally); reads one by one.
      if (batch.every((q) => q.method === "run")) {
        await target.execute(batch.map(({ sql, params }) => ({ sql, params })));
        return batch.map(() => ({ rows: [] }));
      }
      const results = [];
      for (const { sql, params, method } of batch) {
        if (method === "run") {
          await target.execute([{ sql, params }]);
          results.push({ rows: [] });
        } else {
          const all = await rows(sql, params);
          results.push({ rows: method === "get" ? all[0] : all });
        }
      }
      return results as { rows: unknown[] }[];
    },
    { schema },
  );
}

/** Runs `use` on the local state (or with `remote` the deployed database), closing it afterwards. */
export async function withToolDb<T>(
  remote: boolean | undefined,
  use: (db: ToolDb) => Promise<T>,
): Promise<T> {
  const target = await openTarget({ remote: remote ?? false });
  try {
    return await use(toolDb(target));
  } finally {
    await target.close();
  }
}
