import { existsSync, readFileSync } from "node:fs";
import { fail, parseCommandLine, runCommand } from "../lib/cli";

const HELP = `Loads a PMTiles basemap archive into R2, where the worker reads it with range requests
(GET /maps/v1/basemap.json and /maps/v1/basemap/{z}/{x}/{y}.mvt) for the pages' MapLibre map.

Usage: npm run basemap:load -- [--file x.pmtiles] [--key r2/key.pmtiles] [--remote]

Options:
  --file     the archive: a Protomaps extract (\`pmtiles extract https://build.protomaps.com/….pmtiles
             area.pmtiles --bbox=…\`) or any PMTiles v3 archive of vector tiles in the Protomaps
             basemap schema. Default: the embedded one (npm run basemap:build), built if need be
  --key      the R2 key in the ELEVATION bucket (default basemap/basemap.pmtiles); set
             MAP_PMTILES_KEY to the same key (wrangler.toml [vars])
  --remote   write to the deployed bucket (wrangler must be logged in) instead of the local state
             that npm start serves (STATE_DIR, default .wrangler/state)
  --help     show this help

The map's attribution is the archive's own metadata (\`attribution\`): OpenStreetMap for a
Protomaps extract.`;

async function main() {
  const { values } = parseCommandLine({
    help: HELP,
    options: { file: { type: "string" }, key: { type: "string" }, remote: { type: "boolean" } },
  });
  if (values.file && !existsSync(values.file)) fail(`${values.file}: no such file`);
  const [{ embeddedBasemap }, { openTarget }, { readArchiveSummary }, { EMBEDDED_BASEMAP_KEY }] =
    await Promise.all([
      import("./embedded"),
      import("../lib/target"),
      import("./summary"),
      import("../lib/config"),
    ]);
  const file = values.file ?? (await embeddedBasemap((message) => console.log(message))).file;
  const bytes = new Uint8Array(readFileSync(file));
  const summary = await readArchiveSummary(bytes).catch((err: Error) =>
    fail(
      `${file} is no archive the pages can draw (${err.message}): give a PMTiles v3 archive of vector tiles`,
    ),
  );
  console.log(`${file}: ${summary}`);
  const key = values.key ?? EMBEDDED_BASEMAP_KEY;
  const remote = values.remote ?? false;
  const target = await openTarget({ remote });
  try {
    console.log(`writing ${(bytes.length / 1024 / 1024).toFixed(1)} MiB to ${key}…`);
    await target.putObject(key, bytes, "application/vnd.pmtiles");
    console.log(
      `loaded into the ${remote ? "deployed bucket" : "local state"}; set MAP_PMTILES_KEY = "${key}" for the worker`,
    );
  } finally {
    await target.close();
  }
}

runCommand(main);
