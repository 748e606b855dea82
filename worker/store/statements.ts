/**
 * SQL statements as operator commands and the worker's airspace sync send them; pure, so tests in
 * any runtime can build them too.
 */
export interface Statement {
  sql: string;
  params?: unknown[];
}

/** Inlines parameters as SQL literals, for the CLI path that cannot bind them. */
export function inline({ sql, params = [] }: Statement): string {
  let i = 0;
  return sql.replace(/\?/g, () => literal(params[i++]));
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "NULL";
  if (typeof value === "boolean") return value ? "1" : "0";
  return `'${String(value).replace(/'/g, "''")}'`;
}

/** D1 refuses statements over 100 KB; multi-row inserts stay under this. */
const MAX_STATEMENT_CHARS = 90_000;
/** Rows per INSERT: D1's SQLite runs out of memory parsing a few thousand VALUES rows. */
const MAX_ROWS = 1_000;
/** Multi-row INSERTs with inlined values, each under D1's statement size limit. */
export function insertStatements(head: string, rows: unknown[][]): Statement[] {
  const statements: Statement[] = [];
  let values: string[] = [];
  let length = head.length;
  for (const row of rows) {
    const placeholders = `(${row.map(() => "?").join(",")})`;
    const tuple = inline({ sql: placeholders, params: row });
    if (head.length + tuple.length > MAX_STATEMENT_CHARS) {
      // A row too big to inline (a long coastline) goes alone, its values bound.
      statements.push({ sql: `${head} VALUES ${placeholders}`, params: row });
      continue;
    }
    if (values.length > 0 && (length + tuple.length + 1 > MAX_STATEMENT_CHARS || values.length >= MAX_ROWS)) {
      statements.push({ sql: `${head} VALUES ${values.join(",")}` });
      values = [];
      length = head.length;
    }
    values.push(tuple);
    length += tuple.length + 1;
  }
  if (values.length > 0) statements.push({ sql: `${head} VALUES ${values.join(",")}` });
  return statements;
}
