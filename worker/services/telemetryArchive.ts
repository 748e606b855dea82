import { Downsampler, type PositionRow, positionRow } from "../domain/telemetryArchive";
import { ApiError } from "../lib/errors";
import type { StoredRecord, TelemetryQuery } from "../telemetry/flightTelemetry";

/** One page of the flight's records, as its telemetry store reads them (ordered by timestamp, id). */
export type RecordReader = (query: TelemetryQuery) => Promise<{ records: StoredRecord[]; more: boolean }>;

export interface ArchiveWindow {
  /** UNIX ms, inclusive. */
  start: number;
  end: number;
  intervalMs: number;
}

/** Records read from the store per page: the telemetry read route's largest page. */
const PAGE = 10_000;
/** At most this many samples in one answer (a 4-hour flight at the default 1 s is 14,400). */
export const MAX_SAMPLES = 100_000;
/** At most this many stored records are scanned for one answer, whatever the rate. */
export const MAX_SCANNED = 1_000_000;

/**
 * The flight's Position records between `start` and `end`, one per interval, as table rows. Reads
 * the store page by page and stops at `end`; too many samples (or records to scan) is a 400 that
 * says which parameter to change.
 */
export async function archivedPositions(read: RecordReader, window: ArchiveWindow): Promise<PositionRow[]> {
  const sampler = new Downsampler(window.intervalMs);
  const rows: PositionRow[] = [];
  let after: TelemetryQuery["after"];
  let scanned = 0;
  for (;;) {
    const page = await read({ since: window.start, types: ["position"], limit: PAGE, after });
    for (const record of page.records) {
      if (record.timestamp > window.end) return rows;
      if (!sampler.keeps(record.timestamp)) continue;
      if (rows.length === MAX_SAMPLES) throw tooMany("rate", `more than ${MAX_SAMPLES} samples`);
      rows.push(positionRow(record));
    }
    scanned += page.records.length;
    const last = page.records.at(-1);
    if (!page.more || !last) return rows;
    if (scanned >= MAX_SCANNED) throw tooMany("end", `more than ${MAX_SCANNED} records to read`);
    after = { timestamp: last.timestamp, id: last.id };
  }
}

function tooMany(name: "rate" | "end", what: string): ApiError {
  const message = `${what}: use a coarser rate or a shorter start..end window`;
  return new ApiError(400, `Too much telemetry for one answer: ${message}`, [{ name, message }]);
}
