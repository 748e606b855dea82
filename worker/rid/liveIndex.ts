import { NetMaxNearRealTimeDataPeriodSeconds } from "./constants";
import type { View } from "./view";

/**
 * The live-position index of network Remote ID, pure: which grid cells a flight has reported
 * positions in, when each flight writes its rows, and which cells a view reads.
 *
 * A flight appears in a view when any of its positions of the last NetMaxNearRealTimeDataPeriodSeconds
 * lies inside it (aircraftState.ts ridFlightFor). The index keeps one row per flight and cell it
 * reported in, so a view needs no margin for how far a drone may fly: a position inside the view lies
 * in one of the view's cells, and that cell's row was written when the flight first reported there.
 * The only slack is in time: a row is refreshed at most every INDEX_REFRESH_MS, so its time may lag the
 * flight's latest position in that cell by that much, and a view accepts rows that much older.
 */

/** Cells are 0.01° of latitude by 0.01° of longitude (1.1 km by 1.1 km × cos latitude). */
export const CELLS_PER_DEGREE = 100;

/**
 * A flight rewrites a cell it stays in at most this often (by record time). With a new cell written at
 * once, a flight writes at most one row per 10 s per cell it keeps reporting in, plus one per cell
 * entered: even at F3411's top speed (254 m/s) that is a cell every few seconds, well under one D1
 * write per second per flight, so D1's single writer is not the limit of how many flights can fly.
 */
export const INDEX_REFRESH_MS = 10_000;

/** A view reads rows this recent: positions a view may show, plus the refresh lag. */
export const INDEX_WINDOW_MS = NetMaxNearRealTimeDataPeriodSeconds * 1000 + INDEX_REFRESH_MS;

/**
 * Rows older than this are deleted when a flight writes (any flight's). Beyond INDEX_WINDOW_MS no view
 * reads them; the extra minute absorbs clock differences between a Durable Object and a request.
 */
export const INDEX_RETENTION_MS = INDEX_WINDOW_MS + 60_000;

export interface Cell {
  x: number;
  y: number;
}

export const cellOf = (latitude: number, longitude: number): Cell => ({
  x: Math.floor(longitude * CELLS_PER_DEGREE),
  y: Math.floor(latitude * CELLS_PER_DEGREE),
});

/** The cells a view covers: every row of cells from ys, each from minX to maxX. */
export interface CellRange {
  ys: number[];
  minX: number;
  maxX: number;
}

/** The cells holding any point of the view (its edges included, as `contains` includes them). */
export function cellsOfView(view: View): CellRange {
  const low = cellOf(view.minLat, view.minLng);
  const high = cellOf(view.maxLat, view.maxLng);
  const ys: number[] = [];
  for (let y = low.y; y <= high.y; y++) ys.push(y);
  return { ys, minX: low.x, maxX: high.x };
}

/** A row of the index to write: the flight's latest position in a cell and its time. */
export interface CellReport {
  cell: Cell;
  latitude: number;
  longitude: number;
  reportedAt: number;
}

export interface PositionReport {
  latitude: number;
  longitude: number;
  timestamp: number;
}

const keyOf = (cell: Cell) => `${cell.x},${cell.y}`;

const valid = (p: PositionReport) =>
  Number.isFinite(p.latitude) &&
  Number.isFinite(p.longitude) &&
  Number.isFinite(p.timestamp) &&
  Math.abs(p.latitude) <= 90 &&
  Math.abs(p.longitude) <= 180;

/**
 * One flight's write throttle: remembers, per cell, the time of the last row written, and from a
 * batch of positions picks the rows due: a cell not written yet, or whose latest position is at least
 * INDEX_REFRESH_MS newer than its row. Records out of order, replays and future-dated records (an
 * injected test flight's whole path arrives at once) all end with each row at least as new as the
 * cell's latest position less INDEX_REFRESH_MS.
 */
export class CellThrottle {
  private readonly written = new Map<string, number>();

  /** Rows to write for these positions; positions older than `oldest` are not worth a row. */
  due(positions: PositionReport[], oldest: number): CellReport[] {
    const latest = new Map<string, CellReport>();
    for (const p of positions) {
      if (!valid(p) || p.timestamp < oldest) continue;
      const cell = cellOf(p.latitude, p.longitude);
      const key = keyOf(cell);
      const seen = latest.get(key);
      if (!seen || p.timestamp > seen.reportedAt)
        latest.set(key, { cell, latitude: p.latitude, longitude: p.longitude, reportedAt: p.timestamp });
    }
    const due: CellReport[] = [];
    for (const [key, report] of latest) {
      const last = this.written.get(key);
      if (last === undefined || report.reportedAt >= last + INDEX_REFRESH_MS) due.push(report);
    }
    return due;
  }

  /** Notes rows as written (before the write, so a concurrent batch does not write them again). */
  wrote(reports: CellReport[]): void {
    for (const r of reports) {
      const key = keyOf(r.cell);
      this.written.set(key, Math.max(this.written.get(key) ?? r.reportedAt, r.reportedAt));
    }
  }

  /** Forgets rows whose write failed, so the next batch writes them again. */
  failed(reports: CellReport[]): void {
    for (const r of reports) this.written.delete(keyOf(r.cell));
  }

  /** Drops cells written before `before`: a later position there is due anyway. */
  prune(before: number): void {
    for (const [key, at] of this.written) if (at < before) this.written.delete(key);
  }

  reset(): void {
    this.written.clear();
  }
}
