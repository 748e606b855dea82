/** A position as the elevation API writes it: [latitude, longitude]. */
export type LatLng = [number, number];

/** A request whose `points` cannot be served as given; the route answers 400 naming `points`. */
export class PointsError extends Error {}

/** Contract §6: at most this many points in one `/ele` request. */
export const MAX_POINTS = 10_000;

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * `points` as a request gives them: the flat `lat,lng,lat,lng…` string of the GET forms, or, in a
 * POST body, the same string or an array of `[latitude, longitude]` pairs.
 */
export type PointsInput = string | readonly (readonly number[])[];

/** Either form of `points`, checked alike: the same limits and the same messages. */
export function pointsFrom(input: PointsInput, maxPoints = MAX_POINTS): LatLng[] {
  if (typeof input === "string") return parsePoints(input, maxPoints);
  if (input.length === 0) throw new PointsError("give at least one [latitude, longitude] pair");
  if (input.length > maxPoints)
    throw new PointsError(`${input.length} points; at most ${maxPoints} in one request`);
  return input.map((pair, i) => {
    if (pair.length !== 2) {
      throw new PointsError(`point ${i + 1} has ${pair.length} numbers: give [latitude, longitude] pairs`);
    }
    return checkedPoint(pair[0]!, pair[1]!, i + 1);
  });
}

/** Parses the flat `lat,lng,lat,lng…` list; any fault is a PointsError saying what to send. */
export function parsePoints(text: string, maxPoints = MAX_POINTS): LatLng[] {
  if (text.trim() === "") throw new PointsError("give latitude,longitude pairs separated by commas");
  const items = text.split(",");
  // Counted before parsing: an oversized list costs no more than its split.
  if (items.length % 2 === 0 && items.length / 2 > maxPoints) {
    throw new PointsError(`${items.length / 2} points; at most ${maxPoints} in one request`);
  }
  const numbers = items.map((raw, i) => {
    const item = raw.trim();
    if (!DECIMAL.test(item)) {
      throw new PointsError(`item ${i + 1} (${JSON.stringify(item.slice(0, 32))}) is not a decimal number`);
    }
    return Number(item);
  });
  if (numbers.length % 2 !== 0) {
    throw new PointsError(`${numbers.length} numbers is an odd count: give latitude,longitude pairs`);
  }
  const points: LatLng[] = [];
  for (let i = 0; i < numbers.length; i += 2)
    points.push(checkedPoint(numbers[i]!, numbers[i + 1]!, i / 2 + 1));
  return points;
}

/** Positions as parallel arrays: what the sampler reads, without an array per point. */
export interface Positions {
  lats: Float64Array;
  lngs: Float64Array;
}

/** pointsFrom() as parallel arrays: the same checks, limits and messages. */
export function positionsFrom(input: PointsInput, maxPoints = MAX_POINTS): Positions {
  if (typeof input === "string") {
    const fast = scanPoints(input, maxPoints);
    if (fast) return fast;
  }
  const points = pointsFrom(input, maxPoints);
  const lats = new Float64Array(points.length);
  const lngs = new Float64Array(points.length);
  points.forEach(([lat, lng], i) => {
    lats[i] = lat;
    lngs[i] = lng;
  });
  return { lats, lngs };
}

/** Exact powers of ten: a decimal of at most 15 digits divided by one is the correctly rounded double. */
const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);
const COMMA = 44;
const ENCODER = new TextEncoder();
const DOT = 46;

/**
 * The common `lat,lng,…` list (plain decimals, no spaces or exponents) in one pass over the text's
 * UTF-8 bytes (reading bytes took half the time of charCodeAt over the string), with no string made
 * per number. Undefined for anything else, which parsePoints then reads, so every fault gets its
 * usual message (more numbers than `maxPoints` allows stop the pass there). Until a non-ASCII byte,
 * which ends the pass, byte and character positions agree. A decimal of at most 15 digits is its
 * digits over a power of ten (exact, as Number() reads it); a longer one goes through Number().
 */
function scanPoints(text: string, maxPoints: number): Positions | undefined {
  const bytes = ENCODER.encode(text);
  const length = bytes.length;
  // Each number takes a character and a comma at least: room for all of them without counting the
  // commas first (a pass over the whole text of its own, a third of the scan's time).
  const room = Math.min((length + 1) >> 1, 2 * maxPoints + 1);
  const numbers = new Float64Array(room);
  let count = 0;
  for (let i = 0; ; i++) {
    if (count === room) return undefined;
    const start = i;
    let c = bytes[i]!;
    const negative = c === 45;
    if (negative || c === 43) c = bytes[++i]!;
    let digits = 0;
    let fraction = 0;
    let mantissa = 0;
    for (; c >= 48 && c <= 57; c = bytes[++i]!, digits++) mantissa = mantissa * 10 + (c - 48);
    if (c === DOT) {
      for (c = bytes[++i]!; c >= 48 && c <= 57; c = bytes[++i]!, fraction++)
        mantissa = mantissa * 10 + (c - 48);
    }
    if (digits + fraction === 0 || (i < length && c !== COMMA)) return undefined;
    const value =
      digits + fraction <= 15 ? mantissa / POW10[fraction]! : Math.abs(Number(text.slice(start, i)));
    numbers[count++] = negative ? -value : value;
    if (i >= length) break;
  }
  if (count % 2 !== 0 || count / 2 > maxPoints) return undefined;
  const lats = new Float64Array(count / 2);
  const lngs = new Float64Array(count / 2);
  for (let n = 0; n < lats.length; n++) {
    lats[n] = numbers[2 * n]!;
    lngs[n] = numbers[2 * n + 1]!;
    checkedPoint(lats[n]!, lngs[n]!, n + 1);
  }
  return { lats, lngs };
}

function checkedPoint(lat: number, lng: number, n: number): LatLng {
  if (!(lat >= -90 && lat <= 90)) throw new PointsError(`latitude ${lat} of point ${n} is outside -90..90`);
  if (!(lng >= -180 && lng <= 180))
    throw new PointsError(`longitude ${lng} of point ${n} is outside -180..180`);
  return [lat, lng];
}

/** The two corners of a carpet: south-west, then north-east. */
export function parseRectangle(input: PointsInput): { sw: LatLng; ne: LatLng } {
  const points = pointsFrom(input);
  if (points.length !== 2) {
    throw new PointsError(
      `give two corners, south-west then north-east (4 numbers), not ${points.length * 2} numbers`,
    );
  }
  const [sw, ne] = points as [LatLng, LatLng];
  if (sw[0] > ne[0] || sw[1] > ne[1]) {
    throw new PointsError(`the first corner ${sw.join(",")} is not south-west of the second ${ne.join(",")}`);
  }
  return { sw, ne };
}

/** The milestones of a path: two or more points. */
export function parsePath(input: PointsInput): LatLng[] {
  const points = pointsFrom(input);
  if (points.length < 2) throw new PointsError("a path needs at least two points (4 numbers)");
  return points;
}
