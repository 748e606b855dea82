import { readFileSync } from "node:fs";
import { embeddedBasemap } from "../basemap/embedded";
import { EMBEDDED_BASEMAP_KEY } from "../lib/config";
import type { Seeder } from "./seeder";

/** The digest of the embedded archive last loaded into this state. */
const LOADED_KEY = "basemap/embedded.digest";

/**
 * The embedded vector basemap in local R2 at MAP_PMTILES_KEY's local default: built once per input
 * change (cached under STATE_DIR), loaded only when this state holds another build.
 */
export const basemapSeeder: Seeder = {
  name: "basemap",
  async run(target, log) {
    const { file, digest } = await embeddedBasemap(log);
    const loaded = await target.getObject(LOADED_KEY);
    if (loaded && new TextDecoder().decode(loaded) === digest) {
      log("embedded archive already loaded");
      return;
    }
    await target.putObject(
      EMBEDDED_BASEMAP_KEY,
      new Uint8Array(readFileSync(file)),
      "application/vnd.pmtiles",
    );
    await target.putObject(LOADED_KEY, digest, "text/plain");
    log(`loaded ${EMBEDDED_BASEMAP_KEY}`);
  },
};
