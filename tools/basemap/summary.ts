import { PMTiles, type RangeResponse, type Source } from "pmtiles";

/** A PMTiles archive held in memory, for `pmtiles` to read (its FileSource is the browser's). */
export class BytesSource implements Source {
  constructor(
    private readonly bytes: Uint8Array,
    private readonly name = "archive",
  ) {}

  getKey(): string {
    return this.name;
  }

  async getBytes(offset: number, length: number): Promise<RangeResponse> {
    // A copy: a Buffer's subarray shares its pool's ArrayBuffer.
    const part = this.bytes.subarray(offset, offset + length);
    const data = new Uint8Array(part.length);
    data.set(part);
    return { data: data.buffer };
  }
}

/** One line about an archive, read as the worker reads it; throws when it is not a vector PMTiles v3. */
export async function readArchiveSummary(bytes: Uint8Array): Promise<string> {
  const archive = new PMTiles(new BytesSource(bytes));
  const header = await archive.getHeader();
  if (header.tileType !== 1)
    throw new Error("not an archive of vector tiles (MVT): the pages' map draws those");
  const metadata = (await archive.getMetadata()) as { attribution?: string };
  if (!metadata.attribution)
    throw new Error("the archive's metadata names no attribution: the map must show its data's");
  return `PMTiles v${header.specVersion}, zooms ${header.minZoom}–${header.maxZoom}, ${header.numAddressedTiles} tiles, attribution: ${metadata.attribution.replace(/<[^>]+>/g, "")}`;
}
