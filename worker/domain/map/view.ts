import type { BBox, Geometry, Position } from "../geojson";
import { METERS_PER_FOOT } from "../units";

/**
 * The shared map of the deep-link and live pages: a geographic box fitted into an SVG viewBox with
 * an equirectangular projection (true to shape at flight-area scale), north up, and the helpers that
 * keep context geometry small at that scale: projection, clipping to the view, Douglas–Peucker
 * simplification to about a pixel, and a scale bar of a round length.
 */

export interface Frame {
  width: number;
  height: number;
  /** cos(middle latitude): degrees of longitude shrink by this much. */
  xScale: number;
  /** Origin of the drawing in projected degrees (x = lng·xScale, y = −lat). */
  x0: number;
  y0: number;
  /** Pixels per projected degree. */
  scale: number;
  /** The geographic box the drawing shows. */
  box: BBox;
}

export interface FrameOptions {
  width?: number;
  /** Height over width. */
  aspect?: number;
  /** Room around the fitted box, as a share of its larger side. */
  padding?: number;
  /** The smallest span the frame shows, in meters: a tiny area still gets its surroundings. */
  minSpanM?: number;
}

const METERS_PER_DEGREE = 111_320;

/** Fits `box` (padded) into a `width`×`width·aspect` frame, centred, north up. */
export function fitFrame(box: BBox, options: FrameOptions = {}): Frame {
  const width = options.width ?? 640;
  const aspect = options.aspect ?? 0.75;
  const padding = options.padding ?? 0.25;
  const midLat = (box.minLat + box.maxLat) / 2;
  const xScale = Math.cos((midLat * Math.PI) / 180);
  const minX = box.minLng * xScale;
  const maxX = box.maxLng * xScale;
  const minY = -box.maxLat;
  const maxY = -box.minLat;
  const pad = Math.max(maxX - minX, maxY - minY, 1e-6) * padding;
  const minSpan = (options.minSpanM ?? 0) / METERS_PER_DEGREE;
  let frameWidth = Math.max(maxX - minX + 2 * pad, minSpan);
  let frameHeight = Math.max(maxY - minY + 2 * pad, minSpan * aspect);
  if (frameHeight / frameWidth < aspect) frameHeight = frameWidth * aspect;
  else frameWidth = frameHeight / aspect;
  const x0 = (minX + maxX - frameWidth) / 2;
  const y0 = (minY + maxY - frameHeight) / 2;
  const height = Math.round(width * aspect);
  const scale = width / frameWidth;
  return {
    width,
    height,
    xScale,
    x0,
    y0,
    scale,
    box: {
      minLng: x0 / xScale,
      maxLng: (x0 + frameWidth) / xScale,
      maxLat: -y0,
      minLat: -(y0 + frameHeight),
    },
  };
}

export interface Pixel {
  x: number;
  y: number;
}

export function project(frame: Frame, [lng, lat]: Position): Pixel {
  return {
    x: round((lng * frame.xScale - frame.x0) * frame.scale),
    y: round((-lat - frame.y0) * frame.scale),
  };
}

/** Meters per pixel of the frame (the same both ways in this projection). */
export function metersPerPixel(frame: Frame): number {
  return METERS_PER_DEGREE / frame.scale;
}

/** Douglas–Peucker: drops points closer than `tolerance` to the line that would replace them. */
export function simplify(points: Pixel[], tolerance: number): Pixel[] {
  if (points.length <= 2) return points;
  const keep = new Uint8Array(points.length);
  keep[0] = 1;
  keep[points.length - 1] = 1;
  const stack: [number, number][] = [[0, points.length - 1]];
  while (stack.length > 0) {
    const [first, last] = stack.pop()!;
    const a = points[first]!;
    const b = points[last]!;
    let farthest = -1;
    let distance = tolerance;
    for (let i = first + 1; i < last; i++) {
      const d = segmentDistance(points[i]!, a, b);
      if (d > distance) {
        distance = d;
        farthest = i;
      }
    }
    if (farthest >= 0) {
      keep[farthest] = 1;
      stack.push([first, farthest], [farthest, last]);
    }
  }
  return points.filter((_, i) => keep[i] === 1);
}

function segmentDistance(p: Pixel, a: Pixel, b: Pixel): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length2 = dx * dx + dy * dy;
  const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2));
  return Math.hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

/**
 * Sutherland–Hodgman: the part of a closed ring inside the rectangle [min, max]². A ring wholly
 * outside gives an empty ring; edges the clip adds run along the rectangle, which callers put a few
 * pixels beyond the view so they never show.
 */
export function clipRing(ring: Pixel[], min: Pixel, max: Pixel): Pixel[] {
  const edges: [(p: Pixel) => boolean, (a: Pixel, b: Pixel) => Pixel][] = [
    [(p) => p.x >= min.x, (a, b) => atX(a, b, min.x)],
    [(p) => p.x <= max.x, (a, b) => atX(a, b, max.x)],
    [(p) => p.y >= min.y, (a, b) => atY(a, b, min.y)],
    [(p) => p.y <= max.y, (a, b) => atY(a, b, max.y)],
  ];
  let output = ring;
  for (const [inside, cross] of edges) {
    const input = output;
    output = [];
    for (let i = 0; i < input.length; i++) {
      const current = input[i]!;
      const previous = input[(i + input.length - 1) % input.length]!;
      if (inside(current)) {
        if (!inside(previous)) output.push(cross(previous, current));
        output.push(current);
      } else if (inside(previous)) output.push(cross(previous, current));
    }
    if (output.length === 0) break;
  }
  return output;
}

