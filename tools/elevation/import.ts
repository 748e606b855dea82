import { existsSync } from "node:fs";
import { fail, parseCommandLine, runCommand, usageError } from "../lib/cli";
import type { ImportLog } from "./importer";

const HELP = `Imports elevation data into the tiles the worker serves (/elevation/v1/…).

Usage: npm run elevation:import -- <file>… [--remote]

Files:
  *.hgt          SRTM tiles named for their south-west corner (N57E011.hgt): 3601² samples
                 at 1″ (SRTMGL1) or 1201² at 3″ (SRTM3), big-endian int16, voids -32768
  *.tif, *.tiff  GeoTIFF in geographic WGS84 (EPSG:4326), first band, any sample type;
                 GDAL nodata and NaN are voids; grids off the whole arc-second lattice are
                 resampled onto it (bilinear), at the finest whole step not finer than the source

Each file lands in 1° tiles at its own step; a tile keeps the finest data it is given, and at
the same step new samples replace old ones while voids keep what was there. Unchanged tiles are
not written again. Latitudes beyond 56°S..60°N are skipped (outside SRTM coverage).

Options:
  --remote   write to the deployed R2 bucket (wrangler must be logged in) instead of the local
             state that \`npm start\` serves (STATE_DIR, default .wrangler/state)
  --help     show this help`;

async function main() {
  const { values, positionals } = parseCommandLine({
    help: HELP,
    options: { remote: { type: "boolean" } },
    positionals: true,
  });
  if (positionals.length === 0) usageError("give the files to import");
  for (const file of positionals) if (!existsSync(file)) fail(`${file}: no such file`);
  const remote = values.remote ?? false;
  const [{ openTarget }, { importElevation }] = await Promise.all([
    import("../lib/target"),
    import("./importer"),
  ]);
  const target = await openTarget({ remote });
  const started = Date.now();
  try {
    const report = await importElevation(target, positionals, terminalLog());
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `done in ${seconds} s: ${report.written.length} tiles written, ${report.unchanged.length} unchanged, ` +
        `${report.skipped.length} skipped (${remote ? "deployed bucket" : "local state"})`,
    );
  } finally {
    await target.close();
  }
}

/** Lines for the record; on a terminal, progress redrawn in place on the line below them. */
function terminalLog(): ImportLog {
  const tty = process.stdout.isTTY;
  let pending = false;
  const clear = () => {
    if (pending) process.stdout.write("\r\x1b[K");
    pending = false;
  };
  return {
    line(message) {
      clear();
      console.log(message);
    },
    progress(message) {
      if (!tty) return;
      clear();
      process.stdout.write(message);
      pending = true;
    },
  };
}

runCommand(main);
