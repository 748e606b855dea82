/**
 * What both DSS objects keep beside their entities in their SQLite: the level-13 cells each entity
 * covers (by kind), the clock that orders their writes, and the alarm that removes ended entities.
 */

/** The ids of one kind over a set of cells: bind the kind, then the cells as a JSON array. */
export const IDS_IN_CELLS =
  "SELECT DISTINCT id FROM cells WHERE kind = ? AND cell IN (SELECT value FROM json_each(?))";

export class CellIndex {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS cells (kind TEXT NOT NULL, cell TEXT NOT NULL, id TEXT NOT NULL,
      PRIMARY KEY (kind, cell, id)) WITHOUT ROWID`);
    sql.exec("CREATE INDEX IF NOT EXISTS cells_by_id ON cells (kind, id)");
  }

  write(kind: string, id: string, cells: string[]) {
    this.sql.exec(
      "INSERT INTO cells (kind, cell, id) SELECT ?, value, ? FROM json_each(?)",
      kind,
      id,
      JSON.stringify(cells),
    );
  }

  remove(kind: string, id: string) {
    this.sql.exec("DELETE FROM cells WHERE kind = ? AND id = ?", kind, id);
  }

  of(kind: string, id: string): string[] {
    return this.sql
      .exec<{ cell: string }>("SELECT cell FROM cells WHERE kind = ? AND id = ?", kind, id)
      .toArray()
      .map((r) => r.cell);
  }
}

/** Write times in milliseconds, each later than the last (by a microsecond at least), so none repeats. */
export class WriteClock {
  private last = 0;

  next(): number {
    this.last = Math.max(Date.now(), this.last + 0.001);
    return this.last;
  }
}

/** Sets the object's alarm for `keptMs` after the earliest end in the tables (their `end_ms`), or none. */
export async function scheduleExpiry(storage: DurableObjectStorage, tables: string[], keptMs: number) {
  const ends = tables.map((table) => `SELECT end_ms FROM ${table}`).join(" UNION ALL ");
  const next = storage.sql
    .exec<{ end_ms: number | null }>(`SELECT MIN(end_ms) AS end_ms FROM (${ends})`)
    .one().end_ms;
  if (next === null) await storage.deleteAlarm();
  else await storage.setAlarm(Math.ceil(next) + keptMs + 1);
}
