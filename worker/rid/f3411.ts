/**
 * ASTM F3411-22a shapes (the USS-USS API, `/rid/v2`), as the standard's OpenAPI document declares
 * them (test/fixtures/interuss/f3411_v22a_sp.yaml). Only what a Service Provider sends.
 */

export interface Time {
  value: string;
  format: "RFC3339";
}

export type HorizontalAccuracy =
  | "HAUnknown"
  | "HA10NMPlus"
  | "HA10NM"
  | "HA4NM"
  | "HA2NM"
  | "HA1NM"
  | "HA05NM"
  | "HA03NM"
  | "HA01NM"
  | "HA005NM"
  | "HA30m"
  | "HA10m"
  | "HA3m"
  | "HA1m";
export type VerticalAccuracy =
  | "VAUnknown"
  | "VA150mPlus"
  | "VA150m"
  | "VA45m"
  | "VA25m"
  | "VA10m"
  | "VA3m"
  | "VA1m";
export type SpeedAccuracy = "SAUnknown" | "SA10mpsPlus" | "SA10mps" | "SA3mps" | "SA1mps" | "SA03mps";
export type OperationalStatus = "Undeclared" | "Ground" | "Airborne" | "Emergency" | "RemoteIDSystemFailure";
export type UAType =
  | "NotDeclared"
  | "Aeroplane"
  | "Helicopter"
  | "Gyroplane"
  | "HybridLift"
  | "Ornithopter"
  | "Glider"
  | "Kite"
  | "FreeBalloon"
  | "CaptiveBalloon"
  | "Airship"
  | "FreeFallOrParachute"
  | "Rocket"
  | "TetheredPoweredAircraft"
  | "GroundObstacle"
  | "Other";

export const HORIZONTAL_ACCURACIES: readonly HorizontalAccuracy[] = [
  "HAUnknown",
  "HA10NMPlus",
  "HA10NM",
  "HA4NM",
  "HA2NM",
  "HA1NM",
  "HA05NM",
  "HA03NM",
  "HA01NM",
  "HA005NM",
  "HA30m",
  "HA10m",
  "HA3m",
  "HA1m",
];
export const VERTICAL_ACCURACIES: readonly VerticalAccuracy[] = [
  "VAUnknown",
  "VA150mPlus",
  "VA150m",
  "VA45m",
  "VA25m",
  "VA10m",
  "VA3m",
  "VA1m",
];
export const SPEED_ACCURACIES: readonly SpeedAccuracy[] = [
  "SAUnknown",
  "SA10mpsPlus",
  "SA10mps",
  "SA3mps",
  "SA1mps",
  "SA03mps",
];
export const OPERATIONAL_STATUSES: readonly OperationalStatus[] = [
  "Undeclared",
  "Ground",
  "Airborne",
  "Emergency",
  "RemoteIDSystemFailure",
];
export const UA_TYPES: readonly UAType[] = [
  "NotDeclared",
  "Aeroplane",
  "Helicopter",
  "Gyroplane",
  "HybridLift",
  "Ornithopter",
  "Glider",
  "Kite",
  "FreeBalloon",
  "CaptiveBalloon",
  "Airship",
  "FreeFallOrParachute",
  "Rocket",
  "TetheredPoweredAircraft",
  "GroundObstacle",
  "Other",
];

export interface RIDHeight {
  distance: number;
  reference: "TakeoffLocation" | "GroundLevel";
}

export interface RIDAircraftPosition {
  lat: number;
  lng: number;
  /** WGS84 ellipsoid height, meters. */
  alt: number;
  accuracy_h: HorizontalAccuracy;
  accuracy_v: VerticalAccuracy;
  extrapolated: boolean;
  pressure_altitude?: number;
  height?: RIDHeight;
}

export interface RIDAircraftState {
  timestamp: Time;
  timestamp_accuracy: number;
  operational_status: OperationalStatus;
  position: RIDAircraftPosition;
  track: number;
  speed: number;
  speed_accuracy: SpeedAccuracy;
  vertical_speed: number;
}

export interface RIDRecentAircraftPosition {
  time: Time;
  position: RIDAircraftPosition;
}

export interface RIDFlight {
  id: string;
  aircraft_type: UAType;
  current_state: RIDAircraftState;
  simulated: boolean;
  recent_positions: RIDRecentAircraftPosition[];
}

export interface GetFlightsResponse {
  timestamp: Time;
  flights: RIDFlight[];
}

export interface Altitude {
  value: number;
  reference: "W84";
  units: "M";
}

export interface OperatorLocation {
  position: { lat: number; lng: number };
  altitude?: Altitude;
  altitude_type?: "Takeoff" | "Dynamic" | "Fixed";
}

export interface UASID {
  serial_number?: string;
  registration_id?: string;
  utm_id?: string;
  specific_session_id?: string;
}

export interface RIDFlightDetails {
  id: string;
  eu_classification?: { category?: string; class?: string };
  uas_id?: UASID;
  operator_id?: string;
  operator_location?: OperatorLocation;
  operation_description?: string;
  auth_data?: { format?: number; data?: string };
}

export const rfc3339 = (ms: number): Time => ({ value: new Date(ms).toISOString(), format: "RFC3339" });
