import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { inflateRawSync } from "node:zlib";
import { writeArrayBuffer } from "geotiff";
import { parseCommandLine } from "../lib/cli";
import { ROOT } from "../lib/config";

const HELP = `Derives the committed elevation samples in data/elevation/ from Debian packages
(run by a maintainer, once; a clone uses the committed files).

Usage: npx tsx tools/elevation/deriveSamples.ts [--matplotlib-data DIR] [--terra DIR]

  --matplotlib-data  mpl-data dir of python-matplotlib-data (default /usr/share/matplotlib/mpl-data)
  --terra            terra package dir of r-cran-terra (default /usr/lib/R/site-library/terra)

Writes data/elevation/jacksboro-fault-3s.tif (from sample_data/jacksboro_fault_dem.npz) and
data/elevation/luxembourg-elev-30s.tif (a copy of ex/elev.tif).`;

const OUT = path.join(ROOT, "data/elevation");

function main() {
  const { values } = parseCommandLine({
    help: HELP,
    options: {
      "matplotlib-data": { type: "string", default: "/usr/share/matplotlib/mpl-data" },
      terra: { type: "string", default: "/usr/lib/R/site-library/terra" },
    },
  });
  const mpl = values["matplotlib-data"];
  const terra = values.terra;
  mkdirSync(OUT, { recursive: true });

  const npz = readZip(readFileSync(path.join(mpl, "sample_data/jacksboro_fault_dem.npz")));
  const elevation = readNpy(npz.get("elevation.npy")!);
  const [rows, cols] = elevation.shape as [number, number];
  const scalar = (name: string) => readNpy(npz.get(`${name}.npy`)!).values[0]!;
  const step = scalar("dx");
  // The archive's "ymax" is the north edge and its "ymin" lies one grid height north of that
  // (the sign was flipped): Cross Mountain's summit (36.19833 N, 1077 m) is the grid maximum
  // only when row 0 starts at "ymax". The bounds are cell edges (xmax - xmin = 403 cells).
  const north = scalar("ymax");
  // geotiff's writer has no int16 path: hand it the same 16 bits unsigned, tagged as signed.
  const tiff = writeArrayBuffer(
    Uint16Array.from(elevation.values, (v) => v & 0xffff),
    {
      width: cols,
      height: rows,
      SampleFormat: [2],
      ModelPixelScale: [step, scalar("dy"), 0],
      ModelTiepoint: [0, 0, 0, scalar("xmin"), north, 0],
      GTModelTypeGeoKey: 2,
      GTRasterTypeGeoKey: 1,
      GeographicTypeGeoKey: 4326,
    },
  );
  writeFileSync(path.join(OUT, "jacksboro-fault-3s.tif"), new Uint8Array(tiff));
  console.log(`jacksboro-fault-3s.tif: ${cols}×${rows} at ${(step * 3600).toFixed(3)}″, north edge ${north}`);

  copyFileSync(path.join(terra, "ex/elev.tif"), path.join(OUT, "luxembourg-elev-30s.tif"));
  console.log("luxembourg-elev-30s.tif: copied from r-cran-terra ex/elev.tif");
}

/** Entries of a zip archive (stored or deflated), by name, read through its central directory. */
function readZip(bytes: Buffer): Map<string, Buffer> {
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error("not a zip archive");
  const entries = new Map<string, Buffer>();
  let at = bytes.readUInt32LE(end + 16);
  for (let i = 0; i < bytes.readUInt16LE(end + 10); i++) {
    const method = bytes.readUInt16LE(at + 10);
    const size = bytes.readUInt32LE(at + 20);
    const nameLength = bytes.readUInt16LE(at + 28);
    const name = bytes.toString("utf8", at + 46, at + 46 + nameLength);
    const local = bytes.readUInt32LE(at + 42);
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const data = bytes.subarray(start, start + size);
    entries.set(name, method === 0 ? data : inflateRawSync(data));
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return entries;
}

/** A little-endian int16 or float64 NumPy array (.npy, C order). */
function readNpy(bytes: Buffer): { shape: number[]; values: number[] } {
  const headerLength = bytes.readUInt16LE(8);
  const header = bytes.toString("latin1", 10, 10 + headerLength);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? "")
    .split(",")
    .filter((s) => s.trim() !== "")
    .map(Number);
  if (/'fortran_order':\s*True/.test(header)) throw new Error("Fortran-ordered arrays are not read");
  const data = bytes.subarray(10 + headerLength);
  const count = shape.reduce((a, b) => a * b, 1);
  if (descr === "<i2")
    return { shape, values: Array.from({ length: count }, (_, i) => data.readInt16LE(i * 2)) };
  if (descr === "<f8")
    return { shape, values: Array.from({ length: count }, (_, i) => data.readDoubleLE(i * 8)) };
  throw new Error(`unsupported dtype ${descr}`);
}

main();
