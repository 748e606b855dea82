import { parseClassAirspace } from "../../../worker/domain/airspace/formats/faaClassAirspace";
import { parseFacilityMap } from "../../../worker/domain/airspace/formats/faaFacilityMap";
import { parseTfr } from "../../../worker/domain/airspace/formats/faaTfr";
import { looksLikeEd318 } from "../../../worker/interuss/ed318";
import { parseEd269Zones } from "./ed269";
import { parseEd318Zones } from "./ed318";
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
  ed269: (text) => {
    // ED-318 is a FeatureCollection too: ED-269's reader would refuse each zone for want of a field.
    if (looksLikeEd318(JSON.parse(text)))
      throw new Error("this is ED-318 (a FeatureCollection of UAS zones): import it as ed318");
    return parseEd269Zones(text);
  },
  ed318: (text) => parseEd318Zones(text),
  geojson: parseGeoJson,
};

export const FORMATS: Format[] = Object.entries(FORMAT_NAMES).map(([name, summary]) => ({
  name,
  summary,
  parse: PARSERS[name as FormatName],
}));
