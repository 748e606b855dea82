import { BadOutline, circleCells, type LatLng, polygonCells } from "./cells";

/**
 * A request's Volume4D as the DSS keeps it: level-13 cells, a time window and altitudes, with
 * InterUSS's DSS rules for the window (ASTM F3411-22a, `remoteid/updated.yaml` 2.1.0).
 */

export interface Volume4DInput {
  volume: {
    outline_polygon?: { vertices: LatLng[] } | undefined;
    outline_circle?: { center: LatLng; radius: { value: number; units: string } } | undefined;
    altitude_lower?: { value: number } | undefined;
    altitude_upper?: { value: number } | undefined;
  };
  time_start?: { value: string } | undefined;
  time_end?: { value: string } | undefined;
}

export interface Extents {
  cells: string[];
  startMs: number;
  endMs: number;
  altitudeLower: number | null;
  altitudeUpper: number | null;
}

/** A start this far in the past is still "now" (clocks differ); InterUSS allows the same. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** Ended entities stay readable by id this long before the DSS objects' alarms remove them. */
export const ENDED_KEPT_MS = 3600_000;
/** Subscriptions last at most a day. */
export const MAX_SUBSCRIPTION_MS = 24 * 3600_000;

export class InvalidExtents extends Error {}

/**
 * An RFC 3339 UTC time as milliseconds with a fraction down to the microsecond: clients compare
 * the times they sent with the times answered, to the microsecond.
 */
export function parseTime(value: string): number | undefined {
  const match = /^(.*?)(?:\.(\d+))?[zZ]$/.exec(value);
  if (!match) return undefined;
  const whole = Date.parse(`${match[1]}Z`);
  if (!Number.isFinite(whole)) return undefined;
  return whole + Number(`0.${(match[2] ?? "0").slice(0, 6)}`) * 1000;
}

/** Milliseconds (with their microseconds) as RFC 3339 UTC with six decimals. */
export function formatTime(ms: number): string {
  const whole = Math.floor(ms / 1000) * 1000;
  const micros = Math.round((ms - whole) * 1000);
  const seconds = new Date(whole).toISOString().slice(0, 19);
  return `${seconds}.${String(Math.min(micros, 999_999)).padStart(6, "0")}Z`;
}

function timeOf(time: { value: string } | undefined, field: string): number | undefined {
  if (!time) return undefined;
  const ms = parseTime(time.value);
  if (ms === undefined) throw new InvalidExtents(`${field}: an RFC 3339 time in UTC ('Z') is required`);
  return ms;
}

/** The level-13 cells of a Volume3D's outline (exactly one of polygon and circle). */
export function volumeCells(volume: Volume4DInput["volume"], field = "extents.volume"): string[] {
  const { outline_polygon: polygon, outline_circle: circle } = volume;
  if ((polygon === undefined) === (circle === undefined))
    throw new InvalidExtents(`${field}: exactly one of outline_polygon and outline_circle is required`);
  try {
    if (polygon) return polygonCells(polygon.vertices);
    if (circle!.radius.units !== "M")
      throw new InvalidExtents(`${field}.outline_circle.radius: units must be M`);
    return circleCells(circle!.center, circle!.radius.value);
  } catch (e) {
    if (e instanceof BadOutline) throw new InvalidExtents(`${field}: ${e.message}`);
    throw e;
  }
}

export type Kind = "IdentificationServiceArea" | "Subscription";

/**
 * The extents of a new or updated entity. An omitted start is now (or the previous one's), an
 * omitted end the previous one's; an ISA needs an end, a subscription's defaults to a day on.
 */
