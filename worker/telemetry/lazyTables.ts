/**
 * Tables one part of a flight's Durable Object keeps in its SQLite: created on the first write,
 * probed (not created) before a read, so a flight that never needed them stores nothing. The
 * answer is remembered until the flight's storage is erased.
 */
export class LazyTables {
  private ready = false;

  constructor(
    private readonly sql: SqlStorage,
    private readonly createStatements: string,
    /** A table the statements create, probed to learn whether they ran. */
    private readonly probeTable: string,
  ) {}

  /** Creates the tables unless they exist. */
  ensure(): void {
    if (this.ready) return;
    this.sql.exec(this.createStatements);
    this.ready = true;
  }

  /** Whether the tables exist, without creating them. */
  exist(): boolean {
    if (this.ready) return true;
    this.ready =
      this.sql.exec("SELECT 1 FROM sqlite_master WHERE name = ?", this.probeTable).toArray().length > 0;
    return this.ready;
  }

  /** The storage was erased: the tables are gone. */
  forget(): void {
    this.ready = false;
  }
}
