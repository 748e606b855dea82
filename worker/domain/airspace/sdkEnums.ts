import { acceptedUponSubmission, DEFAULT_DIALECT, type SdkDialect } from "../sdkDialect";
import type { AuthorizationStatus } from "./types";

/**
 * The enum strings the original SDKs decode, and the one place the service's own states become them.
 * The C++ decoders never fail on an unknown string (they keep the enum's first member, so an unknown
 * authorization status reads as `accepted`); every string below is one the C++ SDK knows, and
 * test/worker/sdkEnums.test.ts checks real responses against test/fixtures/sdk/enums.json.
 */

export const RULE_STATUSES = ["conflicting", "not_conflicting", "missing_info", "informational"] as const;
export type RuleStatus = (typeof RULE_STATUSES)[number];

export const AUTHORIZATION_STATUSES = [
  "accepted",
  "rejected",
  "pending",
  "accepted_upon_submission",
  // The same, in the Android and Swift SDKs' words (worker/domain/sdkDialect.ts).
  "authorized_upon_submission",
  "rejected_upon_submission",
] as const;
export type WireAuthorizationStatus = (typeof AUTHORIZATION_STATUSES)[number];

export const VALIDATION_STATUSES = ["valid", "invalid", "unknown"] as const;
export type WireValidationStatus = (typeof VALIDATION_STATUSES)[number];

export const SELECTION_TYPES = ["required", "optional", "pick1"] as const;
export const REGIONS = ["federal", "national", "state", "county", "city", "local"] as const;
export type Region = (typeof REGIONS)[number];
export const INPUT_TYPES = ["bool", "float", "string"] as const;
export type InputType = (typeof INPUT_TYPES)[number];
export const MEASUREMENT_TYPES = ["distance", "speed", "weight"] as const;
export type MeasurementType = (typeof MEASUREMENT_TYPES)[number];
export const MEASUREMENT_UNITS = ["meters", "kilograms", "meters_per_sec"] as const;
export type MeasurementUnit = (typeof MEASUREMENT_UNITS)[number];
export const FAILURES = ["validation", "authorization", "rulesets"] as const;
export type Failure = (typeof FAILURES)[number];

/**
 * An authorization as briefings, evaluations and the batch route send it. The service decides in
 * spec 2.6 terms (`decideLaanc`, stored with the flight on submit); the SDKs read these instead:
 *
 * | service state | plan not submitted         | plan submitted (flight exists) |
 * |---------------|----------------------------|--------------------------------|
 * | accepted      | `accepted_upon_submission` | `accepted`                     |
 * | pending       | `pending`                  | `pending`                      |
 * | rejected      | `rejected_upon_submission` | `rejected`                     |
 * | not_requested | `rejected_upon_submission` | `rejected`                     |
 * | cancelled     | `rejected_upon_submission` | `rejected`                     |
 * | undecided (an area evaluated without `flight_max_altitude_agl`) | `pending` | — |
 *
 * `not_requested` (no LAANC at that airport, no facility map, more than 90 days ahead) and
 * `cancelled` mean this service does not authorize the flight: the pilot must not read them as an
 * authorization, so they go out as rejections and the message says what to do instead.
 * `accepted_upon_submission` is the C++ SDK's word; the Android and Swift SDKs get theirs,
 * `authorized_upon_submission` (worker/domain/sdkDialect.ts).
 */
export function wireAuthorizationStatus(
  status: AuthorizationStatus,
  submitted: boolean,
  dialect: SdkDialect = DEFAULT_DIALECT,
): WireAuthorizationStatus {
  switch (status) {
    case "accepted":
      return submitted ? "accepted" : acceptedUponSubmission(dialect);
    case "pending":
      return "pending";
    case "rejected":
    case "not_requested":
    case "cancelled":
      return submitted ? "rejected" : "rejected_upon_submission";
  }
}

/** Why a status became a rejection, said in the message (the status alone cannot carry it). */
export function wireAuthorizationMessage(status: AuthorizationStatus, message: string): string {
  if (status === "not_requested") return `Not requested through LAANC: ${message}`;
  if (status === "cancelled") return `Cancelled: ${message}`;
  return message;
}

/**
 * What the service knows about a pilot's detail that an authority needs, and how the SDKs read it:
 * present and right → `valid`; absent, unverified or malformed → `invalid` (the message says which);
 * no pilot to check (an evaluation of an area, not of a plan) → `unknown`.
 */
export type ValidationState = "valid" | "missing" | "unverified" | "malformed" | "unchecked";

export function wireValidationStatus(state: ValidationState): WireValidationStatus {
  switch (state) {
    case "valid":
      return "valid";
    case "missing":
    case "unverified":
    case "malformed":
      return "invalid";
    case "unchecked":
      return "unknown";
  }
}

/** Units as the rulesets file spells them, to the SDKs' spelling; unknown ones are left out (null). */
export function wireMeasurementUnit(unit: string | null): MeasurementUnit | null {
  if (unit === "meters_per_second" || unit === "m/s") return "meters_per_sec";
  return (MEASUREMENT_UNITS as readonly string[]).includes(unit ?? "") ? (unit as MeasurementUnit) : null;
}

export function wireMeasurementType(type: string | null): MeasurementType | null {
  return (MEASUREMENT_TYPES as readonly string[]).includes(type ?? "") ? (type as MeasurementType) : null;
}

/** The jurisdictions table holds only SDK regions; anything else would be a loader bug, sent as `local`. */
export function wireRegion(region: string): Region {
  return (REGIONS as readonly string[]).includes(region) ? (region as Region) : "local";
}
