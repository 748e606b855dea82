import type { AirspaceRecord } from "../dataset";

/** Airports and heliports from OurAirports-shaped rows, whatever file they came from. */
export interface AirportInput {
  ident: string;
  type: string;
  name: string;
  latitude: number;
  longitude: number;
  elevationFt: number | null;
  iata: string | null;
  icao: string | null;
  localCode: string | null;
  city: string | null;
  url: string | null;
}

/**
 * How near a flight area must come to an airport or heliport to be told about it: the 5 statute
 * miles of the old notice rule for airports, one mile for heliports.
 */
const AIRPORT_NOTICE_RADIUS_M = 8_047;
const HELIPORT_NOTICE_RADIUS_M = 1_609;

const AIRPORT_TYPES = new Set([
  "large_airport",
  "medium_airport",
  "small_airport",
  "seaplane_base",
  "balloonport",
]);

/** An airport or heliport as an airspace record; closed and unknown kinds give undefined. */
export function airportRecord(airport: AirportInput, source: string): AirspaceRecord | undefined {
  const kind =
    airport.type === "heliport" ? "heliport" : AIRPORT_TYPES.has(airport.type) ? "airport" : undefined;
  if (!kind || !Number.isFinite(airport.latitude) || !Number.isFinite(airport.longitude)) return undefined;
  const properties: Record<string, unknown> = { type: airport.type, ident: airport.ident };
  if (airport.icao) properties.icao = airport.icao;
  if (airport.iata) properties.iata = airport.iata;
  if (airport.localCode) properties.faa = airport.localCode;
  if (airport.elevationFt !== null) properties.elevation = airport.elevationFt;
  if (airport.url) properties.url = airport.url;
  return {
    sourceId: airport.ident,
    type: kind,
    // The sources' own typing ("Campbell County Airport  - Colonel …"): one space between words.
    name: airport.name.replace(/\s+/g, " ").trim(),
    geometry: { type: "Point", coordinates: [airport.longitude, airport.latitude] },
    radiusM: kind === "airport" ? AIRPORT_NOTICE_RADIUS_M : HELIPORT_NOTICE_RADIUS_M,
    properties,
    city: airport.city || null,
    source,
  };
}
