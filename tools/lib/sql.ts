/** SQL statements as operator commands send them; pure, so tests in any runtime can build them too. */
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
