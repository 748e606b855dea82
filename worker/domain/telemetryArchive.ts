/**
 * The position archive as the Swift SDK reads it (`ArchiveClient.swift`, `TelemetryReport+JSON.swift`):
 * a table of `fields` (column names) and `values` (one row per sample), sampled at most once per
 * `rate` interval. Pure: the records come from the flight's telemetry store.
 */

/** Columns in row order; the SDK needs the first four. `altitude_meters` is above mean sea level. */
export const POSITION_FIELDS = [
  "timestamp",
  "latitude_degrees",
  "longitude_degrees",
  "altitude_meters",
  "altitude_agl_meters",
  "horizontal_accuracy_meters",
] as const;

export type PositionRow = [string, number, number, number, number, number];

/** A stored Position record: its timestamp (UNIX ms) and its proto fields. */
export interface PositionRecord {
  timestamp: number;
  fields: Record<string, number>;
}

/** The SDK's default resolution ("Default: 1 second"). */
export const DEFAULT_SAMPLE_INTERVAL_MS = 1000;
const MAX_SAMPLE_INTERVAL_MS = 24 * 60 * 60 * 1000;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000 } as const;

/**
 * The sample interval in ms of a `rate` as the Swift SDK's `SampleRate` writes it: `<n>ms`, `<n>s`
 * or `<n>m` (a bare number is seconds). Undefined when it is not one, or is under 1 ms or over a day.
 */
export function sampleInterval(rate: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(rate.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[(match[2] ?? "s") as keyof typeof UNIT_MS];
  return ms >= 1 && ms <= MAX_SAMPLE_INTERVAL_MS ? ms : undefined;
}

/**
 * Keeps the first record of each interval, intervals aligned to the epoch (so the same rate gives
 * the same samples however the reading is paged). Records must arrive in timestamp order.
 */
export class Downsampler {
  private lastInterval = Number.NEGATIVE_INFINITY;

  constructor(private readonly intervalMs: number) {}

  keeps(timestamp: number): boolean {
    const interval = Math.floor(timestamp / this.intervalMs);
    if (interval === this.lastInterval) return false;
    this.lastInterval = interval;
    return true;
  }
}

/** One row of the table, in `POSITION_FIELDS` order. */
export function positionRow(record: PositionRecord): PositionRow {
  const f = record.fields;
  return [
    new Date(record.timestamp).toISOString(),
    f.latitude ?? 0,
    f.longitude ?? 0,
    f.altitude_msl ?? 0,
    f.altitude_agl ?? 0,
    f.horizontal_accuracy ?? 0,
  ];
}
