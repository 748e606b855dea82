import { roundCoordinate } from "../domain/geojson";
import { isObject } from "../lib/json";
import type { OperatorLocation, RIDFlightDetails, UASID } from "./f3411";

/**
 * F3411-22a flight details (`GET /uss/flights/{id}/details`). A Windsock flight says little about its
 * operator beyond where it takes off: its take-off point stands as the operator's location and its
 * id as the UTM session id. An injected flight answers what the qualifier declared for that time.
 */

export function windsockFlightDetails(flight: {
  id: string;
  latitude: number;
  longitude: number;
}): RIDFlightDetails {
  return {
    id: flight.id,
    uas_id: { utm_id: flight.id },
    operator_location: {
      position: { lat: roundCoordinate(flight.latitude), lng: roundCoordinate(flight.longitude) },
    },
  };
}

/** Details the qualifier injected, with the time after which each applies. */
export interface DeclaredDetails {
  effectiveAfter: number;
  details: Record<string, unknown>;
}

/** The declared details in force at `now`: the latest already effective, else the earliest. */
export function detailsInForce(list: DeclaredDetails[], now: number): DeclaredDetails | undefined {
  const sorted = [...list].sort((a, b) => a.effectiveAfter - b.effectiveAfter);
  return sorted.filter((d) => d.effectiveAfter <= now).at(-1) ?? sorted[0];
}

const str = (v: unknown) => (typeof v === "string" ? v : undefined);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/**
 * Injection-interface details (RIDFlightDetails of rid/v1/injection.yaml) as F3411-22a's: the
 * operator's point and altitude become `operator_location`, serial and registration numbers go into
 * `uas_id`; the id is this service's flight id (the interface allows changing `details.id`).
 */
export function declaredDetailsAsF3411(
  declared: Record<string, unknown>,
  flightId: string,
): RIDFlightDetails {
  const out: RIDFlightDetails = { id: flightId };
  const operatorId = str(declared.operator_id);
  if (operatorId !== undefined) out.operator_id = operatorId;
  const description = str(declared.operation_description);
  if (description !== undefined) out.operation_description = description;
  const location = operatorLocation(declared);
  if (location) out.operator_location = location;
  const uasId: UASID = {};
  if (isObject(declared.uas_id))
    for (const key of ["serial_number", "registration_id", "utm_id", "specific_session_id"] as const) {
      const value = str(declared.uas_id[key]);
      if (value) uasId[key] = value;
    }
  uasId.serial_number ??= str(declared.serial_number) || undefined;
  uasId.registration_id ??= str(declared.registration_number) || undefined;
  for (const key of Object.keys(uasId) as (keyof UASID)[]) if (uasId[key] === undefined) delete uasId[key];
  if (Object.keys(uasId).length > 0) out.uas_id = uasId;
  if (isObject(declared.auth_data)) {
    const format = num(declared.auth_data.format);
    const data = str(declared.auth_data.data);
    out.auth_data = { ...(format !== undefined ? { format } : {}), ...(data !== undefined ? { data } : {}) };
  }
  if (isObject(declared.eu_classification)) {
    const category = str(declared.eu_classification.category);
    const klass = str(declared.eu_classification.class);
    out.eu_classification = {
      ...(category !== undefined ? { category } : {}),
      ...(klass !== undefined ? { class: klass } : {}),
    };
  }
  return out;
}

function operatorLocation(declared: Record<string, unknown>): OperatorLocation | undefined {
  const given = declared.operator_location;
  if (!isObject(given)) return undefined;
  // The injection interface sends a LatLngPoint; F3411-22a's form ({position, altitude}) passes as it is.
  const point = isObject(given.position) ? given.position : given;
  const lat = num(point.lat);
  const lng = num(point.lng);
  if (lat === undefined || lng === undefined) return undefined;
  const location: OperatorLocation = { position: { lat, lng } };
  const altitude = isObject(declared.operator_altitude) ? declared.operator_altitude : given;
  const value =
    num(altitude.altitude) ?? (isObject(altitude.altitude) ? num(altitude.altitude.value) : undefined);
  if (value !== undefined) location.altitude = { value, reference: "W84", units: "M" };
  const type = str(altitude.altitude_type);
  if (type === "Takeoff" || type === "Dynamic" || type === "Fixed") location.altitude_type = type;
  return location;
}
