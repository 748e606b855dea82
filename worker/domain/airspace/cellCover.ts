import booleanIntersects from "@turf/boolean-intersects";
import booleanPointInPolygon from "@turf/boolean-point-in-polygon";
import lineIntersect from "@turf/line-intersect";
import polygonToLine from "@turf/polygon-to-line";
import type * as GeoJSON from "geojson";
import type { Geometry, Polygon, Position } from "../geojson";
import { CELLS_PER_DEGREE, cellPolygon, type GridCellKey } from "./facilityGrid";

/**
 * Which facility-map cells a geometry touches, found on the grid instead of by a polygon test per
 * cell. The geometry's edges are walked across the grid: a cell that no edge comes near lies wholly
 * inside or wholly outside, which one scanline per row decides; only the cells an edge passes near
 * get the exact test (turf's booleanIntersects, closed sets), so answers match testing every cell.
 * Work grows with the edges and the cells asked about, never with cells × vertices.
 */

/** Cells within this many cell widths of an edge count as near it (far above float noise). */
const NEAR = 1e-6;
/** Parts with more vertices than this are tested near a cell only by their edges near it. */
const LOCAL_TEST_VERTICES = 256;

export interface CellRange {
  minRow: number;
  maxRow: number;
  minCol: number;
  maxCol: number;
}

/** One polygon, line or point of the geometry, and its segments in degrees. */
interface Part {
  geometry: Geometry;
  /** Polygons have an inside; lines and points do not. */
  area: boolean;
  vertices: number;
}

const INSIDE = 1;
const OUTSIDE = 2;
const EDGE = 3;

export class CellCover {
  private readonly parts: Part[] = [];
  private readonly rows: number;
  private readonly cols: number;
  /** Per cell: 0 not yet known, INSIDE, OUTSIDE or EDGE. */
  private readonly state: Uint8Array;
  /** Per row: where its centre line crosses the parts' rings, as [x in cells, part] pairs. */
  private readonly crossings: number[][];
  private readonly rowDone: Uint8Array;
  /** Per edge cell of a large part: the part's segments near it (index into `segments`). */
  private readonly nearSegments = new Map<number, number[]>();
  /** Segments of large parts: part, ring, then the two ends in degrees. */
  private readonly segments: { part: number; ring: number; a: Position; b: Position }[] = [];
  private readonly exact = new Map<number, boolean>();

  constructor(
    private readonly geometry: Geometry,
    private readonly range: CellRange,
  ) {
    this.rows = range.maxRow - range.minRow + 1;
    this.cols = range.maxCol - range.minCol + 1;
    this.state = new Uint8Array(Math.max(0, this.rows * this.cols));
    this.crossings = Array.from({ length: Math.max(0, this.rows) }, () => []);
    this.rowDone = new Uint8Array(Math.max(0, this.rows));
    for (const part of partsOf(geometry)) this.addPart(part);
  }

  /** Whether the geometry meets the cell (its closed square), exactly as booleanIntersects says. */
  touches(cell: GridCellKey): boolean {
    const r = cell.row - this.range.minRow;
    const c = cell.col - this.range.minCol;
    if (r < 0 || r >= this.rows || c < 0 || c >= this.cols) return this.exactTest(cell, -1);
    const index = r * this.cols + c;
    if (this.state[index] === 0) this.classifyRow(r);
    const state = this.state[index];
    if (state === INSIDE) return true;
    if (state === OUTSIDE) return false;
    let known = this.exact.get(index);
    if (known === undefined) {
      known = this.exactTest(cell, index);
      this.exact.set(index, known);
    }
    return known;
  }

  private addPart(geometry: Geometry): void {
    const partIndex = this.parts.length;
    const rings = ringsOf(geometry);
    const vertices = rings.reduce((n, ring) => n + ring.length, 0);
    const area = geometry.type === "Polygon" || geometry.type === "MultiPolygon";
    this.parts.push({ geometry, area, vertices });
    const local = vertices > LOCAL_TEST_VERTICES;
    rings.forEach((ring, ringIndex) => {
      if (ring.length === 1) this.addSegment(partIndex, ringIndex, ring[0]!, ring[0]!, area, local);
      for (let i = 1; i < ring.length; i++)
        this.addSegment(partIndex, ringIndex, ring[i - 1]!, ring[i]!, area, local);
    });
  }

