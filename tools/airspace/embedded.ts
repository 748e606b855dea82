import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Topology } from "topojson-specification";
import { ROOT } from "../lib/config";
import { airportDatabasePath } from "./airportDatabase";
import type { BoundarySources, UkRegions } from "./boundaries";
import { type ParsedPrimitives, parseFaaClassPrimitives } from "./formats/faaClassPrimitives";
import { checkedRulesets, type RulesetsFile } from "./rulesets";

/** The files the embedded default is built from: npm packages and the small files in data/airspace. */

const require = createRequire(import.meta.url);
const RULESETS_FILE = path.join(ROOT, "data/airspace/rulesets.json");
/** The FAA's Class B/C/D (NASR cycle 2026-05-14); its .SOURCE.md says where it came from. */
const FAA_CLASS_PRIMITIVES_FILE = path.join(ROOT, "data/airspace/faa_class_airspace_primitives.json");
const UK_REGIONS_FILE = path.join(ROOT, "data/airspace/uk-regions.geojson");
const US_ATLAS_FILE = require.resolve("us-atlas/counties-10m.json");
const WORLD_ATLAS_FILE = require.resolve("world-atlas/countries-10m.json");

export function readRulesetsFile(): RulesetsFile {
  return checkedRulesets(JSON.parse(readFileSync(RULESETS_FILE, "utf8")) as RulesetsFile);
}

export function readFaaClassPrimitives(): ParsedPrimitives {
  return parseFaaClassPrimitives(readFileSync(FAA_CLASS_PRIMITIVES_FILE, "utf8"));
}

export function readBoundarySources(): BoundarySources {
  const json = <T>(file: string) => JSON.parse(readFileSync(file, "utf8")) as T;
  return {
    usAtlas: json<Topology>(US_ATLAS_FILE),
    worldAtlas: json<Topology>(WORLD_ATLAS_FILE),
    ukRegions: json<UkRegions>(UK_REGIONS_FILE),
  };
}

/** A digest of every input, with the generator's version: equal digests mean nothing to reload. */
export function inputsDigest(generatorVersion: string): string {
  const hash = createHash("sha256").update(generatorVersion);
  for (const file of [
    RULESETS_FILE,
    FAA_CLASS_PRIMITIVES_FILE,
    UK_REGIONS_FILE,
    US_ATLAS_FILE,
    WORLD_ATLAS_FILE,
    airportDatabasePath(),
  ]) {
    hash.update(readFileSync(file));
  }
  return hash.digest("hex").slice(0, 16);
}
