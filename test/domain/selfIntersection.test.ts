import kinks from "@turf/kinks";
import { describe, expect, it } from "vitest";
import type { Position } from "../../worker/domain/geojson";
import { ringsIntersect } from "../../worker/domain/geometry/selfIntersection";
import { bowTie } from "../geometries";

/** mulberry32: a seeded generator, so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Ring = Position[];

/** Longer or other runs: SELF_INTERSECTION_ROUNDS=1000000 SELF_INTERSECTION_SEED=7 npx vitest run … */
const ROUNDS = Number(process.env.SELF_INTERSECTION_ROUNDS ?? 20_000);
const SEED = Number(process.env.SELF_INTERSECTION_SEED ?? 20261124);

const turfKinks = (rings: Ring[]) => kinks({ type: "Polygon", coordinates: rings }).features.length > 0;

// An independent quadratic oracle over the raw rings (small integer grids keep its arithmetic exact).
const cross = (a: Position, b: Position, c: Position) =>
  (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
const onSegment = (a: Position, b: Position, c: Position) =>
  cross(a, b, c) === 0 &&
  Math.min(a[0], b[0]) <= c[0] &&
  c[0] <= Math.max(a[0], b[0]) &&
  Math.min(a[1], b[1]) <= c[1] &&
  c[1] <= Math.max(a[1], b[1]);
function meet(a: Position, b: Position, c: Position, d: Position): boolean {
  const d1 = Math.sign(cross(a, b, c));
  const d2 = Math.sign(cross(a, b, d));
  const d3 = Math.sign(cross(c, d, a));
  const d4 = Math.sign(cross(c, d, b));
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  return onSegment(a, b, c) || onSegment(a, b, d) || onSegment(c, d, a) || onSegment(c, d, b);
}
const same = (a: Position, b: Position) => a[0] === b[0] && a[1] === b[1];

interface Edge {
  ring: number;
  /** Place among the ring's edges of non-zero length: repeated positions do not separate neighbours. */
  index: number;
  count: number;
  a: Position;
  b: Position;
}

function edges(rings: Ring[]): Edge[] {
  return rings.flatMap((ring, r) => {
    const pairs = ring.slice(0, -1).flatMap((a, i) => (same(a, ring[i + 1]!) ? [] : [[a, ring[i + 1]!]]));
    return pairs.map(([a, b], index) => ({ ring: r, index, count: pairs.length, a: a!, b: b! }));
  });
}
const neighbours = (e: Edge, f: Edge) =>
  e.ring === f.ring && (Math.abs(e.index - f.index) === 1 || Math.abs(e.index - f.index) === e.count - 1);

/**
 * What `kinks` lets through and the sweep refuses: edges along one line that share a point (other
 * than raw neighbours meeting end to end without overlap), and rings of fewer than 3 distinct positions.
 */
function collinearContactOrDegenerate(rings: Ring[]): boolean {
  if (rings.some((ring) => new Set(ring.map((p) => p.join())).size < 3)) return true;
  const all = edges(rings);
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) {
      const e = all[i]!;
      const f = all[j]!;
      if (cross(e.a, e.b, f.a) !== 0 || cross(e.a, e.b, f.b) !== 0 || !meet(e.a, e.b, f.a, f.b)) continue;
      const endToEnd =
        (same(e.b, f.a) && !onSegment(e.a, e.b, f.b) && !onSegment(f.a, f.b, e.a)) ||
        (same(e.a, f.b) && !onSegment(e.a, e.b, f.a) && !onSegment(f.a, f.b, e.b));
      if (!(neighbours(e, f) && endToEnd)) return true;
    }
  }
  return false;
}

function randomRing(next: () => number, grid: number, size: number): Ring {
  const ring: Ring = Array.from({ length: size }, () => [
    Math.floor(next() * grid),
    Math.floor(next() * grid),
  ]);
  ring.push([...ring[0]!] as Position);
  return ring;
}

function randomRealRing(next: () => number, size: number): Ring {
  const ring: Ring = Array.from({ length: size }, () => [-84.2 + next() * 0.01, 36.3 + next() * 0.01]);
  ring.push([...ring[0]!] as Position);
  return ring;
}

/** A star-shaped ring around a centre: simple by construction, with `size` + 1 positions. */
function starRing(next: () => number, cx: number, cy: number, radius: number, size: number): Ring {
  const ring: Ring = Array.from({ length: size }, (_, i) => {
    const angle = (2 * Math.PI * i) / size;
    const r = radius * (0.5 + 0.5 * next());
    return [cx + r * Math.cos(angle), cy + r * Math.sin(angle)];
  });
  ring.push([...ring[0]!] as Position);
  return ring;
}

