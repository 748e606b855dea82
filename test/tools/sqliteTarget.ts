import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import initSqlJs, { type Database } from "sql.js";
import type { Statement } from "../../tools/lib/sql";
import type { Target } from "../../tools/lib/target";

const MIGRATIONS = path.resolve(import.meta.dirname, "../../schema/migrations");

/** A Target over an in-memory SQLite with every D1 migration applied: loaders run their real SQL. */
export class SqliteTarget implements Target {
  readonly remote = false;
  private constructor(readonly db: Database) {}

  static async open(): Promise<SqliteTarget> {
    const SQL = await initSqlJs();
    const db = new SQL.Database();
    for (const file of readdirSync(MIGRATIONS)
      .filter((f) => f.endsWith(".sql"))
      .sort()) {
      db.exec(readFileSync(path.join(MIGRATIONS, file), "utf8").replaceAll("--> statement-breakpoint", ""));
    }
    return new SqliteTarget(db);
  }

  async execute(statements: Statement[]): Promise<void> {
    this.db.exec("BEGIN");
    try {
      for (const s of statements) this.db.run(s.sql, (s.params ?? []) as never);
      this.db.exec("COMMIT");
    } catch (err) {
      this.db.exec("ROLLBACK");
      throw err;
    }
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const statement = this.db.prepare(sql, params as never);
    const rows: T[] = [];
    while (statement.step()) rows.push(statement.getAsObject() as T);
    statement.free();
    return rows;
  }

  async putObject(): Promise<void> {
    throw new Error("no object storage in the SQLite test target");
  }

  async getObject(): Promise<Uint8Array | null> {
    return null;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
