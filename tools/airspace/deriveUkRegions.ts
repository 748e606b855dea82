import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { MultiPolygon, Position } from "../../worker/domain/geojson";
import { parseCommandLine, runCommand } from "../lib/cli";
import { ROOT } from "../lib/config";

const HELP = `Derives data/airspace/uk-regions.geojson from QGIS's world map (Natural Earth 4.1 admin-1):
the UK's 232 counties, unitary authorities, council areas and districts, each with its nation.

Usage: npx tsx tools/airspace/deriveUkRegions.ts [--gpkg <path>]
  --gpkg   world_map.gpkg (default /usr/share/qgis/resources/data/world_map.gpkg,
           from Debian's qgis-common: apt-get install qgis-common)`;

const NATIONS: Record<string, string> = {
  ENG: "England",
  SCT: "Scotland",
  WLS: "Wales",
  NIR: "Northern Ireland",
};
const OUTPUT = path.join(ROOT, "data/airspace/uk-regions.geojson");

async function main() {
  const { values } = parseCommandLine({
    help: HELP,
    options: { gpkg: { type: "string", default: "/usr/share/qgis/resources/data/world_map.gpkg" } },
  });
  const gpkg = values.gpkg;
  const { default: initSqlJs } = await import("sql.js");
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(gpkg));
  const [result] = db.exec(
    "SELECT fid, name, fips, gu_a3, geom FROM states_provinces WHERE adm0_a3 = 'GBR' ORDER BY fid",
  );
  const features = (result?.values ?? []).map(([fid, name, fips, nation, geom]) => ({
    type: "Feature",
    properties: { fid, name, code: fips, nation: NATIONS[String(nation)] ?? String(nation) },
    geometry: gpkgGeometry(geom as Uint8Array),
  }));
  const collection = {
    type: "FeatureCollection",
    attribution:
      "Natural Earth 4.1 admin-1 states and provinces (public domain), as generalised in QGIS's world_map.gpkg",
    features,
  };
  writeFileSync(OUTPUT, `${JSON.stringify(collection)}\n`);
  console.log(`wrote ${features.length} regions to ${path.relative(ROOT, OUTPUT)}`);
}

/** A GeoPackage geometry blob: the `GP` header with its optional envelope, then ISO WKB. */
function gpkgGeometry(blob: Uint8Array): MultiPolygon {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  if (blob[0] !== 0x47 || blob[1] !== 0x50) throw new Error("not a GeoPackage geometry");
  const flags = blob[3]!;
  const envelopeBytes = [0, 32, 48, 48, 64][(flags >> 1) & 0x07] ?? 0;
  let offset = 8 + envelopeBytes;
  const readWkb = (): Position[][][] => {
    const little = view.getUint8(offset) === 1;
    const type = view.getUint32(offset + 1, little) % 1000;
    offset += 5;
    const u32 = () => {
      const v = view.getUint32(offset, little);
      offset += 4;
      return v;
    };
    const f64 = () => {
      const v = view.getFloat64(offset, little);
      offset += 8;
      return v;
    };
    const polygon = (): Position[][] =>
      Array.from({ length: u32() }, () =>
        Array.from({ length: u32() }, (): Position => [round5(f64()), round5(f64())]),
      );
    if (type === 3) return [polygon()];
    if (type === 6) return Array.from({ length: u32() }, () => readWkb()[0]!);
    throw new Error(`unexpected WKB geometry type ${type}`);
  };
  return { type: "MultiPolygon", coordinates: readWkb() };
}

const round5 = (n: number) => Math.round(n * 1e5) / 1e5;

runCommand(main);
