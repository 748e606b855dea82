import { EtagMismatch, PMTiles, type RangeResponse, type Source } from "pmtiles";

/**
 * The operator's PMTiles archive in R2, read by npm `pmtiles` through range reads: the header and
 * root directory in one 16 KiB read, then a leaf directory or a tile at a time, never the whole
 * object. Directories are cached per isolate by the library, keyed by the object's ETag: a replaced
 * archive fails the reads' `etagMatches` condition, and the library reads the new header.
 */

/** The archive's object is not in the bucket. */
export class ArchiveMissing extends Error {}

class R2RangeSource implements Source {
  constructor(
    private readonly bucket: R2Bucket,
    private readonly key: string,
  ) {}

  getKey(): string {
    return `r2:${this.key}`;
  }

  async getBytes(
    offset: number,
    length: number,
    _signal?: AbortSignal,
    etag?: string,
  ): Promise<RangeResponse> {
    const object = await this.bucket.get(this.key, {
      range: { offset, length },
      onlyIf: etag ? { etagMatches: etag } : undefined,
    });
    if (!object) throw new ArchiveMissing(`no object ${this.key}`);
    // A failed condition answers the object's metadata without a body: the archive was replaced.
    if (!("body" in object)) throw new EtagMismatch(`${this.key} changed`);
    return { data: await object.arrayBuffer(), etag: object.etag };
  }
}

const archives = new Map<string, PMTiles>();

/** The archive at `key`, one reader per isolate (its directory cache is worth keeping). */
export function basemapArchive(bucket: R2Bucket, key: string): PMTiles {
  let archive = archives.get(key);
  if (!archive) {
    archive = new PMTiles(new R2RangeSource(bucket, key));
    archives.set(key, archive);
  }
  return archive;
}

/** Drops the isolate's reader, whose cache keeps a failed first read. */
export function forgetBasemapArchive(key: string): void {
  archives.delete(key);
}
