import type { flightPlans, flights } from "../../schema";
import { isoTime } from "../lib/time";
import type { Authorization } from "./airspace/laanc";
import { wireAuthorizationStatus } from "./airspace/sdkEnums";
import { maxLinearExtent } from "./flightArea";

/** Rows as stored (schema/flights.ts): the views read them column by column. */
export type PlanRecord = typeof flightPlans.$inferSelect;
export type FlightRecord = typeof flights.$inferSelect;

/**
 * The plan as the submit response lists it (spec 2.1), with the computed flight features. `public` and
 * `notify` are its flight's (the Android SDK reads them on the plan, AirMapFlightPlan.java 83, 86): a
 * plan not yet submitted has no flight, so nothing of it is public or notified.
 */
export function planView(plan: PlanRecord, flight: Pick<FlightRecord, "public" | "notify"> | null = null) {
  return {
    id: plan.id,
    flight_id: plan.flightId,
    pilot_id: plan.pilotId,
    aircraft_id: plan.aircraftId,
    buffer: plan.buffer,
    start_time: isoTime(plan.startTime),
    end_time: isoTime(plan.endTime),
    takeoff_latitude: plan.takeoffLatitude,
    takeoff_longitude: plan.takeoffLongitude,
    min_altitude_agl: plan.minAltitudeAgl,
    max_altitude_agl: plan.maxAltitudeAgl,
    flight_description: plan.flightDescription,
    public: flight?.public ?? false,
    notify: flight?.notify ?? false,
    geometry: plan.geometry,
    rulesets: plan.rulesets,
    flight_features: {
      ...plan.flightFeatures,
      flight_max_altitude_agl: plan.maxAltitudeAgl,
      flight_min_altitude_agl: plan.minAltitudeAgl,
      max_linear_extent: maxLinearExtent(plan.area),
    },
    created_at: isoTime(plan.createdAt),
  };
}

/** A flight as clients parse it (spec 2.2 and the client fixtures). */
export function flightView(flight: FlightRecord) {
  return {
    id: flight.id,
    flight_plan_id: flight.flightPlanId,
    pilot_id: flight.pilotId,
    aircraft_id: flight.aircraftId,
    latitude: flight.latitude,
    longitude: flight.longitude,
    buffer: flight.buffer,
    geometry: flight.geometry,
    max_altitude: flight.maxAltitude,
    start_time: isoTime(flight.startTime),
    end_time: isoTime(flight.endTime),
    created_at: isoTime(flight.createdAt),
    // The Swift SDK reads the creation time under this name.
    creation_date: isoTime(flight.createdAt),
    public: flight.public,
    notify: flight.notify,
    city: flight.city,
    state: flight.state,
    country: flight.country,
    // Spec 2.6 statuses, as the deep-link callback hands them on.
    authorizations: flight.authorizations as Authorization[],
    // No permits are issued.
    permits: [] as never[],
    statuses: flightStatuses(flight.id, flight.authorizations as Authorization[]),
  };
}

/**
 * A flight as JSON text, `flightView` with the stored area spliced in as it is: a page of flights
 * neither parses nor re-serializes its areas. `extra` adds members (`enhance=true`).
 */
export function flightJson(
  flight: Omit<FlightRecord, "geometry">,
  geometryJson: string,
  extra?: object,
): string {
  const { geometry: _, ...view } = flightView({ ...flight, geometry: undefined as never });
  const text = JSON.stringify(extra ? { ...view, ...extra } : view);
  return `${text.slice(0, -1)},"geometry":${geometryJson}}`;
}

/**
 * The authorizations as the Kotlin SDK's `Flight.statuses` reads them: `{id, manager_id, status}`
 * with status only `accepted`, `rejected` or `pending` (it fails on any other string). A flight
 * exists, so the mapping is the submitted one: `not_requested` and `cancelled` are rejections.
 */
export function flightStatuses(flightId: string, authorizations: Authorization[]) {
  return authorizations.map((a, index) => ({
    id: `${flightId}#${index + 1}`,
    manager_id: a.authority.id,
    status: wireAuthorizationStatus(a.status, true) as "accepted" | "rejected" | "pending",
  }));
}
