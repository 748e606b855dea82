import { sampleCarpet } from "../domain/elevation/carpet";
import { type Basemap, basemapOrigin, readBasemap } from "../domain/map/basemap";
import type { MapContext } from "../domain/map/layers";
import { terrainPlan } from "../domain/map/terrain";
import type { Frame } from "../domain/map/view";
import { chunkLoader, coverage } from "../store/elevationTiles";

/**
 * The carpets of the last few frames drawn, held in the isolate (the tiles do not change while it
 * lives): a page opened again and again for one area (a flood of one link) samples its ground once.
 * Resolved values only: a request must not wait on a promise another request resolves.
 */
const RECENT_TERRAIN = 16;
const recentTerrain = new Map<string, NonNullable<MapContext["terrain"]>>();

/**
 * The ground under a map's frame from the elevation tiles in R2: the modest carpet terrainPlan
 * asks for, read through the isolate's chunk cache. Undefined where no tile meets the view, or
 * when the view is too wide to sample (the map then shows no ground rather than failing).
 */
export async function mapTerrain(
  bucket: R2Bucket,
  frame: Frame,
  waitUntil: (p: Promise<unknown>) => void,
): Promise<MapContext["terrain"]> {
  const cover = await coverage(bucket, waitUntil);
  const { box } = frame;
  const sourceStep = cover.finestStep(box.minLat, box.minLng, box.maxLat, box.maxLng);
  if (sourceStep === undefined) return undefined;
  const plan = terrainPlan(frame);
  const key = JSON.stringify([plan, sourceStep]);
  const cached = recentTerrain.get(key);
  if (cached) {
    // Most recently used last: the oldest is dropped first.
    recentTerrain.delete(key);
    recentTerrain.set(key, cached);
    return cached;
  }
  try {
    const terrain = { plan, carpet: await sampleCarpet(cover, plan, chunkLoader(bucket)), sourceStep };
    recentTerrain.set(key, terrain);
    if (recentTerrain.size > RECENT_TERRAIN) recentTerrain.delete(recentTerrain.keys().next().value!);
    return terrain;
  } catch (err) {
    console.warn(JSON.stringify({ level: "warn", message: "map terrain not sampled", error: String(err) }));
    return undefined;
  }
}

/** The operator's raster basemap from MAP_RASTER_TILES, or none (a bad setting is logged, not fatal). */
export function mapBasemap(env: {
  MAP_RASTER_TILES?: string;
  MAP_RASTER_ATTRIBUTION?: string;
}): Basemap | undefined {
  const read = readBasemap(env.MAP_RASTER_TILES, env.MAP_RASTER_ATTRIBUTION);
  if (typeof read !== "string") return read;
  console.warn(JSON.stringify({ level: "warn", message: "basemap not drawn", error: read }));
  return undefined;
}

/** The image sources a page with the map allows: its data URLs, and the basemap's tiles. */
export function mapImageSources(basemap: Basemap | undefined): string {
  return basemap ? `data: ${basemapOrigin(basemap)}` : "data:";
}
