import { parseEd269Zones } from "./ed269";
import { parseClassAirspace } from "./faaClassAirspace";
import { parseFacilityMap } from "./faaFacilityMap";
import { parseTfr } from "./faaTfr";
import { type GeoJsonOptions, parseGeoJson } from "./geojson";
import { FORMAT_NAMES, type FormatName } from "./names";
import { parseOpenAip } from "./openaip";
import { parseOurAirports } from "./ourairports";
import type { Parsed } from "./source";

export interface Format {
  name: string;
  summary: string;
  parse(text: string, options: GeoJsonOptions): Parsed;
}

const PARSERS: Record<FormatName, Format["parse"]> = {
  ourairports: parseOurAirports,
  "faa-facility-map": parseFacilityMap,
  "faa-class-airspace": parseClassAirspace,
  "faa-tfr": parseTfr,
  openaip: parseOpenAip,
  ed269: (text) => parseEd269Zones(text),
  geojson: parseGeoJson,
};

export const FORMATS: Format[] = Object.entries(FORMAT_NAMES).map(([name, summary]) => ({
  name,
  summary,
  parse: PARSERS[name as FormatName],
}));
