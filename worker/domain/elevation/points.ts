/** A position as the elevation API writes it: [latitude, longitude]. */
export type LatLng = [number, number];

/** A request whose `points` cannot be served as given; the route answers 400 naming `points`. */
export class PointsError extends Error {}

/** Contract §6: at most this many points in one `/ele` request. */
export const MAX_POINTS = 10_000;

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Parses the flat `lat,lng,lat,lng…` list; any fault is a PointsError saying what to send. */
export function parsePoints(text: string, maxPoints = MAX_POINTS): LatLng[] {
  const items = text.split(",").map((item) => item.trim());
  if (text.trim() === "") throw new PointsError("give latitude,longitude pairs separated by commas");
  const numbers = items.map((item, i) => {
    if (!DECIMAL.test(item)) {
      throw new PointsError(`item ${i + 1} (${JSON.stringify(item.slice(0, 32))}) is not a decimal number`);
    }
    return Number(item);
  });
  if (numbers.length % 2 !== 0) {
    throw new PointsError(`${numbers.length} numbers is an odd count: give latitude,longitude pairs`);
  }
  if (numbers.length / 2 > maxPoints) {
    throw new PointsError(`${numbers.length / 2} points; at most ${maxPoints} in one request`);
  }
  const points: LatLng[] = [];
  for (let i = 0; i < numbers.length; i += 2) {
    const lat = numbers[i]!;
    const lng = numbers[i + 1]!;
    const n = i / 2 + 1;
    if (!(lat >= -90 && lat <= 90)) throw new PointsError(`latitude ${lat} of point ${n} is outside -90..90`);
    if (!(lng >= -180 && lng <= 180)) {
      throw new PointsError(`longitude ${lng} of point ${n} is outside -180..180`);
    }
    points.push([lat, lng]);
  }
  return points;
}

/** The two corners of a carpet: south-west, then north-east. */
export function parseRectangle(text: string): { sw: LatLng; ne: LatLng } {
  const points = parsePoints(text);
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
export function parsePath(text: string): LatLng[] {
  const points = parsePoints(text);
  if (points.length < 2) throw new PointsError("a path needs at least two points (4 numbers)");
  return points;
}
