import { orient2d } from "robust-predicates";
import type { Position } from "../geojson";

/**
 * Whether closed rings touch or cross themselves or each other, in O(n log n) for n positions:
 * a Shamos–Hoey sweep (stop at the first contact) over a treap, with exact orientation tests.
 *
 * It refuses everything turf's quadratic `kinks` finds (two edges that are not neighbours in
 * their ring share a point; a repeated position between edges that turn) and, beyond it, what
 * `kinks` lets through because it skips parallel edges: edges that overlap or touch along one line
 * (spikes, folds) and rings of fewer than 3 distinct positions. Rings must be closed (last = first).
 */
export function ringsIntersect(rings: readonly (readonly Position[])[]): boolean {
  let total = 0;
  const cyclic: Position[][] = [];
  for (const ring of rings) {
    const vertices = distinctVertices(ring);
    if (vertices === null) return true;
    cyclic.push(vertices);
    total += vertices.length;
  }
  const segments = new Segments(total);
  for (const vertices of cyclic) segments.addRing(vertices);
  return sweep(segments);
}

/** Segments as parallel arrays: `p` is the lexicographically smaller (x, then y) endpoint. */
class Segments {
  readonly px: Float64Array;
  readonly py: Float64Array;
  readonly qx: Float64Array;
  readonly qy: Float64Array;
  /** Where the segment's ring starts, its place in the ring, the ring's size: for neighbours. */
  readonly first: Int32Array;
  readonly index: Int32Array;
  readonly size: Int32Array;
  count = 0;

  constructor(capacity: number) {
    this.px = new Float64Array(capacity);
    this.py = new Float64Array(capacity);
    this.qx = new Float64Array(capacity);
    this.qy = new Float64Array(capacity);
    this.first = new Int32Array(capacity);
    this.index = new Int32Array(capacity);
    this.size = new Int32Array(capacity);
  }

  addRing(vertices: Position[]): void {
    const m = vertices.length;
    const first = this.count;
    for (let j = 0; j < m; j++) {
      const a = vertices[j]!;
      const b = vertices[(j + 1) % m]!;
      const s = this.count++;
      const forward = a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
      this.px[s] = forward ? a[0] : b[0];
      this.py[s] = forward ? a[1] : b[1];
      this.qx[s] = forward ? b[0] : a[0];
      this.qy[s] = forward ? b[1] : a[1];
      this.first[s] = first;
      this.index[s] = j;
      this.size[s] = m;
    }
  }

  /** > 0 when (x, y) lies left of (above) the segment p→q, 0 on its line. */
  side(s: number, x: number, y: number): number {
    return ccw(this.px[s]!, this.py[s]!, this.qx[s]!, this.qy[s]!, x, y);
  }

  adjacent(s: number, t: number): boolean {
    if (this.first[s] !== this.first[t]) return false;
    const d = Math.abs(this.index[s]! - this.index[t]!);
    return d === 1 || d === this.size[s]! - 1;
  }

  /** Closed segments share a point (crossing, touching or overlapping). */
  touch(s: number, t: number): boolean {
    const d1 = this.side(s, this.px[t]!, this.py[t]!);
    const d2 = this.side(s, this.qx[t]!, this.qy[t]!);
    const d3 = this.side(t, this.px[s]!, this.py[s]!);
    const d4 = this.side(t, this.qx[s]!, this.qy[s]!);
    if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
    return (
      (d1 === 0 && this.within(s, this.px[t]!, this.py[t]!)) ||
      (d2 === 0 && this.within(s, this.qx[t]!, this.qy[t]!)) ||
      (d3 === 0 && this.within(t, this.px[s]!, this.py[s]!)) ||
      (d4 === 0 && this.within(t, this.qx[s]!, this.qy[s]!))
    );
  }

  /** A point known to be on the segment's line lies between its ends. */
  private within(s: number, x: number, y: number): boolean {
    return (
      this.px[s]! <= x &&
      x <= this.qx[s]! &&
      Math.min(this.py[s]!, this.qy[s]!) <= y &&
      y <= Math.max(this.py[s]!, this.qy[s]!)
    );
  }

