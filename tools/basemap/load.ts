import { existsSync, readFileSync } from "node:fs";
import { fail, parseCommandLine, runCommand, usageError } from "../lib/cli";

const HELP = `Loads a PMTiles basemap archive into R2, where the worker reads it with range requests
(GET /maps/v1/basemap.json and /maps/v1/basemap/{z}/{x}/{y}.mvt) for the pages' MapLibre map.

Usage: npm run basemap:load -- [--file x.pmtiles | --osm area.osm.pbf] [--key r2/key.pmtiles] [--remote]

Options:
  --osm      an OpenStreetMap extract (.osm.pbf, e.g. a city from download.geofabrik.de cut with
             \`osmium extract --bbox …\`): built into the embedded basemap (its roads, water, places,
             land use and buildings over its box, zooms 0–12; the pages draw deeper zooms from 12)
             and loaded. Meant for a city or a region: it is read whole into memory
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
    options: {
      file: { type: "string" },
      osm: { type: "string" },
      key: { type: "string" },
      remote: { type: "boolean" },
    },
  });
  if (values.file && values.osm) usageError("give --file (an archive) or --osm (an extract), not both");
  for (const given of [values.file, values.osm])
    if (given && !existsSync(given)) fail(`${given}: no such file`);
  const [{ embeddedBasemap }, { openTarget }, { readArchiveSummary }, { EMBEDDED_BASEMAP_KEY }] =
    await Promise.all([
      import("./embedded"),
      import("../lib/target"),
      import("./summary"),
      import("../lib/config"),
    ]);
  let file = values.file;
  let bytes: Uint8Array;
  if (values.osm) {
    const osm = values.osm;
    const { basemapWithExtract } = await import("./embedded");
    file = osm;
    bytes = (
      await basemapWithExtract(osm, (m) => console.log(m)).catch((err: Error) =>
        fail(`${osm}: ${err.message}`),
      )
    ).archive;
  } else {
    file ??= (await embeddedBasemap((message) => console.log(message))).file;
    bytes = new Uint8Array(readFileSync(file));
  }
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
