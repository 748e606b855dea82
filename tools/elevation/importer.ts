import { decodeChunk, emptyTile, encodeTile, type TileGrid } from "../../worker/domain/elevation/chunk";
import { emptyManifest, type Manifest } from "../../worker/domain/elevation/coverage";
import {
  ARCSEC_PER_DEGREE,
  COVERAGE_NORTH,
  COVERAGE_SOUTH,
  chunkKey,
  chunksPerSide,
  isValidStep,
  MANIFEST_KEY,
  NODATA,
  parseTileName,
  snap,
  tileCells,
  tileName,
} from "../../worker/domain/elevation/grid";
import { interpolate } from "../../worker/domain/elevation/sampling";
import type { Target } from "../lib/target";
import { openSource, type SourceRaster } from "./sources";

export interface ImportLog {
  /** A line worth keeping. */
  line(message: string): void;
  /** A passing status (chunk k of n), shown in place on a terminal. */
  progress(message: string): void;
}

export interface ImportReport {
  written: string[];
  unchanged: string[];
  skipped: string[];
}

/**
 * Imports elevation files into the target's bucket: each source is resampled onto the whole
 * arc-second grid at the finest step it supports, merged into 1° tiles (finer data wins; at the
 * same step, new samples win and voids keep what was there), cut into chunks and listed in the
 * manifest. A tile whose content is unchanged is not written again, so re-runs are cheap.
 */
export async function importElevation(
  target: Target,
  files: string[],
  log: ImportLog,
): Promise<ImportReport> {
  const sources: { source: SourceRaster; step: number; tiles: Set<string> }[] = [];
  const report: ImportReport = { written: [], unchanged: [], skipped: [] };
  for (const file of files) {
    const source = await openSource(file);
    const step = targetStep(source);
    const tiles = new Set<string>();
    for (const [lat, lng] of tilesOf(source)) {
      if (lat < COVERAGE_SOUTH || lat >= COVERAGE_NORTH) {
        report.skipped.push(tileName(lat, lng));
        log.line(
          `${source.name}: ${tileName(lat, lng)} lies beyond ${COVERAGE_SOUTH}°..${COVERAGE_NORTH}°; skipped`,
        );
        continue;
      }
      tiles.add(tileName(lat, lng));
    }
    log.line(
      `${source.name}: ${source.width}×${source.height} samples → ${step}″ grid, tiles ${[...tiles].join(" ") || "none"}`,
    );
    sources.push({ source, step, tiles });
  }

  const manifest = await readManifest(target);
  const staged = new Map<string, TileGrid>();
  for (let i = 0; i < sources.length; i++) {
    const { source, step, tiles } = sources[i]!;
    for (const name of tiles) {
      const { lat, lng } = parseTileName(name)!;
      log.progress(`${source.name}: resampling ${name}`);
      stage(staged, await resampleTile(source, lat, lng, step), log);
    }
    // A tile no later file touches is complete: write it now and free its memory.
    const done = [...staged.keys()].filter((name) => !sources.slice(i + 1).some((s) => s.tiles.has(name)));
    const writtenBefore = report.written.length;
    for (const name of done) {
      await writeTile(target, manifest, staged.get(name)!, sourceNames(sources, name), log, report);
      staged.delete(name);
    }
    // Chunks first, then the manifest that points at them: a reader never sees a missing chunk.
    if (report.written.length > writtenBefore) {
      await target.putObject(MANIFEST_KEY, JSON.stringify(manifest), "application/json");
    }
  }
  return report;
}

/** The coarsest whole-arc-second step that does not invent detail finer than the source has. */
export function targetStep(source: Pick<SourceRaster, "name" | "dLat" | "dLng">): number {
  const seconds = Math.max(Math.abs(source.dLat), Math.abs(source.dLng)) * ARCSEC_PER_DEGREE;
  for (let step = 1; step <= ARCSEC_PER_DEGREE; step++) {
    if (isValidStep(step) && step >= seconds * (1 - 1e-6)) return step;
  }
  throw new Error(
    `${source.name}: samples ${seconds.toFixed(1)}″ apart; at most one per degree is supported`,
  );
}

/** The tiles a source reaches into (not merely touches on an edge), as south-west corners. */
export function tilesOf(source: SourceRaster): [number, number][] {
  const lats = [source.lat0, source.lat0 + (source.height - 1) * source.dLat];
  const lngs = [source.lng0, source.lng0 + (source.width - 1) * source.dLng];
  const range = ([a, b]: number[]) => {
    const from = Math.floor(Math.min(a!, b!));
    return [from, Math.max(from, Math.ceil(Math.max(a!, b!)) - 1)] as const;
  };
  const [south, north] = range(lats);
  const [west, east] = range(lngs);
  const tiles: [number, number][] = [];
  for (let lat = Math.max(south, -90); lat <= Math.min(north, 89); lat++) {
    for (let lng = Math.max(west, -180); lng <= Math.min(east, 179); lng++) tiles.push([lat, lng]);
  }
  return tiles;
}

/**
 * One tile of the source on the grid at `step`: samples that fall on source samples are copied,
 * the others interpolated bilinearly between the four around them; voids and the area outside
 * the source stay NODATA.
 */
