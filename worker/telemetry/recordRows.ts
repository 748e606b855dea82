/** The records table as the read API and the live replay select it: the same columns, read alike. */

export const RECORD_COLUMNS = "id, serial, type, timestamp, received_at, fields";

// A type, not an interface: SqlStorage.exec wants rows with an index signature.
export type RecordRow = {
  id: number;
  serial: number;
  type: string;
  timestamp: number;
  received_at: number;
  /** JSON of the record's named fields. */
  fields: string;
};

/** A stored row as a record: its fields parsed. */
export function recordOfRow(row: RecordRow) {
  return {
    id: row.id,
    serial: row.serial,
    type: row.type,
    timestamp: row.timestamp,
    receivedAt: row.received_at,
    fields: JSON.parse(row.fields) as Record<string, number>,
  };
}
