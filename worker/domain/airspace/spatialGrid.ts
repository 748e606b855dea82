import type { BBox } from "../geojson";

/**
 * A multi-level grid that indexes bounding boxes in plain B-tree tables. A record is listed under
 * the cells of the finest level at which its box touches at most 2×2 cells, so a county lands in a
 * few 1° cells and an airport point in one 0.01° cell. A search visits each level's cells over the
 * query box: a handful of index range scans whatever the size of the records.
 */
const LEVEL_SIZES_DEG = [0.01, 0.1, 1, 10, 100] as const;
/** The levels a search visits, finest first. */
export const SEARCH_LEVELS = LEVEL_SIZES_DEG.map((_, level) => level);

export interface GridCell {
  level: number;
  x: number;
  y: number;
}

export interface LevelRange {
  level: number;
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

function rangeAt(level: number, box: BBox): LevelRange {
  const size = LEVEL_SIZES_DEG[level]!;
  return {
    level,
    minX: Math.floor(box.minLng / size),
    maxX: Math.floor(box.maxLng / size),
    minY: Math.floor(box.minLat / size),
    maxY: Math.floor(box.maxLat / size),
  };
}

/** The cells a record with this bounding box is stored under. */
export function indexCells(box: BBox): GridCell[] {
  let level = 0;
  let range = rangeAt(level, box);
  while (level < LEVEL_SIZES_DEG.length - 1 && (range.maxX - range.minX > 1 || range.maxY - range.minY > 1)) {
    level += 1;
    range = rangeAt(level, box);
  }
  const cells: GridCell[] = [];
  for (let x = range.minX; x <= range.maxX; x++)
    for (let y = range.minY; y <= range.maxY; y++) cells.push({ level, x, y });
  return cells;
}

/** One cell range per level: every record whose box meets `box` is listed in one of them. */
export function searchRanges(box: BBox): LevelRange[] {
  return SEARCH_LEVELS.map((level) => rangeAt(level, box));
}

/** Grows a box by `meters` on every side (a degree of longitude shrinks towards the poles). */
export function expandBox(box: BBox, meters: number): BBox {
  if (meters <= 0) return box;
  const dLat = meters / METERS_PER_DEGREE;
  const widestLat = Math.min(89, Math.max(Math.abs(box.minLat), Math.abs(box.maxLat)) + dLat);
  const dLng = meters / (METERS_PER_DEGREE * Math.cos((widestLat * Math.PI) / 180));
  return {
    minLat: Math.max(-90, box.minLat - dLat),
    maxLat: Math.min(90, box.maxLat + dLat),
    minLng: Math.max(-180, box.minLng - dLng),
    maxLng: Math.min(180, box.maxLng + dLng),
  };
}

export const METERS_PER_DEGREE = 111_320;

export function boxesMeet(a: BBox, b: BBox): boolean {
  return a.minLat <= b.maxLat && a.maxLat >= b.minLat && a.minLng <= b.maxLng && a.maxLng >= b.minLng;
}
