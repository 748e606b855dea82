/** ISO 8601 with an explicit offset or Z (CONTRACT §2); date-only and offset-less forms are refused. */
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Parses a time parameter (ISO 8601 with offset, or `now`) to epoch ms; undefined when invalid. */
export function parseTime(value: string, now = Date.now()): number | undefined {
  if (value === "now") return now;
  if (!ISO_WITH_OFFSET.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function isoTimeOrNull(ms: number | null | undefined): string | null {
  return ms == null ? null : isoTime(ms);
}
