import booleanIntersects from "@turf/boolean-intersects";
import pointToPolygonDistance from "@turf/point-to-polygon-distance";
import type * as GeoJSON from "geojson";
import { describe, expect, it } from "vitest";
import { cellDistances } from "../../worker/domain/airspace/advisories";
import { cellsTouching } from "../../worker/domain/airspace/cellCover";
import {
  CELLS_PER_DEGREE,
  cellBox,
  cellPolygon,
  type GridCellKey,
} from "../../worker/domain/airspace/facilityGrid";
import {
  distanceToBox,
  distanceToRing,
  metersBetweenBoxes,
  pointDistance,
} from "../../worker/domain/airspace/geometry";
import type { Geometry, Polygon, Position } from "../../worker/domain/geojson";

/** The grid path against the exact test per cell, on random shapes over random cells. */

function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

/** Every cell on rows and columns [from, from + n), as the store would list them. */
function cellsAround(row: number, col: number, n: number): GridCellKey[] {
  const cells: GridCellKey[] = [];
  for (let r = row; r < row + n; r++) for (let c = col; c < col + n; c++) cells.push({ row: r, col: c });
  return cells;
}

function exact(geometry: Geometry, cells: GridCellKey[]): GridCellKey[] {
  return cells.filter((cell) =>
    booleanIntersects(cellPolygon(cell) as GeoJSON.Polygon, geometry as GeoJSON.Geometry),
  );
}

/** A star-shaped ring of n vertices around a centre (degrees), radii between r/3 and r. */
function star(rnd: () => number, centre: Position, r: number, n: number, clockwise = false): Position[] {
  const ring: Position[] = [];
  for (let i = 0; i < n; i++) {
    const angle = ((clockwise ? -i : i) / n) * 2 * Math.PI;
    const radius = r * (1 / 3 + (2 / 3) * rnd());
    ring.push([centre[0] + radius * Math.cos(angle), centre[1] + radius * Math.sin(angle)]);
  }
  ring.push(ring[0]!);
  return ring;
}

/** A rectangle whose corners lie on the grid (edges exactly on cell boundaries). */
function gridRectangle(row: number, col: number, rows: number, cols: number): Polygon {
  const [w, s, e, n] = [col, row, col + cols, row + rows].map((v) => v / CELLS_PER_DEGREE) as [
    number,
    number,
    number,
    number,
  ];
  return {
    type: "Polygon",
    coordinates: [
      [
        [w, s],
        [e, s],
        [e, n],
        [w, n],
        [w, s],
      ],
    ],
  };
}

const ROW = Math.floor(37.5 * CELLS_PER_DEGREE);
const COL = Math.floor(-122.5 * CELLS_PER_DEGREE);
const at = (dr: number, dc: number): Position => [
  (COL + dc) / CELLS_PER_DEGREE,
  (ROW + dr) / CELLS_PER_DEGREE,
];

describe("cellsTouching finds the cells booleanIntersects finds", () => {
  const cells = cellsAround(ROW, COL, 30);

  it("for random star polygons, with and without holes", () => {
    const rnd = random(7);
    for (let k = 0; k < 40; k++) {
      const centre = at(5 + rnd() * 20, 5 + rnd() * 20);
      const radius = (1 + rnd() * 12) / CELLS_PER_DEGREE;
      const outer = star(rnd, centre, radius, 3 + Math.floor(rnd() * 40));
      const rings = k % 3 === 0 ? [outer, star(rnd, centre, radius / 4, 8, true)] : [outer];
      const polygon: Polygon = { type: "Polygon", coordinates: rings };
      expect(cellsTouching(polygon, cells)).toEqual(exact(polygon, cells));
    }
  });

  it("for polygons whose edges and corners lie on grid lines", () => {
    for (const [r, c, h, w] of [
      [3, 4, 5, 6],
      [0, 0, 1, 1],
      [10, 2, 1, 20],
      [-2, -2, 40, 40],
    ] as const) {
      const polygon = gridRectangle(ROW + r, COL + c, h, w);
      expect(cellsTouching(polygon, cells)).toEqual(exact(polygon, cells));
    }
    const diamond: Polygon = {
      type: "Polygon",
      coordinates: [[at(5, 10), at(10, 15), at(15, 10), at(10, 5), at(5, 10)]],
    };
    expect(cellsTouching(diamond, cells)).toEqual(exact(diamond, cells));
  });

  it("for multipolygons, lines and points", () => {
    const rnd = random(11);
    const multi: Geometry = {
      type: "MultiPolygon",
      coordinates: [
        [star(rnd, at(8, 8), 4 / CELLS_PER_DEGREE, 12)],
        [star(rnd, at(20, 20), 6 / CELLS_PER_DEGREE, 30)],
        gridRectangle(ROW + 1, COL + 20, 3, 3).coordinates,
      ],
    };
    expect(cellsTouching(multi, cells)).toEqual(exact(multi, cells));
    const line: Geometry = { type: "LineString", coordinates: [at(1.5, 1.2), at(12.3, 25.7), at(28, 3)] };
    expect(cellsTouching(line, cells)).toEqual(exact(line, cells));
    for (const point of [at(4.5, 4.5), at(4, 4), at(7, 7.5)]) {
      const geometry: Geometry = { type: "Point", coordinates: point };
      expect(cellsTouching(geometry, cells)).toEqual(exact(geometry, cells));
    }
  });

  it("for a polygon reaching far beyond the cells asked about", () => {
    const rnd = random(5);
    const big: Polygon = { type: "Polygon", coordinates: [star(rnd, at(15, 15), 60 / CELLS_PER_DEGREE, 50)] };
    expect(cellsTouching(big, cells)).toEqual(exact(big, cells));
  });

  it("for polygons of thousands of vertices, tested only by their nearby edges", () => {
    const rnd = random(3);
    for (let k = 0; k < 3; k++) {
      const outer = star(rnd, at(15, 15), 14 / CELLS_PER_DEGREE, 2000);
      const rings = k === 2 ? [outer, star(rnd, at(15, 15), 2 / CELLS_PER_DEGREE, 600, true)] : [outer];
      const polygon: Polygon = { type: "Polygon", coordinates: rings };
      expect(cellsTouching(polygon, cells)).toEqual(exact(polygon, cells));
    }
  });

  it("keeps the cells' order and ignores an empty list", () => {
    const polygon = gridRectangle(ROW + 2, COL + 2, 4, 4);
    const shuffled = [...cells].reverse();
    expect(cellsTouching(polygon, shuffled)).toEqual(exact(polygon, shuffled));
    expect(cellsTouching(polygon, [])).toEqual([]);
  });
});

