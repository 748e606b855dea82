import { flightState } from "../domain/flightState";
import type { Bindings, Db } from "../env";
import { deleteInactiveFlight, deletePlan, type FlightPlanRow, type FlightRow } from "../store/flights";
import { closeSessions } from "../store/telemetrySessions";
import { telemetryOf } from "../telemetry/flightTelemetry";

/**
 * A flight goes when it is not flying (CONTRACT §4: planned or ended; an active one must be ended
 * first), and takes everything recorded for it with it: it disappears from every read.
 */
export async function removeFlight(env: Bindings, db: Db, flight: FlightRow, now: number): Promise<boolean> {
  if (flightState(flight, now) === "active" || !(await deleteInactiveFlight(db, flight, now))) return false;
  await closeSessions(db, flight.id, now);
  await telemetryOf(env, flight.id).erase();
  return true;
}

/** Deletes a plan; a submitted plan's flight stays (the SDKs end or delete it next). False when gone meanwhile. */
export async function removePlan(db: Db, plan: FlightPlanRow): Promise<boolean> {
  return deletePlan(db, plan.id);
}