  /** Segments that newly face each other in the sweep must not meet, unless they are ring neighbours. */
  clash(s: number, t: number): boolean {
    return s >= 0 && t >= 0 && !this.adjacent(s, t) && this.touch(s, t);
  }
}

/**
 * A ring's distinct positions, cyclic (the closing position dropped), repeats collapsed; null when
 * the ring is degenerate or a repeat sits between two edges that turn (which `kinks` reports, since
 * for it the edges around a repeat are not neighbours).
 */
function distinctVertices(ring: readonly Position[]): Position[] | null {
  const out: Position[] = [];
  const repeated: number[] = [];
  for (let i = 0; i < ring.length - 1; i++) {
    const v = ring[i]!;
    const last = out[out.length - 1];
    if (last && same(last, v)) repeated.push(out.length - 1);
    else out.push(v);
  }
  if (out.length > 1 && same(out[0]!, out[out.length - 1]!)) {
    out.pop();
    repeated.push(0);
  }
  const m = out.length;
  if (m < 3) return null;
  for (const repeat of repeated) {
    // The dropped closing position is position 0 again.
    const j = repeat % m;
    const a = out[(j + m - 1) % m]!;
    const v = out[j]!;
    const b = out[(j + 1) % m]!;
    if (ccw(a[0], a[1], v[0], v[1], b[0], b[1]) !== 0) return null;
  }
  return out;
}

function same(a: Position, b: Position): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

/** > 0 when c lies left of the line a→b, exactly (robust-predicates' sign is the opposite). */
function ccw(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return -orient2d(ax, ay, bx, by, cx, cy);
}

function sweep(segments: Segments): boolean {
  const n = segments.count;
  const { px, py, qx, qy } = segments;
  // Event e is the start of segment e >> 1 when e is even, its end when odd.
  const events = new Uint32Array(2 * n);
  for (let e = 0; e < 2 * n; e++) events[e] = e;
  const ex = (e: number) => ((e & 1) === 0 ? px[e >> 1]! : qx[e >> 1]!);
  const ey = (e: number) => ((e & 1) === 0 ? py[e >> 1]! : qy[e >> 1]!);
  events.sort((a, b) => ex(a) - ex(b) || ey(a) - ey(b));
  const order = new Treap(n);
  const starting: number[] = [];
  const ending: number[] = [];
  for (let i = 0; i < events.length; ) {
    const vx = ex(events[i]!);
    const vy = ey(events[i]!);
    starting.length = 0;
    ending.length = 0;
    for (; i < events.length && ex(events[i]!) === vx && ey(events[i]!) === vy; i++) {
      const e = events[i]!;
      ((e & 1) === 0 ? starting : ending).push(e >> 1);
    }
    // A distinct ring vertex has exactly two edges; more means rings meet here.
    if (starting.length + ending.length !== 2) return true;
    // Segments of the sweep through v: those ending here, and any passing through (a contact).
    const low = order.firstNotBelow(segments, vx, vy);
    let through = 0;
    let high = low;
    while (high >= 0 && segments.side(high, vx, vy) === 0) {
      if (qx[high] !== vx || qy[high] !== vy) return true;
      through++;
      high = order.next(high);
    }
    if (through !== ending.length) return true;
    const below = low >= 0 ? order.previous(low) : order.last();
    if (starting.length === 2) {
      const [s, t] = starting as [number, number];
      const turn = ccw(vx, vy, qx[s]!, qy[s]!, qx[t]!, qy[t]!);
      if (turn === 0) return true;
      if (turn < 0) starting.reverse();
    }
    if (ending.length === 2) {
      const [s, t] = ending as [number, number];
      if (ccw(vx, vy, px[s]!, py[s]!, px[t]!, py[t]!) === 0) return true;
    }
    for (const s of ending) order.remove(s);
    let after = below;
    for (const s of starting) {
      order.insertAfter(after, s);
      after = s;
    }
    if (starting.length === 0) {
      if (segments.clash(below, high)) return true;
    } else if (segments.clash(below, starting[0]!) || segments.clash(starting[starting.length - 1]!, high)) {
      return true;
    }
  }
  return false;
}

/**
 * The sweep's bottom-to-top order of segments, a treap whose node i is segment i (-1 is none).
 * Places are given by neighbours, never by keys: before the first contact no two segments swap,
 * so an order set at insertion stays true.
 */
