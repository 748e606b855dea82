import { readFile } from "node:fs/promises";
import path from "node:path";
import { fromFile } from "geotiff";
import { ARCSEC_PER_DEGREE, NODATA, parseTileName } from "../../worker/domain/elevation/grid";

/**
 * A raster of elevation samples in geographic coordinates (WGS84), described by where its
 * samples are: the centre of sample (row 0, column 0) and the signed step per row and column.
 */
export interface SourceRaster {
  name: string;
  width: number;
  height: number;
  lat0: number;
  lng0: number;
  dLat: number;
  dLng: number;
  /** The value that marks a void, if the format has one (NaN always does). */
  nodata: number | undefined;
  /** Samples of a window, row-major. */
  read(row0: number, col0: number, rows: number, cols: number): Promise<ArrayLike<number>>;
}

export async function openSource(file: string): Promise<SourceRaster> {
  const ext = path.extname(file).toLowerCase();
  if (ext === ".hgt") return openHgt(file);
  if (ext === ".tif" || ext === ".tiff") return openGeoTiff(file);
  throw new Error(`${file}: unknown format; give SRTM .hgt or GeoTIFF (.tif, .tiff) files`);
}

/**
 * SRTM `.hgt`: a square of big-endian int16, rows north to south, its south-west corner in its
 * name; 3601² samples at 1″ (SRTMGL1) or 1201² at 3″ (SRTM3), edges shared with neighbours.
 */
async function openHgt(file: string): Promise<SourceRaster> {
  const name = path.basename(file);
  const corner = parseTileName(name.slice(0, 7));
  if (!corner || !/^.{7}\.hgt$/i.test(name)) {
    throw new Error(`${file}: an .hgt file is named for its south-west corner, like N57E011.hgt`);
  }
  const bytes = await readFile(file);
  const side = Math.round(Math.sqrt(bytes.byteLength / 2));
  if (side * side * 2 !== bytes.byteLength || side < 2 || ARCSEC_PER_DEGREE % (side - 1) !== 0) {
    throw new Error(
      `${file}: ${bytes.byteLength} bytes is not a square .hgt grid (3601² for 1″ or 1201² for 3″)`,
    );
  }
  const values = new Int16Array(side * side);
  for (let i = 0; i < values.length; i++) values[i] = bytes.readInt16BE(i * 2);
  return {
    name,
    width: side,
    height: side,
    lat0: corner.lat + 1,
    lng0: corner.lng,
    dLat: -1 / (side - 1),
    dLng: 1 / (side - 1),
    nodata: NODATA,
    read: async (row0, col0, rows, cols) => window(values, side, row0, col0, rows, cols),
  };
}

const PIXEL_IS_POINT = 2;
const GEOGRAPHIC = 2;
const WGS84 = 4326;
const USER_DEFINED = 32767;

/** GeoTIFF in geographic WGS84 coordinates, first band; pixel-is-area or pixel-is-point. */
async function openGeoTiff(file: string): Promise<SourceRaster> {
  const tiff = await fromFile(file);
  const image = await tiff.getImage();
  const keys = (image.getGeoKeys() ?? {}) as Record<string, unknown>;
  if (keys.GTModelTypeGeoKey !== undefined && keys.GTModelTypeGeoKey !== GEOGRAPHIC) {
    throw new Error(
      `${file}: projected GeoTIFF; reproject it to geographic WGS84 first (gdalwarp -t_srs EPSG:4326)`,
    );
  }
  const crs = keys.GeographicTypeGeoKey;
  if (crs !== undefined && crs !== WGS84 && crs !== USER_DEFINED) {
    throw new Error(`${file}: datum EPSG:${crs}; reproject it to WGS84 first (gdalwarp -t_srs EPSG:4326)`);
  }
  const transform = image.fileDirectory.getValue("ModelTransformation") as number[] | undefined;
  if (transform && (transform[1] !== 0 || transform[4] !== 0)) {
    throw new Error(`${file}: a rotated grid; warp it to a north-up grid first`);
  }
  const [originLng, originLat] = image.getOrigin() as [number, number];
  const [resLng, resLat] = image.getResolution() as [number, number];
  // Pixel-is-area (the default) places the origin on the corner of the first sample, not its centre.
  const centre = keys.GTRasterTypeGeoKey === PIXEL_IS_POINT ? 0 : 0.5;
  const width = image.getWidth();
  return {
    name: path.basename(file),
    width,
    height: image.getHeight(),
    lat0: originLat + centre * resLat,
    lng0: originLng + centre * resLng,
    dLat: resLat,
    dLng: resLng,
    nodata: image.getGDALNoData() ?? undefined,
    read: async (row0, col0, rows, cols) => {
      const bands = await image.readRasters({ window: [col0, row0, col0 + cols, row0 + rows], samples: [0] });
      return bands[0] as ArrayLike<number>;
    },
  };
}

function window(values: Int16Array, width: number, row0: number, col0: number, rows: number, cols: number) {
  const out = new Int16Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const from = (row0 + r) * width + col0;
    out.set(values.subarray(from, from + cols), r * cols);
  }
  return out;
}
