import { toHex } from "../../lib/hash";
import { ARCSEC_PER_DEGREE, chunkCells, chunksPerSide, NODATA, tileCells } from "./grid";

/**
 * A chunk as stored in R2: a 20-byte header that says where it lies, then its samples as int16,
 * little-endian, rows from south to north, each row west to east.
 *   0 magic "WSE1" · 4 step ″ (u16) · 6 rows (u16) · 8 cols (u16) · 10 nodata (i16)
 *   12 latitude of the south row ″ (i32) · 16 longitude of the west column ″ (i32)
 */
export interface Chunk {
  step: number;
  rows: number;
  cols: number;
  nodata: number;
  south: number;
  west: number;
  values: Int16Array;
}

const MAGIC = "WSE1";
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const HEADER_BYTES = 20;

export function encodeChunk(chunk: Chunk): Uint8Array {
  const bytes = new Uint8Array(HEADER_BYTES + chunk.values.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < 4; i++) bytes[i] = MAGIC.charCodeAt(i);
  view.setUint16(4, chunk.step, true);
  view.setUint16(6, chunk.rows, true);
  view.setUint16(8, chunk.cols, true);
  view.setInt16(10, chunk.nodata, true);
  view.setInt32(12, chunk.south, true);
  view.setInt32(16, chunk.west, true);
  for (let i = 0; i < chunk.values.length; i++) view.setInt16(HEADER_BYTES + i * 2, chunk.values[i]!, true);
  return bytes;
}

/** Decodes a stored chunk; throws when the bytes are not one (a storage fault, not a client's). */
export function decodeChunk(bytes: Uint8Array): Chunk {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = String.fromCharCode(...bytes.subarray(0, 4));
  if (bytes.byteLength < HEADER_BYTES || magic !== MAGIC) throw new Error("not an elevation chunk");
  const rows = view.getUint16(6, true);
  const cols = view.getUint16(8, true);
  if (bytes.byteLength !== HEADER_BYTES + rows * cols * 2) throw new Error("truncated elevation chunk");
  let values: Int16Array;
  if (LITTLE_ENDIAN) {
    // The stored order is the machine's: one copy of the bytes instead of a read per sample.
    const start = bytes.byteOffset + HEADER_BYTES;
    values = new Int16Array(bytes.buffer.slice(start, start + rows * cols * 2));
  } else {
    values = new Int16Array(rows * cols);
    for (let i = 0; i < values.length; i++) values[i] = view.getInt16(HEADER_BYTES + i * 2, true);
  }
  return {
    step: view.getUint16(4, true),
    rows,
    cols,
    nodata: view.getInt16(10, true),
    south: view.getInt32(12, true),
    west: view.getInt32(16, true),
    values,
  };
}

/** One 1° tile in memory: (S+1)² samples, rows south to north, NODATA for voids. */
export interface TileGrid {
  /** South-west corner, whole degrees. */
  lat: number;
  lng: number;
  step: number;
  values: Int16Array;
}

export function emptyTile(lat: number, lng: number, step: number): TileGrid {
  const side = tileCells(step) + 1;
  return { lat, lng, step, values: new Int16Array(side * side).fill(NODATA) };
}

/** A tile cut into the chunks that hold data, named by a digest of its content. */
export interface EncodedTile {
  version: string;
  /** Hex bitmask over chunks (index row × chunksPerSide + col): set where a chunk holds data. */
  mask: string;
  chunks: { row: number; col: number; bytes: Uint8Array }[];
  /** Samples with data, of (S+1)². */
  validSamples: number;
}

export async function encodeTile(tile: TileGrid): Promise<EncodedTile> {
  const cells = chunkCells(tile.step);
  const perSide = chunksPerSide(tile.step);
  const side = tileCells(tile.step) + 1;
  const maskBytes = new Uint8Array(Math.ceil((perSide * perSide) / 8));
  const chunks: EncodedTile["chunks"] = [];
  for (let row = 0; row < perSide; row++) {
    for (let col = 0; col < perSide; col++) {
      const values = new Int16Array((cells + 1) * (cells + 1));
      let hasData = false;
      for (let r = 0; r <= cells; r++) {
        const from = (row * cells + r) * side + col * cells;
        values.set(tile.values.subarray(from, from + cells + 1), r * (cells + 1));
      }
      for (const v of values) if (v !== NODATA) hasData = true;
      if (!hasData) continue;
      const index = row * perSide + col;
      maskBytes[index >> 3]! |= 1 << (index & 7);
      const south = tile.lat * ARCSEC_PER_DEGREE + row * cells * tile.step;
      const west = tile.lng * ARCSEC_PER_DEGREE + col * cells * tile.step;
      const chunk = {
        step: tile.step,
        rows: cells + 1,
        cols: cells + 1,
        nodata: NODATA,
        south,
        west,
        values,
      };
      chunks.push({ row, col, bytes: encodeChunk(chunk) });
    }
  }
  let validSamples = 0;
  for (const v of tile.values) if (v !== NODATA) validSamples++;
  const samples = new Uint8Array(tile.values.buffer, tile.values.byteOffset, tile.values.byteLength);
  const content = new Uint8Array(2 + samples.byteLength);
  new DataView(content.buffer).setUint16(0, tile.step, true);
  content.set(samples, 2);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", content));
  const version = toHex(digest.subarray(0, 8));
  return { version, mask: toHex(maskBytes), chunks, validSamples };
}

/** Whether the mask marks chunk `index` as holding data. */
export function maskHas(mask: string, index: number): boolean {
  const byte = Number.parseInt(mask.slice((index >> 3) * 2, (index >> 3) * 2 + 2), 16);
  return Number.isFinite(byte) && (byte & (1 << (index & 7))) !== 0;
}
