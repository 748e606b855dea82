import { METERS_PER_FOOT } from "../../units";
import { cellOfPolygon } from "../facilityGrid";
import type { FacilityMapRecord } from "./records";
import { cleanGeometry, count, featuresOf, numberOf, type Parsed, sourceTime } from "./source";

/**
 * FAA UAS Facility Map data (the FAA_UAS_FacilityMap_Data layer, as GeoJSON): one square 30″
 * polygon per cell with CEILING and UNIT, and the airport it belongs to in the APT1_* fields.
 */
export function parseFacilityMap(text: string | object): Parsed {
  const maps = new Map<string, FacilityMapRecord>();
  const skipped = new Map<string, number>();
  for (const feature of featuresOf(text)) {
    const p = feature.properties ?? {};
    const geometry = cleanGeometry(feature.geometry);
    const polygon =
      geometry?.type === "MultiPolygon" && geometry.coordinates.length === 1
        ? { type: "Polygon" as const, coordinates: geometry.coordinates[0]! }
        : geometry;
    const cell = polygon?.type === "Polygon" ? cellOfPolygon(polygon) : undefined;
    if (!cell) {
      count(skipped, "not a 30″ grid cell polygon");
      continue;
    }
    const ceiling = numberOf(p.CEILING);
    if (ceiling === null || ceiling < 0) {
      count(skipped, "no CEILING");
      continue;
    }
    const airportId = String(p.APT1_FAAID ?? p.APT1_ICAO ?? "").trim();
    if (!airportId) {
      count(skipped, "no APT1_FAAID");
      continue;
    }
    const metres = /^m/i.test(String(p.UNIT ?? "Feet"));
    let map = maps.get(airportId);
    if (!map) {
      map = {
        airportId,
        icao: stringOrNull(p.APT1_ICAO),
        name: stringOrNull(p.APT1_NAME) ?? airportId,
        laanc: truthy(p.APT1_LAANC),
        lastEdit: sourceTime(p.LAST_EDIT),
        source: "faa",
        cells: [],
      };
      maps.set(airportId, map);
    }
    map.cells.push({ ...cell, ceilingFt: Math.round(metres ? ceiling / METERS_PER_FOOT : ceiling) });
  }
  return { features: [], facilityMaps: [...maps.values()], skipped };
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/** APT1_LAANC is 1/0 in the FAA layer; some exports write true/false or Y/N. */
function truthy(value: unknown): boolean {
  return value === 1 || value === true || value === "1" || /^(true|y|yes)$/i.test(String(value));
}
