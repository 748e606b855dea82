import { flightState } from "../domain/flightState";
import type { Bindings, Db } from "../env";
import {
  deletePlannedFlight,
  deleteSubmittedPlan,
  deleteUnsubmittedPlan,
  type FlightPlanRow,
  type FlightRow,
  findFlight,
} from "../store/flights";
import { closeSessions } from "../store/telemetrySessions";
import { telemetryOf } from "../telemetry/flightTelemetry";

/**
 * Flights and plans go only before the flight starts, and take everything recorded for the flight
 * with them: a pilot may open a telemetry session before take-off, and none of it outlives the flight.
 */

async function forgetTelemetry(env: Bindings, db: Db, flightId: string, now: number) {
  await closeSessions(db, flightId, now);
  await telemetryOf(env, flightId).erase();
}

/** Deletes a flight that has not started; false when it has (or started meanwhile). */
export async function removeFlight(env: Bindings, db: Db, flight: FlightRow, now: number): Promise<boolean> {
  if (flightState(flight, now) !== "planned" || !(await deletePlannedFlight(db, flight, now))) return false;
  await forgetTelemetry(env, db, flight.id, now);
  return true;
}

/**
 * Deletes a plan, and a submitted plan's flight with it while that has not started.
 * `submitted`: a submit claimed the plan meanwhile; `started`: its flight has started, and the
 * flight's history keeps the plan it was submitted from.
 */
export async function removePlan(
  env: Bindings,
  db: Db,
  plan: FlightPlanRow,
  now: number,
): Promise<"removed" | "submitted" | "started"> {
  if (!plan.flightId) return (await deleteUnsubmittedPlan(db, plan.id)) ? "removed" : "submitted";
  const flightId = plan.flightId;
  const flight = await findFlight(db, plan.accountId, flightId);
  if (!(await deleteSubmittedPlan(db, { ...plan, flightId }, now))) return "started";
  if (flight) await forgetTelemetry(env, db, flightId, now);
  return "removed";
}