  /** Marks the cells a segment passes near, and where it crosses each row's centre line. */
  private addSegment(part: number, ring: number, a: Position, b: Position, area: boolean, local: boolean) {
    const { minRow, maxRow, minCol, maxCol } = this.range;
    const ax = a[0] * CELLS_PER_DEGREE;
    const ay = a[1] * CELLS_PER_DEGREE;
    const bx = b[0] * CELLS_PER_DEGREE;
    const by = b[1] * CELLS_PER_DEGREE;
    const yLo = Math.min(ay, by);
    const yHi = Math.max(ay, by);
    if (yHi + NEAR < minRow || yLo - NEAR > maxRow + 1) return;
    let segmentId = -1;
    if (local) {
      segmentId = this.segments.length;
      this.segments.push({ part, ring, a, b });
    }
    if (area) {
      // Half-open in y, so a vertex on a centre line is counted once.
      const first = Math.max(minRow, Math.floor(yLo - 0.5));
      const last = Math.min(maxRow, Math.ceil(yHi));
      for (let row = first; row <= last; row++) {
        const yc = row + 0.5;
        if (ay > yc === by > yc) continue;
        const x = ax + ((yc - ay) * (bx - ax)) / (by - ay);
        this.crossings[row - minRow]!.push(x, part);
      }
    }
    if (Math.max(ax, bx) + NEAR < minCol || Math.min(ax, bx) - NEAR > maxCol + 1) return;
    const firstRow = Math.max(minRow, Math.floor(yLo - NEAR));
    const lastRow = Math.min(maxRow, Math.floor(yHi + NEAR));
    for (let row = firstRow; row <= lastRow; row++) {
      let x0: number;
      let x1: number;
      if (ay === by) {
        x0 = Math.min(ax, bx);
        x1 = Math.max(ax, bx);
      } else {
        const t0 = clamp01((row - NEAR - ay) / (by - ay));
        const t1 = clamp01((row + 1 + NEAR - ay) / (by - ay));
        const xa = ax + t0 * (bx - ax);
        const xb = ax + t1 * (bx - ax);
        x0 = Math.min(xa, xb);
        x1 = Math.max(xa, xb);
      }
      const fromCol = Math.max(minCol, Math.floor(x0 - NEAR));
      const toCol = Math.min(maxCol, Math.floor(x1 + NEAR));
      for (let col = fromCol; col <= toCol; col++) {
        const index = (row - minRow) * this.cols + (col - minCol);
        this.state[index] = EDGE;
        if (segmentId >= 0) {
          const near = this.nearSegments.get(index);
          if (near) {
            if (near[near.length - 1] !== segmentId) near.push(segmentId);
          } else this.nearSegments.set(index, [segmentId]);
        }
      }
    }
  }

  /** Inside or outside for every cell of a row that no edge comes near: parity along the centre line. */
  private classifyRow(r: number): void {
    if (this.rowDone[r]) return;
    this.rowDone[r] = 1;
    const list = this.crossings[r]!;
    const order = Array.from({ length: list.length / 2 }, (_, i) => i).sort(
      (i, j) => list[2 * i]! - list[2 * j]!,
    );
    const odd = new Uint8Array(this.parts.length);
    let oddParts = 0;
    let next = 0;
    for (let c = 0; c < this.cols; c++) {
      const index = r * this.cols + c;
      const centre = this.range.minCol + c + 0.5;
      while (next < order.length && list[2 * order[next]!]! < centre) {
        const part = list[2 * order[next]! + 1]!;
        const flipped = odd[part]! ^ 1;
        odd[part] = flipped;
        oddParts += flipped ? 1 : -1;
        next++;
      }
      if (this.state[index] !== EDGE) this.state[index] = oddParts > 0 ? INSIDE : OUTSIDE;
    }
  }

