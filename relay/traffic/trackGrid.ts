/**
 * Things by place on a grid of 0.1° cells, to find what lies within a radius without looking at
 * everything: 5,000 tracks in one region cost each update a few cells, not 5,000 distances. Each id
 * holds one value (the caller's own record, kept as is: visiting hands it over without a lookup).
 */

const CELL_DEG = 0.1;
const METRES_PER_DEGREE = 111_195;

export class TrackGrid<T> {
  private readonly cells = new Map<number, Map<string, T>>();
  private readonly cellOf = new Map<string, number>();

  put(id: string, latitude: number, longitude: number, value: T): void {
    const key = keyOf(Math.floor(latitude / CELL_DEG), Math.floor(longitude / CELL_DEG));
    const old = this.cellOf.get(id);
    if (old !== undefined && old !== key) this.removeFrom(old, id);
    this.cellOf.set(id, key);
    let cell = this.cells.get(key);
    if (!cell) {
      cell = new Map();
      this.cells.set(key, cell);
    }
    cell.set(id, value);
  }

  remove(id: string): void {
    const old = this.cellOf.get(id);
    if (old === undefined) return;
    this.cellOf.delete(id);
    this.removeFrom(old, id);
  }

  /** Calls `visit` with each value in the cells that cover `radiusM` around the point (a superset: callers measure). */
  forEachNear(latitude: number, longitude: number, radiusM: number, visit: (value: T) => void): void {
    const dLat = radiusM / METRES_PER_DEGREE;
    const dLon = dLat / Math.max(0.01, Math.cos((Math.min(89, Math.abs(latitude)) * Math.PI) / 180));
    const y0 = Math.floor((latitude - dLat) / CELL_DEG);
    const y1 = Math.floor((latitude + dLat) / CELL_DEG);
    const x0 = Math.floor((longitude - dLon) / CELL_DEG);
    const x1 = Math.floor((longitude + dLon) / CELL_DEG);
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const cell = this.cells.get(keyOf(y, x));
        if (cell) for (const value of cell.values()) visit(value);
      }
    }
  }

  private removeFrom(key: number, id: string): void {
    const cell = this.cells.get(key);
    cell?.delete(id);
    if (cell?.size === 0) this.cells.delete(key);
  }
}

/** One number per cell: rows of 3,600 columns (longitude in 0.1° from -180 to 180, wrapped). */
const keyOf = (y: number, x: number) => y * 4000 + (((x % 3600) + 3600) % 3600);