describe("the sweep-line self-intersection check", () => {
  it("agrees with turf kinks on random small-grid polygons, touching and collinear ones included", () => {
    const next = random(SEED);
    let refused = 0;
    let deviations = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const grid = 3 + Math.floor(next() * 4);
      const rings = [randomRing(next, grid, 3 + Math.floor(next() * 6))];
      if (next() < 0.3) rings.push(randomRing(next, grid, 3 + Math.floor(next() * 3)));
      const fast = ringsIntersect(rings);
      const turf = turfKinks(rings);
      const extra = collinearContactOrDegenerate(rings);
      // Everything kinks refuses is refused, and the only extra refusals are collinear contacts.
      if (turf) expect(fast, JSON.stringify(rings)).toBe(true);
      else expect(fast, JSON.stringify(rings)).toBe(extra);
      if (fast) refused++;
      if (fast && !turf) deviations++;
    }
    // Both kinds occur often enough for the comparison to mean something.
    expect(refused).toBeGreaterThan(ROUNDS / 4);
    expect(ROUNDS - refused).toBeGreaterThan(ROUNDS / 40);
    expect(deviations).toBeGreaterThan(ROUNDS / 200);
  });

  it("agrees with turf kinks on random real-valued polygons, simple and crossing", () => {
    const next = random(SEED + 1);
    let simple = 0;
    for (let round = 0; round < ROUNDS / 5; round++) {
      const size = 3 + Math.floor(next() * 40);
      const rings =
        next() < 0.5
          ? [starRing(next, -84.2 + next(), 36.3 + next(), 0.01, size)]
          : [randomRealRing(next, size)];
      if (next() < 0.3)
        rings.push(starRing(next, rings[0]![0]![0], rings[0]![0]![1], 0.002, 3 + Math.floor(next() * 8)));
      const fast = ringsIntersect(rings);
      expect(fast, JSON.stringify(rings)).toBe(turfKinks(rings));
      if (!fast) simple++;
    }
    expect(simple).toBeGreaterThan(ROUNDS / 40);
    expect(simple).toBeLessThan(ROUNDS / 5 - ROUNDS / 200);
  });

  it.each([
    ["a bow tie", bowTie.coordinates as Ring[], true],
    [
      "a vertex touching another edge",
      [
        [
          [0, 0],
          [4, 0],
          [4, 4],
          [2, 0],
          [0, 4],
          [0, 0],
        ],
      ],
      true,
    ],
    [
      "a hole touching the shell at a vertex",
      [
        [
          [0, 0],
          [4, 0],
          [4, 4],
          [0, 4],
          [0, 0],
        ],
        [
          [0, 0],
          [1, 2],
          [2, 1],
          [0, 0],
        ],
      ],
      true,
    ],
    [
      "a hole inside the shell",
      [
        [
          [0, 0],
          [4, 0],
          [4, 4],
          [0, 4],
          [0, 0],
        ],
        [
          [1, 1],
          [1, 2],
          [2, 1],
          [1, 1],
        ],
      ],
      false,
    ],
    [
      "a repeated position on a straight edge",
      [
        [
          [0, 0],
          [2, 0],
          [2, 0],
          [4, 0],
          [4, 4],
          [0, 0],
        ],
      ],
      false,
    ],
    [
      "a repeated position at a corner",
      [
        [
          [0, 0],
          [4, 0],
          [4, 0],
          [4, 4],
          [0, 0],
        ],
      ],
      true,
    ],
    [
      "vertical edges and collinear neighbours",
      [
        [
          [0, 0],
          [0, 1],
          [0, 2],
          [1, 2],
          [2, 2],
          [2, 0],
          [0, 0],
        ],
      ],
      false,
    ],
  ])("on %s says %s", (_label, rings, expected) => {
    expect(ringsIntersect(rings as Ring[])).toBe(expected);
    expect(turfKinks(rings as Ring[])).toBe(expected);
  });

  it("refuses flat and degenerate rings that kinks misses", () => {
    const flat: Ring = [
      [0, 0],
      [1, 0],
      [3, 0],
      [0, 0],
    ];
    expect(turfKinks([flat])).toBe(false);
    expect(ringsIntersect([flat])).toBe(true);
    expect(
      ringsIntersect([
        [
          [0, 0],
          [1, 0],
          [0, 0],
          [0, 0],
        ],
      ]),
    ).toBe(true);
  });

  it("answers for 10,000 positions, simple or crossed at one place, as kinks does", () => {
    const next = random(7);
    const ring = starRing(next, -84.2, 36.3, 0.01, 9_999);
    expect(ring).toHaveLength(10_000);
    expect(ringsIntersect([ring])).toBe(false);
    const crossed = ring.map((p) => [...p] as Position);
    [crossed[5000], crossed[5001]] = [crossed[5001]!, crossed[5000]!];
    expect(ringsIntersect([crossed])).toBe(true);
    expect(turfKinks([crossed])).toBe(true);
    // A serpentine: thousands of long edges over one another, the worst case for a box sweep.
    const serpentine: Ring = [];
    for (let i = 0; i < 2_500; i++) serpentine.push([0, i], [1, i], [1, i + 0.5], [0, i + 0.5]);
    serpentine.length = 9_998;
    serpentine.push([-1, serpentine[serpentine.length - 1]![1]], [-1, 0], [0, 0]);
    expect(ringsIntersect([serpentine])).toBe(turfKinks([serpentine]));
  });
});
