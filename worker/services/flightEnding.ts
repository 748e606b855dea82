import { flightState } from "../domain/flightState";
import { flightView } from "../domain/flightViews";
import type { Bindings, Db } from "../env";
import { endFlightClosingSessions, enhancements, type FlightRow, findFlight } from "../store/flights";
import { closeLiveIsa } from "./telemetrySessions";

/**
 * Ends a flight now: an active one at once, a planned one before it flies, and its telemetry
 * sessions and live ISA close with it. An ended one (the SDKs' flows end flights twice) keeps its
 * recorded end. Null when the flight went meanwhile.
 */
export async function endFlightNow(
  env: Bindings,
  db: Db,
  accountId: string,
  flight: FlightRow,
  now: number,
): Promise<FlightRow | null> {
  if (flightState(flight, now) === "ended") return flight;
  // The flight ends with its session in one D1 batch, while its Durable Object closes the ISA: the
  // ISA closes whoever ends the flight, so the two need not wait for each other.
  const [ended] = await Promise.all([
    endFlightClosingSessions(db, flight.id, now),
    closeLiveIsa(env, flight.id),
  ]);
  // Ended by another request meanwhile: as it is now.
  return ended ?? findFlight(db, accountId, flight.id);
}

/**
 * `POST /flight/v2/{id}/end`: the ended flight with its `pilot` and `aircraft` (the C++ SDK reads
 * `end_time`; the Android SDK the whole flight, AirMapFlight). Null when the flight went meanwhile.
 */
export async function endedFlightView(
  env: Bindings,
  db: Db,
  accountId: string,
  flight: FlightRow,
  now: number,
) {
  // The pilot and aircraft do not change as the flight ends: read alongside, not after.
  const [ended, extra] = await Promise.all([
    endFlightNow(env, db, accountId, flight, now),
    enhancements(db, [flight]),
  ]);
  return ended && { ...flightView(ended), ...extra.get(flight.id) };
}
