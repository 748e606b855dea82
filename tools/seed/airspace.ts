import { embeddedAirports } from "../airspace/airportDatabase";
import { jurisdictionsFrom } from "../airspace/boundaries";
import { syntheticControlledAirspace } from "../airspace/controlledAirspace";
import {
  type Dataset,
  loadDataset,
  loadedDatasetVersion,
  loadJurisdictions,
  placeRecords,
  recordDataset,
} from "../airspace/dataset";
import { inputsDigest, readBoundarySources, readRulesetsFile } from "../airspace/embedded";
import { airportRecord } from "../airspace/formats/airports";
import { rulesetStatements } from "../airspace/rulesets";
import type { Seeder } from "./seeder";

/** Bump when the generated records change shape, so existing local state is rebuilt. */
const GENERATOR_VERSION = "2";
const MARKER = "embedded-default";

/**
 * The embedded airspace default: rulesets, real boundaries (USA, UK), real airports and heliports,
 * and synthetic controlled airspace with facility maps. Skipped when the same inputs are loaded.
 */
export const airspaceSeeder: Seeder = {
  name: "airspace",
  async run(target, log) {
    const version = inputsDigest(GENERATOR_VERSION);
    if ((await loadedDatasetVersion(target, MARKER)) === version) {
      log("embedded default already loaded");
      return;
    }
    log("building the embedded default (rulesets, boundaries, airports, synthetic controlled airspace)");
    const rulesets = readRulesetsFile();
    const jurisdictions = jurisdictionsFrom(readBoundarySources());
    const airports = await embeddedAirports();
    const airportRecords = airports.flatMap((a) => airportRecord(a, "ourairports") ?? []);
    const synthetic = syntheticControlledAirspace(airports);
    placeRecords([...airportRecords, ...synthetic.features], jurisdictions);

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
      records: jurisdictions.length + airportRecords.length + synthetic.features.length,
    });
  },
};