class Treap {
  private readonly left: Int32Array;
  private readonly right: Int32Array;
  private readonly parent: Int32Array;
  private readonly priority: Uint32Array;
  private root = -1;
  /** A fixed-seed xorshift: balance without Math.random, the same shape on every run. */
  private seed = 0x2545f491;

  constructor(capacity: number) {
    this.left = new Int32Array(capacity).fill(-1);
    this.right = new Int32Array(capacity).fill(-1);
    this.parent = new Int32Array(capacity).fill(-1);
    this.priority = new Uint32Array(capacity);
  }

  /** The lowest segment that the point is not strictly above. */
  firstNotBelow(segments: Segments, x: number, y: number): number {
    let node = this.root;
    let found = -1;
    while (node >= 0) {
      if (segments.side(node, x, y) > 0) node = this.right[node]!;
      else {
        found = node;
        node = this.left[node]!;
      }
    }
    return found;
  }

  last(): number {
    let node = this.root;
    while (node >= 0 && this.right[node]! >= 0) node = this.right[node]!;
    return node;
  }

  next(node: number): number {
    let n = this.right[node]!;
    if (n >= 0) {
      while (this.left[n]! >= 0) n = this.left[n]!;
      return n;
    }
    n = node;
    while (this.parent[n]! >= 0 && this.right[this.parent[n]!] === n) n = this.parent[n]!;
    return this.parent[n]!;
  }

  previous(node: number): number {
    let n = this.left[node]!;
    if (n >= 0) {
      while (this.right[n]! >= 0) n = this.right[n]!;
      return n;
    }
    n = node;
    while (this.parent[n]! >= 0 && this.left[this.parent[n]!] === n) n = this.parent[n]!;
    return this.parent[n]!;
  }

  /** Puts the node right above `after` (at the bottom when -1). */
  insertAfter(after: number, node: number): void {
    this.seed ^= this.seed << 13;
    this.seed ^= this.seed >>> 17;
    this.seed ^= this.seed << 5;
    this.priority[node] = this.seed >>> 0;
    if (this.root < 0) {
      this.root = node;
      return;
    }
    let n: number;
    if (after < 0) {
      n = this.root;
      while (this.left[n]! >= 0) n = this.left[n]!;
      this.left[n] = node;
    } else if (this.right[after]! < 0) {
      n = after;
      this.right[n] = node;
    } else {
      n = this.right[after]!;
      while (this.left[n]! >= 0) n = this.left[n]!;
      this.left[n] = node;
    }
    this.parent[node] = n;
    while (this.parent[node]! >= 0 && this.priority[this.parent[node]!]! < this.priority[node]!)
      this.rotateUp(node);
  }

  remove(node: number): void {
    for (;;) {
      const l = this.left[node]!;
      const r = this.right[node]!;
      if (l < 0 || r < 0) break;
      this.rotateUp(this.priority[l]! > this.priority[r]! ? l : r);
    }
    const child = this.left[node]! >= 0 ? this.left[node]! : this.right[node]!;
    if (child >= 0) this.parent[child] = this.parent[node]!;
    this.replace(node, child);
    this.left[node] = this.right[node] = this.parent[node] = -1;
  }

  /** Lifts a node above its parent, keeping the in-order sequence. */
  private rotateUp(node: number): void {
    const parent = this.parent[node]!;
    if (this.left[parent] === node) {
      const inner = this.right[node]!;
      this.left[parent] = inner;
      if (inner >= 0) this.parent[inner] = parent;
      this.right[node] = parent;
    } else {
      const inner = this.left[node]!;
      this.right[parent] = inner;
      if (inner >= 0) this.parent[inner] = parent;
      this.left[node] = parent;
    }
    this.replace(parent, node);
    this.parent[node] = this.parent[parent]!;
    this.parent[parent] = node;
  }

  /** Puts `child` where `node` hung from its parent (or at the root). */
  private replace(node: number, child: number): void {
    const parent = this.parent[node]!;
    if (parent < 0) this.root = child;
    else if (this.left[parent] === node) this.left[parent] = child;
    else this.right[parent] = child;
  }
}