export async function resampleTile(
  source: SourceRaster,
  lat: number,
  lng: number,
  step: number,
): Promise<TileGrid> {
  const tile = emptyTile(lat, lng, step);
  const cells = tileCells(step);
  const rowAt = (la: number) => snap((la - source.lat0) / source.dLat);
  const colAt = (lo: number) => snap((lo - source.lng0) / source.dLng);
  const span = (a: number, b: number, size: number) => {
    const from = Math.max(0, Math.floor(Math.min(a, b)) - 1);
    const to = Math.min(size - 1, Math.ceil(Math.max(a, b)) + 1);
    return [from, to - from + 1] as const;
  };
  const [row0, rows] = span(rowAt(lat), rowAt(lat + 1), source.height);
  const [col0, cols] = span(colAt(lng), colAt(lng + 1), source.width);
  if (rows <= 0 || cols <= 0) return tile;
  const window = {
    rows,
    cols,
    nodata: source.nodata ?? Number.NaN,
    values: await source.read(row0, col0, rows, cols),
  };
  for (let k = 0; k <= cells; k++) {
    const r = rowAt(lat + k / cells);
    if (r < 0 || r > source.height - 1) continue;
    for (let m = 0; m <= cells; m++) {
      const c = colAt(lng + m / cells);
      if (c < 0 || c > source.width - 1) continue;
      const value = interpolate(window, r - row0, c - col0, "bilinear");
      if (value !== null)
        tile.values[k * (cells + 1) + m] = Math.max(-32767, Math.min(32767, Math.round(value)));
    }
  }
  return tile;
}

/** Combines a resampled tile with what this run already has for it. */
function stage(staged: Map<string, TileGrid>, tile: TileGrid, log: ImportLog): void {
  const name = tileName(tile.lat, tile.lng);
  const earlier = staged.get(name);
  if (!earlier || earlier.step > tile.step) {
    staged.set(name, tile);
  } else if (earlier.step < tile.step) {
    log.line(`${name}: keeping the ${earlier.step}″ data of an earlier file over ${tile.step}″`);
  } else {
    staged.set(name, overlay(earlier, tile));
  }
}

/** `top`'s samples where it has data, `base`'s elsewhere. */
function overlay(base: TileGrid, top: TileGrid): TileGrid {
  const values = Int16Array.from(top.values, (v, i) => (v === NODATA ? base.values[i]! : v));
  return { ...top, values };
}

async function writeTile(
  target: Target,
  manifest: Manifest,
  staged: TileGrid,
  source: string,
  log: ImportLog,
  report: ImportReport,
): Promise<void> {
  const name = tileName(staged.lat, staged.lng);
  const existing = manifest.tiles[name];
  if (existing && existing.step < staged.step) {
    report.skipped.push(name);
    log.line(`${name}: already holds ${existing.step}″ data, finer than ${staged.step}″; kept`);
    return;
  }
  let tile = staged;
  if (existing?.step === staged.step && staged.values.includes(NODATA)) {
    tile = overlay(await readTile(target, name, existing), staged);
  }
  const encoded = await encodeTile(tile);
  if (encoded.validSamples === 0) {
    report.skipped.push(name);
    log.line(`${name}: no samples with data; nothing written`);
    return;
  }
  if (existing?.version === encoded.version) {
    report.unchanged.push(name);
    log.line(`${name}: unchanged (${existing.step}″)`);
    return;
  }
  let written = 0;
  await inParallel(encoded.chunks, target.remote ? 4 : 16, async ({ row, col, bytes }) => {
    await target.putObject(chunkKey(name, encoded.version, row, col), bytes, "application/octet-stream");
    log.progress(`${name}: chunk ${++written}/${encoded.chunks.length}`);
  });
  manifest.tiles[name] = { step: tile.step, version: encoded.version, chunks: encoded.mask, source };
  report.written.push(name);
  const side = tileCells(tile.step) + 1;
  const filled = ((100 * encoded.validSamples) / side ** 2).toFixed(1);
  log.line(
    `${name}: ${encoded.chunks.length} chunks written (${tile.step}″, ${filled}% of samples with data)`,
  );
}

/** A stored tile, back in memory. */
async function readTile(target: Target, name: string, entry: Manifest["tiles"][string]): Promise<TileGrid> {
  const { lat, lng } = parseTileName(name)!;
  const tile = emptyTile(lat, lng, entry.step);
  const side = tileCells(entry.step) + 1;
  const perSide = chunksPerSide(entry.step);
  for (let row = 0; row < perSide; row++) {
    for (let col = 0; col < perSide; col++) {
      const bytes = await target.getObject(chunkKey(name, entry.version, row, col));
      if (!bytes) continue;
      const chunk = decodeChunk(bytes);
      const cells = chunk.rows - 1;
      for (let r = 0; r < chunk.rows; r++) {
        tile.values.set(
          chunk.values.subarray(r * chunk.cols, (r + 1) * chunk.cols),
          (row * cells + r) * side + col * cells,
        );
      }
    }
  }
  return tile;
}

async function readManifest(target: Target): Promise<Manifest> {
  const bytes = await target.getObject(MANIFEST_KEY);
  if (!bytes) return emptyManifest();
  const parsed = JSON.parse(new TextDecoder().decode(bytes)) as Manifest;
  return { format: 1, tiles: parsed.tiles ?? {} };
}

function sourceNames(sources: { source: SourceRaster; tiles: Set<string> }[], tile: string): string {
  return sources
    .filter((s) => s.tiles.has(tile))
    .map((s) => s.source.name)
    .join(", ");
}

async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
