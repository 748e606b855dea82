import { embeddedAirports } from "../airspace/airportDatabase";
import { jurisdictionsFrom } from "../airspace/boundaries";
import { embeddedControlledAirspace, fieldPositions } from "../airspace/controlledAirspace";
import {
  type Dataset,
  loadDataset,
  loadedDatasetVersion,
  loadJurisdictions,
  placeRecords,
  recordDataset,
} from "../airspace/dataset";
import {
  inputsDigest,
  readBoundarySources,
  readFaaClassPrimitives,
  readRulesetsFile,
} from "../airspace/embedded";
import { airportRecord } from "../airspace/formats/airports";
import { rulesetStatements } from "../airspace/rulesets";
import type { Seeder } from "./seeder";

/** Bump when the generated records change shape, so existing local state is rebuilt. */
const GENERATOR_VERSION = "5";
const MARKER = "embedded-default";

/**
 * The embedded airspace default: rulesets, real boundaries (USA, UK), real airports and heliports,
 * the FAA's Class B/C/D shelves, and synthetic Class E surface areas, UK flight restriction zones
 * and facility maps. Skipped when the same inputs are loaded.
 */
export const airspaceSeeder: Seeder = {
  name: "airspace",
  async run(target, log, detail) {
    const version = inputsDigest(GENERATOR_VERSION);
    if ((await loadedDatasetVersion(target, MARKER)) === version) {
      log("embedded default already loaded");
      return;
    }
    log(
      "building the embedded default (rulesets, boundaries, airports, FAA Class B/C/D, synthetic zones and facility maps)",
    );
    const rulesets = readRulesetsFile();
    const jurisdictions = jurisdictionsFrom(readBoundarySources());
    const airports = await embeddedAirports();
    const airportRecords = airports.flatMap((a) => airportRecord(a, "ourairports") ?? []);
    const classAirspace = readFaaClassPrimitives(fieldPositions(airports));
    const { faa, synthetic } = embeddedControlledAirspace(airports, classAirspace.features);
    log(`${faa.length} FAA Class B/C/D shelves (${classAirspace.cycle})`);
    const unrepaired = `left as they are: ${classAirspace.unrepaired.join(", ") || "none"}`;
    log(
      `${classAirspace.repaired.length} surface shelves that missed their field rebuilt from their airport's other shelves; ` +
        (detail
          ? `${classAirspace.unrepaired.length} left as they are (named in the start log)`
          : unrepaired),
    );
    detail?.(`surface shelves ${unrepaired}`);
    placeRecords([...airportRecords, ...faa, ...synthetic.features], jurisdictions);

    await target.execute(rulesetStatements(rulesets));
    log(`${rulesets.rulesets.length} rulesets`);
    await loadJurisdictions(target, jurisdictions, log);
    const datasets: Dataset[] = [
      {
        name: "ourairports",
        format: "airport-db-sqlite",
        version,
        features: airportRecords,
        facilityMaps: [],
      },
      { name: "faa", format: "faa-class-primitives", version, features: faa, facilityMaps: [] },
      { name: "synthetic", format: "generated", version, ...synthetic },
    ];
    for (const dataset of datasets) {
      log(`dataset ${dataset.name}`);
      await loadDataset(target, dataset, log);
    }
    await recordDataset(target, {
      name: MARKER,
      format: "embedded",
      version,
      records: jurisdictions.length + airportRecords.length + faa.length + synthetic.features.length,
    });
  },
};
