/** A flight's state is derived from its times (CONTRACT §4), never stored. */
export type FlightState = "planned" | "active" | "ended";

export function flightState(flight: { startTime: number; endTime: number }, now: number): FlightState {
  if (now < flight.startTime) return "planned";
  if (now <= flight.endTime) return "active";
  return "ended";
}
