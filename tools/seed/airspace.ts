import { indexCells } from "../../worker/domain/airspace/spatialGrid";
import { bboxOf } from "../../worker/domain/flightArea";
import { embeddedAirports } from "../airspace/airportDatabase";
import { type JurisdictionRecord, jurisdictionsFrom } from "../airspace/boundaries";
import { syntheticControlledAirspace } from "../airspace/controlledAirspace";
import {
  type Dataset,
  executeInGroups,
  insertStatements,
  loadDataset,
  placeRecords,
} from "../airspace/dataset";
import { inputsDigest, readBoundarySources, readRulesetsFile } from "../airspace/embedded";
import { airportRecord } from "../airspace/formats/airports";
import { rulesetStatements } from "../airspace/rulesets";
import type { Target } from "../lib/target";
import type { Seeder } from "./index";

/** Bump when the generated records change shape, so existing local state is rebuilt. */
const GENERATOR_VERSION = "1";
const MARKER = "embedded-default";

/**
 * The embedded airspace default: rulesets, real boundaries (USA, UK), real airports and heliports,
 * and synthetic controlled airspace with facility maps. Skipped when the same inputs are loaded.
 */
export const airspaceSeeder: Seeder = {
  name: "airspace",
  async run(target, log) {
    const version = inputsDigest(GENERATOR_VERSION);
    const [loaded] = await target.query<{ version: string }>(
      "SELECT version FROM airspace_datasets WHERE name = ?",
      [MARKER],
    );
    if (loaded?.version === version) {
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
    await target.execute([
      {
        sql: `INSERT INTO airspace_datasets (name, format, version, records, loaded_at) VALUES (?, 'embedded', ?, ?, ?)
              ON CONFLICT (name) DO UPDATE SET version = excluded.version, records = excluded.records,
              loaded_at = excluded.loaded_at`,
        params: [
          MARKER,
          version,
          jurisdictions.length + airportRecords.length + synthetic.features.length,
          Date.now(),
        ],
      },
    ]);
  },
};

async function loadJurisdictions(
  target: Target,
  jurisdictions: JurisdictionRecord[],
  log: (m: string) => void,
) {
  const rows = jurisdictions.map((j) => {
    const box = bboxOf(j.geometry);
    return [
      j.id,
      j.name,
      j.region,
      j.country,
      j.code,
      j.parentId,
      JSON.stringify(j.geometry),
      box.minLat,
      box.minLng,
      box.maxLat,
      box.maxLng,
      j.source,
    ];
  });
  const cells = jurisdictions.flatMap((j) =>
    indexCells(bboxOf(j.geometry)).map((c) => [c.level, c.x, c.y, j.id]),
  );
  await target.execute([{ sql: "DELETE FROM jurisdiction_cells" }, { sql: "DELETE FROM jurisdictions" }]);
  await executeInGroups(
    target,
    [
      ...insertStatements(
        `INSERT INTO jurisdictions (id, name, region, country, code, parent_id, geometry, min_lat, min_lng, max_lat,
          max_lng, source)`,
        rows,
      ),
      ...insertStatements("INSERT INTO jurisdiction_cells (level, x, y, jurisdiction_id)", cells),
    ],
    log,
    `${jurisdictions.length} jurisdictions`,
  );
}