function atX(a: Pixel, b: Pixel, x: number): Pixel {
  const t = (x - a.x) / (b.x - a.x);
  return { x, y: a.y + t * (b.y - a.y) };
}

function atY(a: Pixel, b: Pixel, y: number): Pixel {
  const t = (y - a.y) / (b.y - a.y);
  return { x: a.x + t * (b.x - a.x), y };
}

/** Pixels beyond the view that clipped rings reach, so their added edges stay out of sight. */
const CLIP_MARGIN = 4;

/**
 * An SVG path of a (Multi)Polygon in the frame: each ring projected, simplified to `tolerance`
 * pixels, clipped to the view; rings that vanish are left out. Empty when nothing shows.
 */
export function polygonPath(frame: Frame, geometry: Geometry, tolerance = 1): string {
  const polygons =
    geometry.type === "Polygon"
      ? [geometry.coordinates]
      : geometry.type === "MultiPolygon"
        ? geometry.coordinates
        : [];
  const min = { x: -CLIP_MARGIN, y: -CLIP_MARGIN };
  const max = { x: frame.width + CLIP_MARGIN, y: frame.height + CLIP_MARGIN };
  const parts: string[] = [];
  for (const polygon of polygons) {
    for (const ring of polygon) {
      const open = ring.length > 1 && sameLast(ring) ? ring.slice(0, -1) : ring;
      const inView = clipRing(
        open.map((p) => unrounded(frame, p)),
        min,
        max,
      );
      const clipped = thin(inView, min, max, tolerance);
      if (clipped.length < 3) continue;
      const simple = simplify([...clipped, clipped[0]!], tolerance).slice(0, -1);
      if (simple.length < 3) continue;
      parts.push(`${simple.map((p, i) => `${i === 0 ? "M" : "L"}${round(p.x)} ${round(p.y)}`).join(" ")} Z`);
    }
  }
  return parts.join(" ");
}

/**
 * Before Douglas–Peucker, whose cost grows with the square of a long collinear run: drops points
 * within `tolerance` of the last kept one, and the middle of runs along the clip rectangle (where
 * clipping folds everything outside the view).
 */
function thin(ring: Pixel[], min: Pixel, max: Pixel, tolerance: number): Pixel[] {
  const near: Pixel[] = [];
  for (const p of ring) {
    const last = near[near.length - 1];
    if (!last || Math.abs(p.x - last.x) > tolerance || Math.abs(p.y - last.y) > tolerance) near.push(p);
  }
  const side = (p: Pixel) =>
    p.x === min.x ? 1 : p.x === max.x ? 2 : p.y === min.y ? 3 : p.y === max.y ? 4 : 0;
  return near.filter((p, i) => {
    const s = side(p);
    if (s === 0) return true;
    const before = near[(i + near.length - 1) % near.length]!;
    const after = near[(i + 1) % near.length]!;
    return side(before) !== s || side(after) !== s;
  });
}

function sameLast(ring: Position[]): boolean {
  const a = ring[0]!;
  const b = ring[ring.length - 1]!;
  return a[0] === b[0] && a[1] === b[1];
}

function unrounded(frame: Frame, [lng, lat]: Position): Pixel {
  return { x: (lng * frame.xScale - frame.x0) * frame.scale, y: (-lat - frame.y0) * frame.scale };
}

export function inFrame(frame: Frame, { x, y }: Pixel): boolean {
  return x >= 0 && y >= 0 && x <= frame.width && y <= frame.height;
}

export type DistanceUnit = "metric" | "imperial";

export interface ScaleBar {
  /** Length of the bar in pixels. */
  pixels: number;
  label: string;
  meters: number;
}

const MILE = 1609.344;

/** A bar of a round length (1, 2 or 5 × 10ⁿ m or ft, or miles from a mile up) no longer than `maxPixels`. */
export function scaleBar(frame: Frame, unit: DistanceUnit, maxPixels = frame.width / 4): ScaleBar {
  const mpp = metersPerPixel(frame);
  const maxMeters = maxPixels * mpp;
  const [size, name, big, bigName] =
    unit === "imperial" ? ([METERS_PER_FOOT, "ft", MILE, "mi"] as const) : ([1, "m", 1000, "km"] as const);
  const roundDown = (value: number) => {
    const p10 = 10 ** Math.floor(Math.log10(value));
    return [5, 2, 1].map((f) => f * p10).find((v) => v <= value) ?? p10;
  };
  const bigCount = maxMeters / big;
  const [count, unitSize, label] =
    bigCount >= 1 ? [roundDown(bigCount), big, bigName] : [roundDown(maxMeters / size), size, name];
  const meters = count * unitSize;
  return { pixels: round(meters / mpp), label: `${formatCount(count)} ${label}`, meters };
}

function formatCount(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(3)));
}

export function round(n: number): number {
  return Math.round(n * 10) / 10;
}
