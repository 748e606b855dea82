/** A flight's state is derived from its times (CONTRACT §4), never stored. */
export type FlightState = "planned" | "active" | "ended";

/**
 * planned before start_time, active from start_time to end_time, ended after. A flight without
 * duration never flies: ending a planned flight sets both times to that moment, and from then on it
 * is ended, not active for that one millisecond.
 */
export function flightState(flight: { startTime: number; endTime: number }, now: number): FlightState {
  if (now < flight.startTime) return "planned";
  if (now <= flight.endTime && flight.startTime < flight.endTime) return "active";
  return "ended";
}
