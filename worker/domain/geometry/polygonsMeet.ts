import { orient2d } from "robust-predicates";
import type { MultiPolygon, Polygon, Position } from "../geojson";

/**
 * Whether two areas share any point (closed sets, as turf's booleanIntersects says), without its
 * vertex-by-vertex point-in-polygon scan, which costs n·m for an area of n positions against a
 * shape of m: boundaries meet (a sweep over edge boxes), or one lies inside the other (one vertex
 * of each part decides once boundaries do not meet).
 */
export function polygonsMeet(a: Polygon | MultiPolygon, b: Polygon | MultiPolygon): boolean {
  const partsA = partsOf(a);
  const partsB = partsOf(b);
  if (!boxesMeet(boxOf(partsA), boxOf(partsB))) return false;
  if (boundariesMeet(partsA, partsB)) return true;
  return (
    partsA.some((part) => partsB.some((other) => inside(part[0]![0]!, other))) ||
    partsB.some((part) => partsA.some((other) => inside(part[0]![0]!, other)))
  );
}

type Part = Position[][];
type Box = [number, number, number, number];

function partsOf(area: Polygon | MultiPolygon): Part[] {
  return area.type === "Polygon" ? [area.coordinates] : area.coordinates;
}

function boxOf(parts: Part[]): Box {
  const box: Box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const part of parts)
    for (const ring of part)
      for (const [x, y] of ring) {
        if (x < box[0]) box[0] = x;
        if (y < box[1]) box[1] = y;
        if (x > box[2]) box[2] = x;
        if (y > box[3]) box[3] = y;
      }
  return box;
}

function boxesMeet(a: Box, b: Box): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

interface Edge {
  from: Position;
  to: Position;
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
  side: 0 | 1;
}

/** Edges of both areas that reach into the other's box, swept left to right by their x ranges. */
function boundariesMeet(partsA: Part[], partsB: Part[]): boolean {
  const boxA = boxOf(partsA);
  const boxB = boxOf(partsB);
  const edges: Edge[] = [];
  const collect = (parts: Part[], side: 0 | 1, other: Box) => {
    for (const part of parts)
      for (const ring of part)
        for (let i = 0; i + 1 < ring.length; i++) {
          const from = ring[i]!;
          const to = ring[i + 1]!;
          const edge: Edge = {
            from,
            to,
            minX: Math.min(from[0], to[0]),
            maxX: Math.max(from[0], to[0]),
            minY: Math.min(from[1], to[1]),
            maxY: Math.max(from[1], to[1]),
            side,
          };
          if (boxesMeet([edge.minX, edge.minY, edge.maxX, edge.maxY], other)) edges.push(edge);
        }
  };
  collect(partsA, 0, boxB);
  collect(partsB, 1, boxA);
  edges.sort((p, q) => p.minX - q.minX);
  const active: [Edge[], Edge[]] = [[], []];
  for (const edge of edges) {
    const others = active[1 - edge.side]!;
    let kept = 0;
    for (const other of others) {
      if (other.maxX < edge.minX) continue;
      others[kept++] = other;
      if (other.minY <= edge.maxY && edge.minY <= other.maxY && segmentsMeet(edge, other)) return true;
    }
    others.length = kept;
    active[edge.side]!.push(edge);
  }
  return false;
}

function segmentsMeet(s: Edge, t: Edge): boolean {
  const d1 = orient2d(s.from[0], s.from[1], s.to[0], s.to[1], t.from[0], t.from[1]);
  const d2 = orient2d(s.from[0], s.from[1], s.to[0], s.to[1], t.to[0], t.to[1]);
  const d3 = orient2d(t.from[0], t.from[1], t.to[0], t.to[1], s.from[0], s.from[1]);
  const d4 = orient2d(t.from[0], t.from[1], t.to[0], t.to[1], s.to[0], s.to[1]);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  return (
    (d1 === 0 && within(s, t.from)) ||
    (d2 === 0 && within(s, t.to)) ||
    (d3 === 0 && within(t, s.from)) ||
    (d4 === 0 && within(t, s.to))
  );
}

function within(e: Edge, [x, y]: Position): boolean {
  return e.minX <= x && x <= e.maxX && e.minY <= y && y <= e.maxY;
}

/** Even-odd ray casting over every ring of a part: holes count. Only asked off the boundary. */
function inside([x, y]: Position, part: Part): boolean {
  let odd = false;
  for (const ring of part) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i]!;
      const [xj, yj] = ring[j]!;
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) odd = !odd;
    }
  }
  return odd;
}
