import {
  type Chunk,
  decodeChunk,
  emptyTile,
  encodeTile,
  type TileGrid,
} from "../../worker/domain/elevation/chunk";
import { Coverage, emptyManifest, type Manifest } from "../../worker/domain/elevation/coverage";
import { chunkKey, MANIFEST_KEY, NODATA, tileCells, tileName } from "../../worker/domain/elevation/grid";
import type { ChunkLoader } from "../../worker/domain/elevation/sampling";

/**
 * Test tiles, built by value function over local sample indices (k northward, m eastward from
 * the tile's south-west corner); null is a void. Test data only: never served by `npm start`.
 */
export function tileOf(
  lat: number,
  lng: number,
  step: number,
  value: (k: number, m: number) => number | null,
) {
  const tile = emptyTile(lat, lng, step);
  const side = tileCells(step) + 1;
  for (let k = 0; k < side; k++) {
    for (let m = 0; m < side; m++) tile.values[k * side + m] = value(k, m) ?? NODATA;
  }
  return tile;
}

/** The R2 objects (chunks and manifest) that hold these tiles, as the importer writes them. */
export async function objectsOf(tiles: TileGrid[]): Promise<Map<string, Uint8Array>> {
  const manifest: Manifest = emptyManifest();
  const objects = new Map<string, Uint8Array>();
  for (const tile of tiles) {
    const name = tileName(tile.lat, tile.lng);
    const encoded = await encodeTile(tile);
    for (const { row, col, bytes } of encoded.chunks)
      objects.set(chunkKey(name, encoded.version, row, col), bytes);
    manifest.tiles[name] = { step: tile.step, version: encoded.version, chunks: encoded.mask };
  }
  objects.set(MANIFEST_KEY, new TextEncoder().encode(JSON.stringify(manifest)));
  return objects;
}

/** Coverage and a counting chunk loader over stored objects, as the worker reads them. */
export function storeOf(objects: Map<string, Uint8Array>) {
  const manifest = JSON.parse(new TextDecoder().decode(objects.get(MANIFEST_KEY)!)) as Manifest;
  const reads: string[] = [];
  const load: ChunkLoader = async (refs) =>
    refs.map(({ tile, chunk }) => {
      const key = tile.chunkKey(chunk);
      reads.push(key);
      const bytes = objects.get(key);
      return bytes ? (decodeChunk(bytes) as Chunk) : null;
    });
  return { coverage: new Coverage(manifest), load, reads };
}
