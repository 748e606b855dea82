import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fail, parseArgs } from "../lib/config";
import { applyMigrations, openTarget } from "../lib/target";
import { datasetBox, loadDataset, loadedJurisdictions, placeRecords } from "./dataset";
import { FORMATS } from "./formats";
import type { GeoJsonOptions } from "./formats/geojson";

const HELP = `Loads airspace data into the local state (or with --remote the deployed D1 database).

Usage: npm run airspace:import -- <format> <file> [options]

Formats:
${FORMATS.map((f) => `  ${f.name.padEnd(20)} ${f.summary}`).join("\n")}

Options:
  --dataset <name>      load under this name (default: <format>-<file name>); loading a dataset
                        again replaces what it loaded before
  --remote              write to the deployed database (run the D1 migrations there first)
  --help                this text
geojson only:
  --type <type>         give every feature this airspace type
  --type-field <prop>   take the type from this property, through --map
  --map <v=type,...>    values of that property to airspace types, e.g. jail=prison,clinic=hospital
  --name-field <prop>   the property that names a feature (default: name)
  --start-field <prop>, --end-field <prop>
                        properties with the start and end of time-bound features

Examples:
  npm run airspace:import -- faa-facility-map FAA_UAS_FacilityMap_Data.geojson
  npm run airspace:import -- geojson fires.geojson --type wildfire --name-field poly_IncidentName`;

async function main() {
  const { flags, positionals } = parseArgs(process.argv.slice(2));
  if (flags.has("help") || positionals.length === 0) {
    console.log(HELP);
    return;
  }
  const [formatName, file] = positionals;
  const format = FORMATS.find((f) => f.name === formatName);
  if (!format) fail(`unknown format "${formatName}"; use one of ${FORMATS.map((f) => f.name).join(", ")}`);
  if (!file) fail(`give the file to load: npm run airspace:import -- ${format.name} <file>`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    fail(`cannot read ${file}: ${(err as Error).message}`);
  }
  const remote = flags.has("remote");
  const dataset = String(
    flags.get("dataset") ?? `${format.name}-${path.basename(file).replace(/\.[^.]+$/, "")}`,
  );
  const log = (message: string) => console.log(`[airspace] ${message}`);

  log(`reading ${file} as ${format.name}`);
  let parsed: ReturnType<typeof format.parse>;
  try {
    parsed = format.parse(text, geoJsonOptions(flags));
  } catch (err) {
    fail(`${file}: ${(err as Error).message}`);
  }
  const cells = parsed.facilityMaps.reduce((n, m) => n + m.cells.length, 0);
  log(`${parsed.features.length} features, ${parsed.facilityMaps.length} facility maps (${cells} cells)`);
  for (const [reason, n] of parsed.skipped) log(`skipped ${n}: ${reason}`);
  if (parsed.features.length === 0 && cells === 0) fail("nothing to load");

  if (!remote) {
    log("applying local D1 migrations");
    await applyMigrations({ remote: false });
  }
  const target = await openTarget({ remote });
  try {
    if (parsed.features.length > 0) {
      placeRecords(parsed.features, await loadedJurisdictions(target, datasetBox(parsed)));
    }
    await loadDataset(
      target,
      {
        name: dataset,
        format: format.name,
        version: createHash("sha256").update(text).digest("hex").slice(0, 16),
        features: parsed.features,
        facilityMaps: parsed.facilityMaps,
      },
      log,
    );
  } finally {
    await target.close();
  }
  log(`loaded dataset "${dataset}" into the ${remote ? "deployed" : "local"} database`);
}

function geoJsonOptions(flags: Map<string, string | true>): GeoJsonOptions {
  const text = (name: string) => {
    const value = flags.get(name);
    if (value === true) fail(`--${name} needs a value`);
    return value;
  };
  const map = text("map");
  return {
    type: text("type"),
    typeField: text("type-field"),
    nameField: text("name-field"),
    startField: text("start-field"),
    endField: text("end-field"),
    map: map
      ? Object.fromEntries(
          map.split(",").map((pair) => {
            const [value, type] = pair.split("=");
            if (!value || !type) fail(`--map takes value=type pairs, not "${pair}"`);
            return [value.trim(), type.trim()];
          }),
        )
      : undefined,
  };
}

main().catch((err) => {
  console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
