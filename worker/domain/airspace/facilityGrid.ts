import { type BBox, boxPolygon, type Polygon, type Position } from "../geojson";

/**
 * The FAA draws UAS facility maps on a grid of 30 arc-second cells. A cell is named by its row and
 * column on that grid, so the grid itself is the spatial index of the cells.
 */
export const CELLS_PER_DEGREE = 120;

export interface GridCellKey {
  row: number;
  col: number;
}

export function cellAt([lng, lat]: Position): GridCellKey {
  return { row: Math.floor(lat * CELLS_PER_DEGREE), col: Math.floor(lng * CELLS_PER_DEGREE) };
}

export function cellBox({ row, col }: GridCellKey): BBox {
  return {
    minLat: row / CELLS_PER_DEGREE,
    maxLat: (row + 1) / CELLS_PER_DEGREE,
    minLng: col / CELLS_PER_DEGREE,
    maxLng: (col + 1) / CELLS_PER_DEGREE,
  };
}

export function cellCenter(cell: GridCellKey): Position {
  return [(cell.col + 0.5) / CELLS_PER_DEGREE, (cell.row + 0.5) / CELLS_PER_DEGREE];
}

export function cellPolygon(cell: GridCellKey): Polygon {
  return boxPolygon(cellBox(cell));
}

/** Rows and columns of the cells that a box touches. */
export function cellRange(box: BBox): { minRow: number; maxRow: number; minCol: number; maxCol: number } {
  return {
    minRow: Math.floor(box.minLat * CELLS_PER_DEGREE),
    maxRow: Math.floor(box.maxLat * CELLS_PER_DEGREE),
    minCol: Math.floor(box.minLng * CELLS_PER_DEGREE),
    maxCol: Math.floor(box.maxLng * CELLS_PER_DEGREE),
  };
}

/**
 * The cell a facility-map polygon stands for: the FAA's cells are aligned squares, so the cell that
 * holds the polygon's centre is the one; a polygon that is not one grid cell is refused.
 */
export function cellOfPolygon(polygon: Polygon): GridCellKey | undefined {
  const ring = polygon.coordinates[0];
  if (!ring || ring.length < 4) return undefined;
  let minLng = Number.POSITIVE_INFINITY;
  let maxLng = Number.NEGATIVE_INFINITY;
  let minLat = Number.POSITIVE_INFINITY;
  let maxLat = Number.NEGATIVE_INFINITY;
  for (const [lng, lat] of ring) {
    minLng = Math.min(minLng, lng);
    maxLng = Math.max(maxLng, lng);
    minLat = Math.min(minLat, lat);
    maxLat = Math.max(maxLat, lat);
  }
  const cell = cellAt([(minLng + maxLng) / 2, (minLat + maxLat) / 2]);
  const box = cellBox(cell);
  const tolerance = 0.1 / CELLS_PER_DEGREE;
  const aligned =
    Math.abs(box.minLng - minLng) < tolerance &&
    Math.abs(box.maxLng - maxLng) < tolerance &&
    Math.abs(box.minLat - minLat) < tolerance &&
    Math.abs(box.maxLat - maxLat) < tolerance;
  return aligned ? cell : undefined;
}
