/**
 * Ids by place on a grid of 0.1° cells, to find what lies within a radius without looking at every
 * track: 5,000 tracks in one region cost each update a few cells, not 5,000 distances.
 */

const CELL_DEG = 0.1;
const METRES_PER_DEGREE = 111_195;

export class TrackGrid {
  private readonly cells = new Map<number, Set<string>>();
  private readonly cellOf = new Map<string, number>();

  put(id: string, latitude: number, longitude: number): void {
    const key = keyOf(Math.floor(latitude / CELL_DEG), Math.floor(longitude / CELL_DEG));
    const old = this.cellOf.get(id);
    if (old === key) return;
    if (old !== undefined) this.cells.get(old)?.delete(id);
    this.cellOf.set(id, key);
    const cell = this.cells.get(key) ?? new Set<string>();
    this.cells.set(key, cell);
    cell.add(id);
  }

  remove(id: string): void {
    const old = this.cellOf.get(id);
    if (old === undefined) return;
    this.cellOf.delete(id);
    const cell = this.cells.get(old);
    cell?.delete(id);
    if (cell?.size === 0) this.cells.delete(old);
  }

  /** Ids in the cells that cover `radiusM` around the point (a superset: callers measure). */
  *near(latitude: number, longitude: number, radiusM: number): Generator<string> {
    const dLat = radiusM / METRES_PER_DEGREE;
    const dLon = dLat / Math.max(0.01, Math.cos((Math.min(89, Math.abs(latitude)) * Math.PI) / 180));
    const y0 = Math.floor((latitude - dLat) / CELL_DEG);
    const y1 = Math.floor((latitude + dLat) / CELL_DEG);
    const x0 = Math.floor((longitude - dLon) / CELL_DEG);
    const x1 = Math.floor((longitude + dLon) / CELL_DEG);
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const cell = this.cells.get(keyOf(y, x));
        if (cell) yield* cell;
      }
    }
  }
}

/** One number per cell: rows of 3,600 columns (longitude in 0.1° from -180 to 180, wrapped). */
const keyOf = (y: number, x: number) => y * 4000 + (((x % 3600) + 3600) % 3600);
