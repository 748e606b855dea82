/** The airspace types of spec 2.4: what `types` and ruleset `airspace_types` may name. */
export const AIRSPACE_TYPES: readonly string[] = [
  "non_geo",
  "laanc",
  "controlled_airspace",
  "airport",
  "heliport",
  "notam",
  "tfr",
  "fire",
  "wildfire",
  "special_use_airspace",
  "emergency",
  "ama_field",
  "prison",
  "school",
  "hospital",
  "power_plant",
  "park",
];

/** The states of a spec 2.6 authorization, as the service keeps them (sdkEnums.ts maps them to the SDKs'). */
export type AuthorizationStatus = "pending" | "accepted" | "rejected" | "not_requested" | "cancelled";
