import { parseEd269Zones } from "./ed269";
import { parseClassAirspace } from "./faaClassAirspace";
import { parseFacilityMap } from "./faaFacilityMap";
import { parseTfr } from "./faaTfr";
import { type GeoJsonOptions, parseGeoJson } from "./geojson";
import { parseOpenAip } from "./openaip";
import { parseOurAirports } from "./ourairports";
import type { Parsed } from "./source";

export interface Format {
  name: string;
  summary: string;
  parse(text: string, options: GeoJsonOptions): Parsed;
}

export const FORMATS: Format[] = [
  {
    name: "ourairports",
    summary: "OurAirports airports.csv: airports and heliports (closed ones skipped)",
    parse: parseOurAirports,
  },
  {
    name: "faa-facility-map",
    summary: "FAA UAS Facility Map GeoJSON: 30″ grid cells with CEILING (ft), APT1_* airport fields",
    parse: parseFacilityMap,
  },
  {
    name: "faa-class-airspace",
    summary: "FAA Class_Airspace GeoJSON: classes B, C, D and surface-area E",
    parse: parseClassAirspace,
  },
  {
    name: "faa-tfr",
    summary: "FAA TFR shapes GeoJSON (tfr.faa.gov WFS layer TFR:V_TFR_LOC)",
    parse: parseTfr,
  },
  {
    name: "openaip",
    summary: "OpenAIP airspace JSON: an export file (array) or an API page ({items})",
    parse: parseOpenAip,
  },
  {
    name: "ed269",
    summary: "EUROCAE ED-269 geographical zones JSON (UASZoneList): special-use airspace by restriction",
    parse: (text) => parseEd269Zones(text),
  },
  {
    name: "geojson",
    summary: "Plain GeoJSON with a type mapping: parks, schools, hospitals, prisons, power plants, fires…",
    parse: parseGeoJson,
  },
];
