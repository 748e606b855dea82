/**
 * Which record times are plausible, one rule for the relay and the worker: a record is dated from its
 * session's start-comm minus an hour (a clock set a little wrong, records buffered before the session
 * opened) to now plus five minutes (clock skew). Anything else, e.g. 0 (1970) from an empty record or
 * year 9999, is dropped and counted by its reason. Pure: no Node, no workerd.
 */

/** How long before its session opened a record may be dated. */
export const BEFORE_SESSION_MS = 60 * 60 * 1000;
/** How far ahead of now a record may be dated. */
export const AHEAD_OF_NOW_MS = 5 * 60 * 1000;

/** Why a record's time is implausible: `before_session` or `in_future`. */
export type TimeProblem = "before_session" | "in_future";

/**
 * Why `timestamp` (ms) lies outside the window of a session opened at `openedAt`, or undefined when
 * it is inside. The window ends `aheadMs` after `until`: now, or a later time up to which data is
 * dated ahead on purpose (a flight's planned end, RID test injection).
 */
export function recordTimeProblem(
  timestamp: number,
  openedAt: number,
  until: number,
  aheadMs = AHEAD_OF_NOW_MS,
): TimeProblem | undefined {
  if (timestamp < openedAt - BEFORE_SESSION_MS) return "before_session";
  if (timestamp > until + aheadMs) return "in_future";
  return undefined;
}

/** The window as words, for error messages: `opened` and `until` name its start and its end. */
export function timeWindowText(opened: string, until = "now", aheadMs = AHEAD_OF_NOW_MS): string {
  const ahead = aheadMs >= 3600_000 ? `${aheadMs / 3600_000} h` : `${Math.round(aheadMs / 60_000)} min`;
  return `from 1 h before ${opened} to ${ahead} after ${until}`;
}