describe("distance shortcuts agree with the exact distances", () => {
  it("metersBetweenBoxes never exceeds the distance between points of the boxes", () => {
    const rnd = random(13);
    for (let k = 0; k < 500; k++) {
      const lat = -60 + rnd() * 120;
      const lng = -180 + rnd() * 360;
      const a: Position = [lng, lat];
      const b: Position = [Math.max(-180, Math.min(180, lng + (rnd() - 0.5) * 2)), lat + (rnd() - 0.5) * 2];
      const box = (p: Position) => ({ minLat: p[1], maxLat: p[1], minLng: p[0], maxLng: p[0] });
      expect(metersBetweenBoxes(box(a), box(b))).toBeLessThanOrEqual(pointDistance(a, b));
    }
    const west = { minLat: 10, maxLat: 10.1, minLng: 179.9, maxLng: 180 };
    const east = { minLat: 10, maxLat: 10.1, minLng: -180, maxLng: -179.9 };
    expect(metersBetweenBoxes(west, east)).toBe(0);
  });

  const turfDistance = (polygon: Polygon, point: Position) =>
    Math.max(0, pointToPolygonDistance(point, polygon as GeoJSON.Polygon, { units: "meters" }));

  it("distanceToRing, and distanceToBox for cells, are turf's distance to the bit, inside, on edges and corners, and far away", () => {
    const rnd = random(19);
    for (let k = 0; k < 3000; k++) {
      const cell = { row: ROW + Math.floor(rnd() * 40), col: COL + Math.floor(rnd() * 40) };
      const square = cellPolygon(cell);
      const kind = k % 4;
      const point: Position =
        kind === 0
          ? at(rnd() * 40, rnd() * 40)
          : kind === 1
            ? at(cell.row - ROW + Math.round(rnd() * 2) / 2, cell.col - COL + Math.round(rnd() * 2) / 2)
            : kind === 2
              ? [
                  square.coordinates[0]![0]![0] + (rnd() - 0.5) * 3,
                  square.coordinates[0]![0]![1] + (rnd() - 0.5) * 3,
                ]
              : at(cell.row - ROW + rnd(), cell.col - COL + rnd());
      expect(distanceToRing(square.coordinates[0]!, point)).toBe(turfDistance(square, point));
      expect(distanceToBox(cellBox(cell), point)).toBe(turfDistance(square, point));
    }
    for (let k = 0; k < 200; k++) {
      const ring = star(rnd, at(20, 20), (1 + rnd() * 10) / CELLS_PER_DEGREE, 3 + Math.floor(rnd() * 60));
      const point = at(rnd() * 40, rnd() * 40);
      expect(distanceToRing(ring, point)).toBe(turfDistance({ type: "Polygon", coordinates: [ring] }, point));
    }
  });

  it("cellDistances keeps exactly the cells within the buffer", () => {
    const rnd = random(17);
    const cells = cellsAround(ROW, COL, 40);
    for (let k = 0; k < 20; k++) {
      const point = at(rnd() * 40, rnd() * 40);
      const buffer = rnd() * 20_000;
      const distances = cellDistances(point, buffer);
      const fast = cells.filter((cell) => distances.within(cell));
      const slow = cells.filter((cell) => turfDistance(cellPolygon(cell), point) <= buffer);
      expect(fast).toEqual(slow);
      for (const cell of fast) expect(distances.of(cell)).toBe(turfDistance(cellPolygon(cell), point));
    }
  });
});
