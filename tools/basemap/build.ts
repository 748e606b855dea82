import { copyFileSync, writeFileSync } from "node:fs";
import { parseCommandLine, runCommand, usageError, wholeNumber } from "../lib/cli";

const HELP = `Builds the embedded vector basemap: a PMTiles v3 archive of Mapbox Vector Tiles in the
Protomaps basemap layer schema (earth, water, boundaries, pois), from the real data this project
embeds: Natural Earth land, lakes and country borders (npm world-atlas; 1:50m at zooms 0–5 world-wide,
1:10m at zooms 6–10), US states and counties (npm us-atlas) and OurAirports' airports, around
Jacksboro, Gothenburg and Luxembourg. About 1.3 MiB, built in seconds and cached in node_modules/.cache.

Usage: npm run basemap:build -- [--out file.pmtiles] [--world-max-zoom 5] [--max-zoom 10]

Options:
  --out              also copy the archive to this file
  --world-max-zoom   the deepest zoom tiled world-wide (default 5)
  --max-zoom         the deepest zoom tiled around the areas (default 10); with either zoom set,
                     the archive is built afresh into --out (smaller ones for tests), not cached
  --help             show this help

npm start loads it into local R2 by itself; npm run basemap:load puts it (or a Protomaps extract)
into the deployed bucket.`;

async function main() {
  const { values } = parseCommandLine({
    help: HELP,
    options: {
      out: { type: "string" },
      "world-max-zoom": { type: "string" },
      "max-zoom": { type: "string" },
    },
  });
  const worldMaxZoom = wholeNumber("world-max-zoom", values["world-max-zoom"], 0, 8);
  const maxZoom = wholeNumber("max-zoom", values["max-zoom"], 0, 14);
  const started = Date.now();
  if (worldMaxZoom !== undefined || maxZoom !== undefined) {
    if (!values.out) usageError("--world-max-zoom and --max-zoom build into --out: name the file");
    const [{ embeddedAirports }, { buildBasemap }] = await Promise.all([
      import("../airspace/airportDatabase"),
      import("./builder"),
    ]);
    const { archive, tiles } = buildBasemap(await embeddedAirports(), (m) => console.log(m), {
      worldMaxZoom,
      maxZoom,
    });
    writeFileSync(values.out, archive);
    console.log(`${tiles} tiles, ${(archive.length / 1024).toFixed(0)} KiB: ${values.out}`);
    console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return;
  }
  const { embeddedBasemap } = await import("./embedded");
  const built = await embeddedBasemap((message) => console.log(message));
  if (!built.built) console.log(`already built for these inputs: ${built.file}`);
  if (values.out) {
    copyFileSync(built.file, values.out);
    console.log(`copied to ${values.out}`);
  }
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

runCommand(main);
