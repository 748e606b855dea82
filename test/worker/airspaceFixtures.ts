import { env } from "cloudflare:test";
import type { Topology } from "topojson-specification";
import usAtlas from "us-atlas/counties-10m.json";
import worldAtlas from "world-atlas/countries-10m.json";
import faaClassPrimitives from "../../data/airspace/faa_class_airspace_primitives.json?raw";
import rulesetsFile from "../../data/airspace/rulesets.json";
import ukRegions from "../../data/airspace/uk-regions.geojson?raw";
import { jurisdictionsFrom } from "../../tools/airspace/boundaries";
import { type AirportWithRunways, embeddedControlledAirspace } from "../../tools/airspace/controlledAirspace";
import { loadDataset, loadJurisdictions, placeRecords } from "../../tools/airspace/dataset";
import { FORMATS } from "../../tools/airspace/formats";
import { parseFaaClassPrimitives } from "../../tools/airspace/formats/faaClassPrimitives";
import { checkedRulesets, type RulesetsFile, rulesetStatements } from "../../tools/airspace/rulesets";
import type { Statement } from "../../tools/lib/sql";
import type { Target } from "../../tools/lib/target";
import { forgetJurisdictions } from "../../worker/store/airspace";
import classAirspace from "../fixtures/airspace/faa_class_airspace.geojson?raw";
import tfrShapes from "../fixtures/airspace/faa_tfr_shapes.geojson?raw";
import facilityMap from "../fixtures/airspace/faa_uas_facility_map.geojson?raw";
import openAip from "../fixtures/airspace/openaip_airspace.json?raw";
import ourAirports from "../fixtures/airspace/ourairports_airports.csv?raw";
import places from "../fixtures/airspace/sensitive_places.geojson?raw";
import sfoAirport from "../fixtures/sdk/ksfo-airport.json";
import laancSuiteAirports from "../fixtures/sdk/laanc-suite-airports.json";

/** The test database as the loaders see it: the same SQL the operator commands run, on the test D1. */
export const d1Target: Target = {
  remote: false,
  async execute(statements: Statement[]) {
    if (statements.length > 0)
      await env.DB.batch(statements.map((s) => env.DB.prepare(s.sql).bind(...(s.params ?? []))));
  },
  async query<T>(sql: string, params: unknown[] = []) {
    return (
      await env.DB.prepare(sql)
        .bind(...params)
        .all<T>()
    ).results;
  },
  async putObject() {
    throw new Error("not used");
  },
  async getObject() {
    return null;
  },
  async close() {},
};

const DATASETS: [format: string, text: string][] = [
  ["faa-facility-map", facilityMap],
  ["faa-class-airspace", classAirspace],
  ["faa-tfr", tfrShapes],
  ["openaip", openAip],
  ["geojson", places],
  ["ourairports", ourAirports],
];

/**
 * Loads what the airspace routes read: the real rulesets, the real USA/UK boundaries (without the
 * counties, to stay quick) and every importer fixture, through the importers themselves.
 */
export async function loadAirspaceFixtures(): Promise<void> {
  const quiet = () => {};
  const jurisdictions = jurisdictionsFrom({
    usAtlas: usAtlas as unknown as Topology,
    worldAtlas: worldAtlas as unknown as Topology,
    ukRegions: JSON.parse(ukRegions),
    withCounties: false,
  });
  await d1Target.execute(rulesetStatements(checkedRulesets(rulesetsFile as unknown as RulesetsFile)));
  await loadJurisdictions(d1Target, jurisdictions, quiet);
  // The worker's isolate is this one: it forgets candidates it kept from before the load.
  forgetJurisdictions();
  for (const [formatName, text] of DATASETS) {
    const parsed = FORMATS.find((f) => f.name === formatName)!.parse(text, {});
    placeRecords(parsed.features, jurisdictions);
    await loadDataset(
      d1Target,
      {
        name: formatName,
        format: formatName,
        version: "test",
        features: parsed.features,
        facilityMaps: parsed.facilityMaps,
      },
      quiet,
    );
  }
}