  /** booleanIntersects of the cell and the geometry: part by part, large parts by their nearby edges. */
  private exactTest(cell: GridCellKey, index: number): boolean {
    const square = cellPolygon(cell);
    if (this.parts.length === 1 && this.parts[0]!.vertices <= LOCAL_TEST_VERTICES)
      return booleanIntersects(square as GeoJSON.Polygon, this.geometry as GeoJSON.Geometry);
    const near = index >= 0 ? this.nearSegments.get(index) : undefined;
    return this.parts.some((part, p) => {
      if (part.vertices <= LOCAL_TEST_VERTICES || index < 0)
        return booleanIntersects(square as GeoJSON.Polygon, part.geometry as GeoJSON.Geometry);
      const mine = (near ?? []).map((s) => this.segments[s]!).filter((s) => s.part === p);
      return localIntersects(square, part.geometry, mine);
    });
  }
}

/**
 * booleanIntersects(square, part) for a part with many vertices, from the part's segments near the
 * square: its outer vertices inside the square, its edges crossing the square's, and (only when
 * neither) the square's corners inside the part, the same three tests turf makes.
 */
function localIntersects(
  square: Polygon,
  part: Geometry,
  near: { ring: number; a: Position; b: Position }[],
): boolean {
  const squareFeature = square as GeoJSON.Polygon;
  if (part.type === "Point") return booleanIntersects(squareFeature, part as GeoJSON.Point);
  const outerOnly = part.type === "Polygon";
  for (const s of near) {
    if (outerOnly && s.ring !== 0) continue;
    if (booleanPointInPolygon(s.a, squareFeature) || booleanPointInPolygon(s.b, squareFeature)) return true;
  }
  if (near.length > 0) {
    const lines: GeoJSON.MultiLineString = {
      type: "MultiLineString",
      coordinates: near.map((s) => [s.a, s.b]),
    };
    if (
      lineIntersect(lines, polygonToLine(squareFeature) as GeoJSON.Feature<GeoJSON.LineString>).features
        .length > 0
    )
      return true;
  }
  if (part.type !== "Polygon") return false;
  return square.coordinates[0]!.some((corner) => booleanPointInPolygon(corner, part as GeoJSON.Polygon));
}

function partsOf(geometry: Geometry): Geometry[] {
  if (geometry.type === "MultiPolygon")
    return geometry.coordinates.map((coordinates) => ({ type: "Polygon", coordinates }) as Polygon);
  return [geometry];
}

function ringsOf(geometry: Geometry): Position[][] {
  switch (geometry.type) {
    case "Point":
      return [[geometry.coordinates]];
    case "LineString":
      return [geometry.coordinates];
    case "Polygon":
      return geometry.coordinates;
    case "MultiPolygon":
      return geometry.coordinates.flat();
  }
}

function clamp01(t: number): number {
  return t < 0 ? 0 : t > 1 ? 1 : t;
}

/** The rows and columns a list of cells spans. */
export function rangeOf(cells: GridCellKey[]): CellRange {
  let minRow = Number.POSITIVE_INFINITY;
  let maxRow = Number.NEGATIVE_INFINITY;
  let minCol = Number.POSITIVE_INFINITY;
  let maxCol = Number.NEGATIVE_INFINITY;
  for (const { row, col } of cells) {
    if (row < minRow) minRow = row;
    if (row > maxRow) maxRow = row;
    if (col < minCol) minCol = col;
    if (col > maxCol) maxCol = col;
  }
  return { minRow, maxRow, minCol, maxCol };
}

/** The cells (of those given, in their order) that a geometry touches. */
export function cellsTouching<T extends GridCellKey>(geometry: Geometry, cells: T[]): T[] {
  if (cells.length === 0) return [];
  const cover = new CellCover(geometry, rangeOf(cells));
  return cells.filter((cell) => cover.touches(cell));
}
