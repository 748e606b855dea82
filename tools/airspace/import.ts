import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fail, parseCommandLine, runCommand, usageError } from "../lib/cli";
import type { GeoJsonOptions } from "./formats/geojson";
import { FORMAT_NAMES } from "./formats/names";

const FORMAT_LIST = Object.entries(FORMAT_NAMES);

const HELP = `Loads airspace data into the local state (or with --remote the deployed D1 database).

Usage: npm run airspace:import -- <format> <file> [options]

Formats:
${FORMAT_LIST.map(([name, summary]) => `  ${name.padEnd(20)} ${summary}`).join("\n")}

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

const OPTIONS = {
  dataset: { type: "string" },
  remote: { type: "boolean" },
  type: { type: "string" },
  "type-field": { type: "string" },
  map: { type: "string" },
  "name-field": { type: "string" },
  "start-field": { type: "string" },
  "end-field": { type: "string" },
} as const;

async function main() {
  const { values, positionals } = parseCommandLine({ help: HELP, options: OPTIONS, positionals: true });
  if (positionals.length === 0) return console.log(HELP);
  const [formatName, file, extra] = positionals;
  if (!(formatName! in FORMAT_NAMES))
    usageError(`unknown format "${formatName}": use one of ${FORMAT_LIST.map(([name]) => name).join(", ")}`);
  if (!file) usageError(`give the file to load: npm run airspace:import -- ${formatName} <file>`);
  if (extra !== undefined) usageError(`unexpected argument "${extra}": load one file at a time`);
  const map = geoJsonMap(values.map);
  const [
    { FORMATS },
    { openMigratedLocalTarget, openTarget },
    { datasetBox, loadDataset, loadedJurisdictions, placeRecords },
  ] = await Promise.all([import("./formats"), import("../lib/target"), import("./dataset")]);
  const format = FORMATS.find((f) => f.name === formatName)!;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    fail(`cannot read ${file}: ${(err as Error).message}`);
  }
  const remote = values.remote ?? false;
  const dataset = values.dataset ?? `${format.name}-${path.basename(file).replace(/\.[^.]+$/, "")}`;
  const log = (message: string) => console.log(`[airspace] ${message}`);

  log(`reading ${file} as ${format.name}`);
  let parsed: ReturnType<typeof format.parse>;
  try {
    const options: GeoJsonOptions = {
      type: values.type,
      typeField: values["type-field"],
      nameField: values["name-field"],
      startField: values["start-field"],
      endField: values["end-field"],
      map,
    };
    parsed = format.parse(text, options);
  } catch (err) {
    fail(`${file}: ${(err as Error).message}`);
  }
  const cells = parsed.facilityMaps.reduce((n, m) => n + m.cells.length, 0);
  log(`${parsed.features.length} features, ${parsed.facilityMaps.length} facility maps (${cells} cells)`);
  for (const [reason, n] of parsed.skipped) log(`skipped ${n}: ${reason}`);
  if (parsed.features.length === 0 && cells === 0) fail("nothing to load");

  const target = remote ? await openTarget({ remote }) : await openMigratedLocalTarget(log);
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
        origin: `file ${path.basename(file)} (npm run airspace:import)`,
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

/** `--map jail=prison,clinic=hospital` as an object; a malformed pair is a usage error. */
function geoJsonMap(map: string | undefined): Record<string, string> | undefined {
  if (map === undefined) return undefined;
  return Object.fromEntries(
    map.split(",").map((pair) => {
      const [value, type] = pair.split("=");
      if (!value || !type) usageError(`--map takes value=type pairs, not "${pair}"`);
      return [value.trim(), type.trim()];
    }),
  );
}

runCommand(main);
