import { isObject } from "../lib/json";
import { type InjectedFlight, timeOf } from "./injection";

/**
 * What a Service Provider must tell its operator about the telemetry it receives (ASTM F3411-22a):
 * an update rate below 1 Hz for more than a fifth of the time (NET0040: NetMinUasLocRefreshFrequency
 * of 1 Hz, NetMinUasLocRefreshPercentage of 80 %, judged over 10-second windows), and states that
 * lack fields the standard requires. Each notification carries the time it concerns: the end of the
 * first slow window, or the incomplete state's timestamp.
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
  const times = flight.states.map((s) => s.timestamp);
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

/** A state without a field the standard requires (sent null or left out). */
function missingFields(flight: InjectedFlight): OperatorNotification[] {
  const telemetry = Array.isArray(flight.original.telemetry) ? flight.original.telemetry : [];
  let lastTime = flight.states[0]!.timestamp;
  return telemetry.flatMap((state, i): OperatorNotification[] => {
    if (!isObject(state)) return [];
    lastTime = timeOf(state.timestamp) ?? lastTime;
    const position = isObject(state.position) ? state.position : {};
    const missing = [
      ...REQUIRED_STATE_FIELDS.filter((f) => state[f] === undefined || state[f] === null),
      ...REQUIRED_POSITION_FIELDS.filter((f) => position[f] === undefined || position[f] === null).map(
        (f) => `position.${f}`,
      ),
    ];
    return missing.map((field) => ({
      observedAt: lastTime,
      message: `Flight ${flight.injectionId}, telemetry ${i}: missing field ${field}`,
    }));
  });
}