const square = (west: number, south: number, east: number, north: number) => ({
  type: "Polygon" as const,
  coordinates: [
    [
      [west, south],
      [east, south],
      [east, north],
      [west, north],
      [west, south],
    ],
  ],
});

/** Inside the cell (400 ft at 39.47816, −118.78456) and no other. */
export const FALLON_CELL_AREA = square(-118.7905, 39.4765, -118.7845, 39.4825);
/** Across that cell and its east neighbour (200 ft). */
export const FALLON_TWO_CELLS_AREA = square(-118.7905, 39.4765, -118.7765, 39.4825);
export const YOSEMITE_AREA = square(-119.6, 37.7, -119.59, 37.71);
export const LONDON_AREA = square(-0.45, 51.47, -0.44, 51.48);
export const SELLAFIELD_AREA = square(-3.5, 54.41, -3.49, 54.42);
export const PARIS_AREA = square(2.35, 48.85, 2.36, 48.86);
/** A box around Fallon: the Class D, the airport, the heliport, the TFR, the fire and the other places. */
export const FALLON_BOX = square(-119.0, 39.25, -118.5, 39.65);
/** Near the TFR of June 2030 and nothing else. */
export const TFR_AREA = square(-118.62, 39.58, -118.58, 39.62);
/** Inside the facility-map cell: 400 ft at Fallon NAS. */
export const FALLON = { latitude: 39.47816, longitude: -118.78456 };
/** Through the Fallon facility-map cells (200 and 400 ft) and past the school. */
export const FALLON_PATH = {
  type: "LineString" as const,
  coordinates: [
    [-118.7905, 39.479],
    [-118.7765, 39.479],
  ],
};
/** While the Fallon TFR is in effect, written as the C++ SDK writes times. */
export const JUNE_2030 = "2030-06-01T15:00:00.000000Z";

/** The FAA's Class B/C/D shelves of the embedded default (data/airspace), read once per test file. */
export const faaShelves = parseFaaClassPrimitives(faaClassPrimitives).features;

/** These airports' shelves and generated facility maps as the datasets `faa` and `synthetic`, as npm start loads them. */
async function loadEmbeddedControlledAirspace(
  airports: AirportWithRunways[],
  shelves: typeof faaShelves,
): Promise<void> {
  const { faa, synthetic } = embeddedControlledAirspace(airports, shelves);
  await loadDataset(
    d1Target,
    { name: "faa", format: "faa-class-primitives", version: "test", features: faa, facilityMaps: [] },
    () => {},
  );
  await loadDataset(
    d1Target,
    { name: "synthetic", format: "generated", version: "test", ...synthetic },
    () => {},
  );
}

/**
 * SFO's real Class B (its 17 shelves, from the FAA's file) and its generated facility map, as `npm
 * start` loads the embedded default (datasets `faa` and `synthetic`).
 */
export async function loadSfoControlledAirspace(): Promise<void> {
  await loadEmbeddedControlledAirspace(
    [sfoAirport as unknown as AirportWithRunways],
    faaShelves.filter((s) => s.properties.airport_id === "SFO"),
  );
}

/** The airports under the C++ SDK's LAANC suites, by their FAA idents. */
const LAANC_SUITE_AIRPORTS = ["PHX", "CVG", "RNO", "PBF", "JAC"];

/**
 * The controlled airspace under the C++ SDK's LAANC suites, as `npm start` loads the embedded
 * default: the FAA's real Class B/C/D shelves of PHX, CVG, RNO and JAC, Pine Bluff's generated Class
 * E surface area, and their generated facility maps (airports' positions and runways from OurAirports).
 */
export async function loadLaancSuiteAirspace(): Promise<void> {
  await loadEmbeddedControlledAirspace(
    laancSuiteAirports as unknown as AirportWithRunways[],
    faaShelves.filter((s) => LAANC_SUITE_AIRPORTS.includes(String(s.properties.airport_id))),
  );
}
