/**
 * A geometry in Alamofire's bracket query form, as the Swift SDK lists flights within an area
 * (AirMapSDK-Swift 0fbabab FlightClient.swift 75 `params["geometry"] = geometry?.params()`, sent with
 * URLEncoding.queryString, HTTPClient.swift 311; Alamofire 4.9 ParameterEncoding.swift
 * `queryComponents`: a dictionary's keys become `key[nested]`, an array's items `key[]`, numbers
 * `"\(number)"`). A polygon arrives as `geometry[type]=Polygon` and one
 * `geometry[coordinates][][][]=<number>` per longitude and latitude, in order: the nesting is lost,
 * so the numbers are read back as positions of one ring (one line, one point), which is all the
 * SDK's AirMapPolygon, AirMapPath and AirMapPoint send. Pure: the GeoJSON, or null when the query
 * carries no bracket geometry.
 */

const TYPES = ["Point", "LineString", "Polygon"] as const;

export type BracketGeometry =
  | { ok: true; geometry: { type: (typeof TYPES)[number]; coordinates: unknown } }
  | { ok: false; message: string };

/** `entries`: the query's decoded name/value pairs, in order. */
export function bracketGeometry(
  entries: Iterable<[string, string]>,
  name = "geometry",
): BracketGeometry | null {
  let type: string | undefined;
  const numbers: number[] = [];
  let seen = false;
  for (const [key, value] of entries) {
    if (key === `${name}[type]`) {
      type = value;
      seen = true;
    } else if (key.startsWith(`${name}[coordinates]`)) {
      numbers.push(Number(value));
      seen = true;
    }
  }
  if (!seen) return null;
  const kind = TYPES.find((t) => t === type);
  if (!kind) return { ok: false, message: `${name}[type] must be one of ${TYPES.join(", ")}` };
  if (numbers.length % 2 !== 0 || numbers.some((n) => !Number.isFinite(n)))
    return { ok: false, message: `${name}[coordinates] must be longitude, latitude pairs of numbers` };
  const positions: number[][] = [];
  for (let i = 0; i < numbers.length; i += 2) positions.push([numbers[i]!, numbers[i + 1]!]);
  if (kind === "Point") {
    if (positions.length !== 1) return { ok: false, message: "a Point takes one longitude and latitude" };
    return { ok: true, geometry: { type: kind, coordinates: positions[0] } };
  }
  if (kind === "LineString") return { ok: true, geometry: { type: kind, coordinates: positions } };
  const [first, last] = [positions[0], positions[positions.length - 1]];
  if (first && last && (first[0] !== last[0] || first[1] !== last[1])) positions.push([...first]);
  return { ok: true, geometry: { type: kind, coordinates: [positions] } };
}
