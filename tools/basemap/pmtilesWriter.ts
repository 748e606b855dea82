import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { zxyToTileId } from "pmtiles";

/**
 * A PMTiles v3 archive writer (https://github.com/protomaps/PMTiles/blob/main/spec/v3/spec.md): the
 * npm `pmtiles` package only reads. Tiles are gzipped MVT, ordered by tile id (clustered), identical
 * tiles stored once, consecutive identical tiles as one run; the root directory, the metadata and
 * any leaf directories gzipped. Read back by `pmtiles` in the tests.
 */

export interface ArchiveTile {
  z: number;
  x: number;
  y: number;
  /** The uncompressed MVT bytes. */
  data: Uint8Array;
}

export interface ArchiveOptions {
  /** The TileJSON-like metadata: `vector_layers`, `attribution`, `name`, …. */
  metadata: Record<string, unknown>;
  /** West, south, east, north in degrees. */
  bounds: [number, number, number, number];
  center: [number, number, number];
}

interface Entry {
  tileId: number;
  offset: number;
  length: number;
  runLength: number;
}

const HEADER_BYTES = 127;
/** The header and the root directory must fit in the first 16 KiB (the spec's first read). */
const FIRST_READ = 16_384;
const GZIP = 2;
const MVT = 1;

export function writeArchive(tiles: ArchiveTile[], options: ArchiveOptions): Uint8Array {
  if (tiles.length === 0) throw new Error("an archive needs at least one tile");
  const sorted = tiles
    .map((t) => ({ tileId: zxyToTileId(t.z, t.x, t.y), tile: t }))
    .sort((a, b) => a.tileId - b.tileId);
  const blobs: Buffer[] = [];
  const byDigest = new Map<string, { offset: number; length: number }>();
  const entries: Entry[] = [];
  let dataLength = 0;
  for (const { tileId, tile } of sorted) {
    const digest = createHash("sha256").update(tile.data).digest("hex");
    let stored = byDigest.get(digest);
    if (!stored) {
      const blob = gzipSync(tile.data, { level: 9 });
      stored = { offset: dataLength, length: blob.length };
      byDigest.set(digest, stored);
      blobs.push(blob);
      dataLength += blob.length;
    }
    const last = entries.at(-1);
    if (last && last.offset === stored.offset && last.tileId + last.runLength === tileId) last.runLength++;
    else entries.push({ tileId, offset: stored.offset, length: stored.length, runLength: 1 });
  }

  const { root, leaves } = directories(entries);
  const metadata = gzipSync(JSON.stringify(options.metadata));
  const rootOffset = HEADER_BYTES;
  const metadataOffset = rootOffset + root.length;
  const leavesOffset = metadataOffset + metadata.length;
  const dataOffset = leavesOffset + leaves.length;
  const zooms = tiles.map((t) => t.z);

  const header = Buffer.alloc(HEADER_BYTES);
  header.write("PMTiles", 0, "ascii");
  header.writeUInt8(3, 7);
  const u64 = (at: number, value: number) => header.writeBigUInt64LE(BigInt(value), at);
  u64(8, rootOffset);
  u64(16, root.length);
  u64(24, metadataOffset);
  u64(32, metadata.length);
  u64(40, leavesOffset);
  u64(48, leaves.length);
  u64(56, dataOffset);
  u64(64, dataLength);
  u64(72, tiles.length);
  u64(80, entries.length);
  u64(88, blobs.length);
  header.writeUInt8(1, 96); // clustered
  header.writeUInt8(GZIP, 97); // internal compression
  header.writeUInt8(GZIP, 98); // tile compression
  header.writeUInt8(MVT, 99);
  header.writeUInt8(Math.min(...zooms), 100);
  header.writeUInt8(Math.max(...zooms), 101);
  const e7 = (degrees: number) => Math.round(degrees * 1e7);
  const [west, south, east, north] = options.bounds;
  header.writeInt32LE(e7(west), 102);
  header.writeInt32LE(e7(south), 106);
  header.writeInt32LE(e7(east), 110);
  header.writeInt32LE(e7(north), 114);
  const [lng, lat, zoom] = options.center;
  header.writeUInt8(zoom, 118);
  header.writeInt32LE(e7(lng), 119);
  header.writeInt32LE(e7(lat), 123);
  return Buffer.concat([header, root, metadata, leaves, ...blobs]);
}

/**
 * The root directory alone when it fits the first read; otherwise leaf directories of a growing
 * number of entries each, the root pointing at them (run length 0).
 */
function directories(entries: Entry[]): { root: Buffer; leaves: Buffer } {
  const root = gzipSync(serializeDirectory(entries));
  if (HEADER_BYTES + root.length <= FIRST_READ) return { root, leaves: Buffer.alloc(0) };
  for (let perLeaf = 4096; ; perLeaf *= 2) {
    const leafBlobs: Buffer[] = [];
    const pointers: Entry[] = [];
    let offset = 0;
    for (let i = 0; i < entries.length; i += perLeaf) {
      const blob = gzipSync(serializeDirectory(entries.slice(i, i + perLeaf)));
      pointers.push({ tileId: entries[i]!.tileId, offset, length: blob.length, runLength: 0 });
      leafBlobs.push(blob);
      offset += blob.length;
    }
    const leafRoot = gzipSync(serializeDirectory(pointers));
    if (HEADER_BYTES + leafRoot.length <= FIRST_READ)
      return { root: leafRoot, leaves: Buffer.concat(leafBlobs) };
  }
}

/** The spec's directory encoding: counts and columns of varints, offsets 0 when contiguous. */
function serializeDirectory(entries: Entry[]): Buffer {
  const bytes: number[] = [];
  const varint = (value: number) => {
    let v = value;
    while (v >= 0x80) {
      bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    bytes.push(v);
  };
  varint(entries.length);
  let lastId = 0;
  for (const e of entries) {
    varint(e.tileId - lastId);
    lastId = e.tileId;
  }
  for (const e of entries) varint(e.runLength);
  for (const e of entries) varint(e.length);
  entries.forEach((e, i) => {
    const previous = entries[i - 1];
    varint(previous && e.offset === previous.offset + previous.length ? 0 : e.offset + 1);
  });
  return Buffer.from(bytes);
}
