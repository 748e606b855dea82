/**
 * The formats airspace:import reads, by name, without their parsers: its --help lists them without
 * loading any (formats/index.ts pairs each with its parser).
 */
export const FORMAT_NAMES = {
  ourairports: "OurAirports airports.csv: airports and heliports (closed ones skipped)",
  "faa-facility-map": "FAA UAS Facility Map GeoJSON: 30″ grid cells with CEILING (ft), APT1_* airport fields",
  "faa-class-airspace": "FAA Class_Airspace GeoJSON: classes B, C, D and surface-area E",
  "faa-tfr": "FAA TFR shapes GeoJSON (tfr.faa.gov WFS layer TFR:V_TFR_LOC)",
  openaip: "OpenAIP airspace JSON: an export file (array) or an API page ({items})",
  ed269: "EUROCAE ED-269 geographical zones JSON (UASZoneList): special-use airspace by restriction",
  ed318: "EUROCAE ED-318 geographical zones GeoJSON (FeatureCollection of UAS zones): as ed269, by type",
  geojson: "Plain GeoJSON with a type mapping: parks, schools, hospitals, prisons, power plants, fires…",
} as const;

export type FormatName = keyof typeof FORMAT_NAMES;