export function extentsOf(
  kind: Kind,
  input: Volume4DInput,
  nowMs: number,
  previous?: { startMs: number; endMs: number },
): Extents {
  const lower = input.volume.altitude_lower?.value ?? null;
  const upper = input.volume.altitude_upper?.value ?? null;
  if (lower !== null && upper !== null && lower > upper)
    throw new InvalidExtents("extents.volume: altitude_lower must not be above altitude_upper");
  let startMs = timeOf(input.time_start, "extents.time_start");
  if (startMs === undefined) startMs = previous?.startMs ?? nowMs;
  else if (nowMs - startMs > MAX_CLOCK_SKEW_MS)
    throw new InvalidExtents(`${kind} time_start must not be in the past`);
  let endMs = timeOf(input.time_end, "extents.time_end") ?? previous?.endMs;
  if (endMs === undefined) {
    if (kind === "IdentificationServiceArea") throw new InvalidExtents(`${kind} must have a time_end`);
    endMs = startMs + MAX_SUBSCRIPTION_MS;
  }
  if (endMs < startMs) throw new InvalidExtents(`${kind} time_end must be after time_start`);
  if (endMs < nowMs) throw new InvalidExtents(`${kind} time_end must be in the future`);
  if (kind === "Subscription" && endMs - startMs > MAX_SUBSCRIPTION_MS)
    throw new InvalidExtents("Subscription window exceeds 24 hours");
  return { cells: volumeCells(input.volume), startMs, endMs, altitudeLower: lower, altitudeUpper: upper };
}

/** Extents whose times and altitudes may be open (a query's area of interest). */
export interface OpenExtents {
  cells: string[];
  startMs: number | null;
  endMs: number | null;
  altitudeLower: number | null;
  altitudeUpper: number | null;
}

function openExtentsOf(input: Volume4DInput, field: string): OpenExtents {
  const lower = input.volume.altitude_lower?.value ?? null;
  const upper = input.volume.altitude_upper?.value ?? null;
  if (lower !== null && upper !== null && lower > upper)
    throw new InvalidExtents(`${field}.volume: altitude_lower must not be above altitude_upper`);
  const startMs = timeOf(input.time_start, `${field}.time_start`) ?? null;
  const endMs = timeOf(input.time_end, `${field}.time_end`) ?? null;
  if (startMs !== null && endMs !== null && startMs > endMs)
    throw new InvalidExtents(`${field}: time_start must not be after time_end`);
  return {
    cells: volumeCells(input.volume, `${field}.volume`),
    startMs,
    endMs,
    altitudeLower: lower,
    altitudeUpper: upper,
  };
}

/** A query's area of interest: its cells, and the times and altitudes it gives (InterUSS's DSS leaves the others open). */
export const queryExtentsOf = (input: Volume4DInput) => openExtentsOf(input, "area_of_interest");

/**
 * The one bounding extent of an F3548 entity's volumes, as InterUSS's DSS keeps it: every cell, the
 * earliest start, the latest end, the lowest floor and the highest ceiling. Both times are required,
 * the end not in the past; `altitudes` requires both altitudes (operational intents).
 */
export function boundingExtentsOf(inputs: Volume4DInput[], nowMs: number, altitudes: boolean): Extents {
  if (inputs.length === 0) throw new InvalidExtents("extents: at least one volume is required");
  const parts = inputs.map((input, i) => openExtentsOf(input, `extents[${i}]`));
  const least = (values: (number | null)[]) =>
    values.includes(null) ? null : Math.min(...(values as number[]));
  const most = (values: (number | null)[]) =>
    values.includes(null) ? null : Math.max(...(values as number[]));
  const startMs = least(parts.map((p) => p.startMs));
  const endMs = most(parts.map((p) => p.endMs));
  if (startMs === null) throw new InvalidExtents("extents: every volume needs a time_start");
  if (endMs === null) throw new InvalidExtents("extents: every volume needs a time_end");
  if (endMs < nowMs) throw new InvalidExtents("extents: time_end must not be in the past");
  const altitudeLower = least(parts.map((p) => p.altitudeLower));
  const altitudeUpper = most(parts.map((p) => p.altitudeUpper));
  if (altitudes && (altitudeLower === null || altitudeUpper === null))
    throw new InvalidExtents("extents: every volume needs altitude_lower and altitude_upper");
  const cells = [...new Set(parts.flatMap((p) => p.cells))];
  return { cells, startMs, endMs, altitudeLower, altitudeUpper };
}
