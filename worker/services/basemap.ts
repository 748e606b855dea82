import type { MapContext } from "../domain/map/layers";
import { readStreetTile, type StreetFeature, streetTiles } from "../domain/map/streets";
import type { TileAddress } from "../domain/map/tileAddress";
import type { Frame } from "../domain/map/view";
import { ApiError } from "../lib/errors";
import { ArchiveMissing, basemapArchive, forgetBasemapArchive } from "../store/basemapArchive";

/**
 * The operator's vector basemap (MAP_PMTILES_KEY, a PMTiles archive in the ELEVATION bucket): its
 * TileJSON and its tiles for the pages' MapLibre map. The archive's own metadata names its data
 * (Protomaps' extracts: OpenStreetMap), and that is the attribution the map shows.
 */

export interface BasemapConfig {
  bucket: R2Bucket;
  key: string;
}

/** The configured archive, or none (MAP_PMTILES_KEY unset or empty). */
export function basemapConfig(env: {
  ELEVATION: R2Bucket;
  MAP_PMTILES_KEY?: string;
}): BasemapConfig | undefined {
  const key = env.MAP_PMTILES_KEY?.trim();
  return key ? { bucket: env.ELEVATION, key } : undefined;
}

function required(config: BasemapConfig | undefined): BasemapConfig {
  if (!config) throw new ApiError(404, "No vector basemap is configured here (MAP_PMTILES_KEY is unset)");
  return config;
}

/**
 * Reads through the archive. A missing object, or one that is no PMTiles archive, is a 404 that
 * names the key to load; the isolate's reader, whose cache keeps a failed header read, is dropped.
 */
async function reading<T>(config: BasemapConfig, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    forgetBasemapArchive(config.key);
    const load = "load one with npm run basemap:load (docs/deployment.md)";
    if (err instanceof ArchiveMissing)
      throw new ApiError(404, `The basemap archive ${config.key} is not loaded: ${load}`);
    throw new ApiError(
      404,
      `The basemap archive ${config.key} is not a readable PMTiles archive (${err instanceof Error ? err.message : String(err)}): ${load}`,
    );
  }
}

type BasemapEnv = Parameters<typeof basemapConfig>[0];

/** TileJSON 3.0.0 for MapLibre, its tiles under `tilesBase`. */
export async function basemapTileJson(env: BasemapEnv, tilesBase: string): Promise<unknown> {
  const found = required(basemapConfig(env));
  return reading(found, () => basemapArchive(found.bucket, found.key).getTileJson(tilesBase));
}

/** The tile's MVT bytes (uncompressed), or undefined where the archive has none. */
export async function basemapTile(
  env: BasemapEnv,
  { z, x, y }: TileAddress,
): Promise<ArrayBuffer | undefined> {
  const found = required(basemapConfig(env));
  const tile = await reading(found, () => basemapArchive(found.bucket, found.key).getZxy(z, x, y));
  return tile?.data;
}

/** Decoded tiles of the last frames drawn, per isolate (the archive changes only with a load). */
const RECENT_TILES = 64;
const recentTiles = new Map<string, StreetFeature[]>();

/**
 * Roads, water, places and their names under a map's frame, from the configured archive, for the
 * server-drawn SVG; none without an archive, and none (logged) when it cannot be read: the map
 * then shows the ground alone rather than failing.
 */
export async function mapStreets(env: BasemapEnv, frame: Frame): Promise<MapContext["streets"]> {
  const config = basemapConfig(env);
  if (!config) return undefined;
  try {
    const archive = basemapArchive(config.bucket, config.key);
    const [header, metadata] = await Promise.all([archive.getHeader(), archive.getMetadata()]);
    const refs = streetTiles(frame, header.minZoom, header.maxZoom);
    const tiles = await Promise.all(
      refs.map(async (ref) => {
        const key = `${config.key}/${ref.z}/${ref.x}/${ref.y}`;
        const cached = recentTiles.get(key);
        if (cached) return cached;
        const tile = await archive.getZxy(ref.z, ref.x, ref.y);
        const features = tile ? readStreetTile(ref, tile.data) : [];
        recentTiles.set(key, features);
        if (recentTiles.size > RECENT_TILES) recentTiles.delete(recentTiles.keys().next().value!);
        return features;
      }),
    );
    const attribution = (metadata as { attribution?: string } | undefined)?.attribution ?? "";
    return { features: tiles.flat(), attribution: attribution.replace(/<[^>]*>/g, "") };
  } catch (err) {
    forgetBasemapArchive(config.key);
    console.warn(JSON.stringify({ level: "warn", message: "map streets not drawn", error: String(err) }));
    return undefined;
  }
}
