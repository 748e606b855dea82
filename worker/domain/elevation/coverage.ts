import { maskHas } from "./chunk";
import {
  chunkCells,
  chunkKey,
  chunksPerSide,
  inCoverage,
  isValidStep,
  parseTileName,
  snap,
  tileCells,
} from "./grid";

/** What the importer wrote, per tile: the one JSON object a worker reads to know where data is. */
export interface Manifest {
  format: 1;
  tiles: Record<string, TileEntry>;
}

export interface TileEntry {
  /** Arc-seconds between samples: the finest the tile's source has. */
  step: number;
  /** Digest of the tile's samples; part of every chunk key. */
  version: string;
  /** Hex bitmask of the chunks that hold data (see encodeTile). */
  chunks: string;
  /** The file it came from, for operators. */
  source?: string;
}

export function emptyManifest(): Manifest {
  return { format: 1, tiles: {} };
}

/** A tile of the manifest, ready for lookups. */
export class CoveredTile {
  readonly lat: number;
  readonly lng: number;
  /** Cells along the tile side (S) and along a chunk side (C). */
  readonly cells: number;
  readonly chunkCells: number;
  readonly chunksPerSide: number;
  /** Numeric id, unique over the globe; chunk ids build on it. */
  readonly index: number;
  private readonly withData: boolean[];

  constructor(
    readonly name: string,
    readonly entry: TileEntry,
  ) {
    const corner = parseTileName(name)!;
    this.lat = corner.lat;
    this.lng = corner.lng;
    this.cells = tileCells(entry.step);
    this.chunkCells = chunkCells(entry.step);
    this.chunksPerSide = chunksPerSide(entry.step);
    this.index = tileIndex(corner.lat, corner.lng);
    this.withData = Array.from({ length: this.chunksPerSide ** 2 }, (_, i) => maskHas(entry.chunks, i));
  }

  get step(): number {
    return this.entry.step;
  }

  hasData(chunk: number): boolean {
    return this.withData[chunk] === true;
  }

  /** A chunk's id over the globe (for grouping) and its R2 key. */
  chunkId(chunk: number): number {
    return this.index * 65536 + chunk;
  }

  chunkKey(chunk: number): string {
    const row = Math.floor(chunk / this.chunksPerSide);
    return chunkKey(this.name, this.entry.version, row, chunk % this.chunksPerSide);
  }
}

/** Where a position falls: its tile, the chunk holding its four samples, and its place in it. */
export interface Located {
  tile: CoveredTile;
  chunk: number;
  /** Fractional sample coordinates inside the chunk: 0..C, rows northward, columns eastward. */
  y: number;
  x: number;
}

/** The manifest as a lookup: which tile covers a position, at which step. */
export class Coverage {
  private readonly tiles = new Map<number, CoveredTile>();
  /** The tile the last position fell in: neighbouring positions mostly share it. */
  private last: CoveredTile | undefined;

  constructor(manifest: Manifest) {
    for (const [name, entry] of Object.entries(manifest.tiles ?? {})) {
      const corner = parseTileName(name);
      if (!corner || !isValidStep(entry?.step) || typeof entry.version !== "string") continue;
      if (typeof entry.chunks !== "string") continue;
      this.tiles.set(tileIndex(corner.lat, corner.lng), new CoveredTile(name, entry));
    }
  }

  get size(): number {
    return this.tiles.size;
  }

  tile(lat: number, lng: number): CoveredTile | undefined {
    return this.tiles.get(tileIndex(lat, lng));
  }

  /**
   * The finest tile whose closed extent holds the position: a point on a tile edge is served by
   * either neighbour, since both hold that edge's samples. Undefined outside coverage.
   */
  locate(lat: number, lng: number): Located | undefined {
    const out = { tile: undefined as unknown as CoveredTile, chunk: 0, y: 0, x: 0 };
    return this.locateInto(lat, lng, out) ? out : undefined;
  }

  /**
   * locate() into a reused object, false outside coverage: a carpet or a long `/ele` list locates
   * every sample, and a position off the whole degrees has only one tile to look at.
   */
  locateInto(lat: number, lng: number, out: Located): boolean {
    if (!inCoverage(lat) || lng < -180 || lng > 180) return false;
    const latFloor = Math.floor(lat);
    const lngFloor = Math.floor(lng);
    let tile: CoveredTile | undefined;
    if (lat !== latFloor && lng !== lngFloor) {
      if (lngFloor >= -180 && lngFloor <= 179 && latFloor >= -90 && latFloor <= 89) {
        const index = tileIndex(latFloor, lngFloor);
        tile = this.last?.index === index ? this.last : this.tiles.get(index);
      }
    } else {
      for (const tileLat of cornersAround(lat, -90, 89)) {
        for (const tileLng of cornersAround(lng, -180, 179)) {
          const candidate = this.tile(tileLat, tileLng);
          if (candidate && (!tile || candidate.step < tile.step)) tile = candidate;
        }
      }
    }
    if (!tile) return false;
    this.last = tile;
    const fy = snap((lat - tile.lat) * tile.cells);
    const fx = snap((lng - tile.lng) * tile.cells);
    const chunkRow = Math.floor(Math.min(Math.floor(fy), tile.cells - 1) / tile.chunkCells);
    const chunkCol = Math.floor(Math.min(Math.floor(fx), tile.cells - 1) / tile.chunkCells);
    out.tile = tile;
    out.chunk = chunkRow * tile.chunksPerSide + chunkCol;
    out.y = fy - chunkRow * tile.chunkCells;
    out.x = fx - chunkCol * tile.chunkCells;
    return true;
  }

  /** The finest step of the tiles meeting a rectangle (degrees); undefined when none does. */
  finestStep(south: number, west: number, north: number, east: number): number | undefined {
    let finest: number | undefined;
    const latFrom = Math.max(Math.ceil(south) - 1, -90);
    const lngFrom = Math.max(Math.ceil(west) - 1, -180);
    const latTo = Math.min(Math.floor(north), 89);
    const lngTo = Math.min(Math.floor(east), 179);
    if ((latTo - latFrom + 1) * (lngTo - lngFrom + 1) > this.tiles.size) {
      for (const tile of this.tiles.values()) {
        const meets = tile.lat <= north && tile.lat + 1 >= south && tile.lng <= east && tile.lng + 1 >= west;
        if (meets && (finest === undefined || tile.step < finest)) finest = tile.step;
      }
      return finest;
    }
    for (let lat = latFrom; lat <= latTo; lat++) {
      for (let lng = lngFrom; lng <= lngTo; lng++) {
        const step = this.tile(lat, lng)?.step;
        if (step !== undefined && (finest === undefined || step < finest)) finest = step;
      }
    }
    return finest;
  }
}

function tileIndex(lat: number, lng: number): number {
  return (lat + 90) * 360 + (lng + 180);
}

/** Corners (whole degrees) of the tiles whose closed extent holds `value`, within [min, max]. */
function cornersAround(value: number, min: number, max: number): number[] {
  const floor = Math.floor(value);
  const corners = Number.isInteger(value) ? [floor, floor - 1] : [floor];
  return corners.filter((c) => c >= min && c <= max);
}
