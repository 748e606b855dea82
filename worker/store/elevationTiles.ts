import { type Chunk, decodeChunk } from "../domain/elevation/chunk";
import { Coverage, emptyManifest, type Manifest } from "../domain/elevation/coverage";
import { MANIFEST_KEY } from "../domain/elevation/grid";
import type { ChunkLoader } from "../domain/elevation/sampling";

/** How long an isolate serves its manifest before checking R2 for a newer one (in the background). */
const MANIFEST_TTL_MS = 60_000;
/** Decoded chunks kept per isolate: well inside the isolate's 128 MB, ~400 chunks of 1″ or 3″. */
const CHUNK_CACHE_BYTES = 48 * 1024 * 1024;

interface CachedManifest {
  coverage: Coverage;
  etag: string | undefined;
  checkedAt: number;
  refreshing?: Promise<void>;
}

let manifest: CachedManifest | undefined;

/**
 * The coverage manifest, read once per isolate and rechecked every minute without making a
 * request wait: a warm request does not touch R2. Only values are shared between requests, never
 * a pending read: the Workers runtime cancels a request that waits on another request's I/O.
 */
export async function coverage(
  bucket: R2Bucket,
  waitUntil: (p: Promise<unknown>) => void,
): Promise<Coverage> {
  if (!manifest) {
    manifest = await readManifest(bucket, undefined);
    return manifest.coverage;
  }
  const current = manifest;
  if (Date.now() - current.checkedAt > MANIFEST_TTL_MS && !current.refreshing) {
    current.refreshing = readManifest(bucket, current).then(
      (next) => {
        manifest = next;
      },
      (err) => {
        current.refreshing = undefined;
        console.error(
          JSON.stringify({
            level: "error",
            message: "elevation manifest refresh failed",
            error: String(err),
          }),
        );
      },
    );
    waitUntil(current.refreshing);
  }
  return current.coverage;
}

async function readManifest(bucket: R2Bucket, previous: CachedManifest | undefined): Promise<CachedManifest> {
  const checkedAt = Date.now();
  const object = await bucket.get(
    MANIFEST_KEY,
    previous?.etag ? { onlyIf: { etagDoesNotMatch: previous.etag } } : undefined,
  );
  if (!object) return { coverage: new Coverage(emptyManifest()), etag: undefined, checkedAt };
  if (!("body" in object)) return { coverage: previous!.coverage, etag: previous!.etag, checkedAt };
  const parsed = (await object.json()) as Manifest;
  return { coverage: new Coverage(parsed), etag: object.etag, checkedAt };
}

/** Decoded chunks by R2 key, least recently used first; null marks a key R2 does not hold. */
const chunks = new Map<string, Chunk | null>();
let cachedBytes = 0;

/** Reads chunks through the isolate cache (a chunk missing from it is read by this request). */
export function chunkLoader(bucket: R2Bucket): ChunkLoader {
  return (refs) => Promise.all(refs.map(({ tile, chunk }) => loadChunk(bucket, tile.chunkKey(chunk))));
}

async function loadChunk(bucket: R2Bucket, key: string): Promise<Chunk | null> {
  const cached = chunks.get(key);
  if (cached !== undefined) {
    chunks.delete(key);
    chunks.set(key, cached);
    return cached;
  }
  const object = await bucket.get(key);
  const chunk = object ? decodeChunk(new Uint8Array(await object.arrayBuffer())) : null;
  if (!chunks.has(key)) remember(key, chunk);
  return chunk;
}

function remember(key: string, chunk: Chunk | null): void {
  chunks.set(key, chunk);
  cachedBytes += chunk?.values.byteLength ?? 0;
  for (const [oldKey, old] of chunks) {
    if (cachedBytes <= CHUNK_CACHE_BYTES) break;
    chunks.delete(oldKey);
    cachedBytes -= old?.values.byteLength ?? 0;
  }
}
