import { formatTime } from "./extents";

/**
 * What the DSS objects answer: a value, or a refusal with the status and message the standards give
 * (and, for F3548's key check, the missing entities beside the message). Routes turn them into HTTP.
 */

export type DssStatus = 400 | 403 | 404 | 409 | 412 | 413 | 429;
export interface Refusal {
  ok: false;
  status: DssStatus;
  message: string;
  details?: Record<string, unknown>;
}
export type Outcome<T> = { ok: true; value: T } | Refusal;

export const fail = (status: DssStatus, message: string, details?: Record<string, unknown>): Refusal =>
  details ? { ok: false, status, message, details } : { ok: false, status, message };

export interface RfcTime {
  value: string;
  format: "RFC3339";
}
export const rfcTime = (ms: number): RfcTime => ({ value: formatTime(ms), format: "RFC3339" });
