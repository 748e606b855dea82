import { isObject } from "../lib/json";
import { type InjectedFlight, timeOf } from "./injection";

/**
 * What a Service Provider must tell its operator about the telemetry it receives (ASTM F3411-22a):
 * an update rate below 1 Hz for more than a fifth of the time (NET0040: NetMinUasLocRefreshFrequency
 * of 1 Hz, NetMinUasLocRefreshPercentage of 80 %, judged over 10-second windows), and states that
 * lack fields the standard requires. Each is dated when the service could first observe it: the
 * end of the first slow window, or the incomplete state's timestamp. Injected states play out in
 * the future, so these dates may lie ahead of the injection: a notification exists only once its
 * date has come (the qualifier refuses any dated more than 5 s after its query).
 */

export interface OperatorNotification {
  observedAt: number;
  message: string;
}

const WINDOW_S = 10;
const MIN_RATE_HZ = 1;
const MIN_SHARE = 0.8;
const REQUIRED_STATE_FIELDS = [
  "timestamp",
  "timestamp_accuracy",
  "position",
  "track",
  "speed",
  "speed_accuracy",
  "vertical_speed",
];
const REQUIRED_POSITION_FIELDS = ["lat", "lng", "alt"];

export function operatorNotifications(flights: InjectedFlight[]): OperatorNotification[] {
  return flights.flatMap((flight) => [...slowUpdates(flight), ...missingFields(flight)]);
}

/** The first 10-second window with fewer than 8 seconds updated at 1 Hz or more. */
function slowUpdates(flight: InjectedFlight): OperatorNotification[] {
  const times = flight.updateTimes;
  const start = times[0]!;
  const seconds = Math.floor((times.at(-1)! - start) / 1000) + 1;
  if (seconds < WINDOW_S) return [];
  const perSecond = new Array<number>(seconds).fill(0);
  for (const t of times) perSecond[Math.floor((t - start) / 1000)]! += 1;
  for (let from = 0; from + WINDOW_S <= seconds; from++) {
    const updated = perSecond.slice(from, from + WINDOW_S).filter((n) => n >= MIN_RATE_HZ).length;
    if (updated < MIN_SHARE * WINDOW_S)
      return [
        {
          observedAt: start + (from + WINDOW_S) * 1000,
          message: `Flight ${flight.injectionId}: telemetry updates below ${MIN_RATE_HZ} Hz (${updated} of ${WINDOW_S} seconds updated); the operator must restore the update rate`,
        },
      ];
  }
  return [];
}

/**
 * Each field the standard requires that a flight's states leave out (null or absent), once, at the
 * first state without it. A missing position is one notification, not one per coordinate.
 */
function missingFields(flight: InjectedFlight): OperatorNotification[] {
  const telemetry = Array.isArray(flight.original.telemetry) ? flight.original.telemetry : [];
  const seen = new Set<string>();
  const notifications: OperatorNotification[] = [];
  let lastTime = flight.updateTimes[0]!;
  for (const [i, state] of telemetry.entries()) {
    if (!isObject(state)) continue;
    lastTime = timeOf(state.timestamp) ?? lastTime;
    const absent = (object: Record<string, unknown>, f: string) =>
      object[f] === undefined || object[f] === null;
    const missing = REQUIRED_STATE_FIELDS.filter((f) => absent(state, f));
    if (isObject(state.position))
      for (const f of REQUIRED_POSITION_FIELDS) if (absent(state.position, f)) missing.push(`position.${f}`);
    for (const field of missing.filter((f) => !seen.has(f))) {
      seen.add(field);
      notifications.push({
        observedAt: lastTime,
        message: `Flight ${flight.injectionId}, telemetry ${i}: missing field ${field}`,
      });
    }
  }
  return notifications;
}
