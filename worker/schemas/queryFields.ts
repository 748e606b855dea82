import { z } from "@hono/zod-openapi";
import { checkAirspaceTypes, checkArea, checkRulesetIds, checkWindow } from "../domain/airspace/inputs";
import {
  checkQueryGeometry,
  type QueryGeometry,
  type QueryGeometryType,
} from "../domain/airspace/queryGeometry";
import { AIRSPACE_TYPES } from "../domain/airspace/types";
import { type Polygon, unwrapGeometry } from "../domain/geojson";
import type { Checked } from "../domain/problem";
import { looksLikeWkt, parseWkt } from "../domain/wkt";
import { problemError } from "../lib/errors";
import { geometryInput } from "../lib/openapi";
import { parseTime } from "../lib/time";

/**
 * The inputs of the airspace queries as HTTP carries them: the fields their GET and POST forms share
 * (one schema per query, built once with the geometry as query text and once as text or a JSON
 * object), and the parsers of comma lists, JSON text and times that hand the domain its values.
 * A problem the domain finds is thrown as its JSend error here.
 */

/** CONTRACT §7: buffers are meters, 0 to 20 km. */
export const MAX_BUFFER_M = 20_000;

/** `true`/`false` as a query sends it (also `1`/`0`), or a JSON boolean in a body. */
export const flag = z.union([
  z.boolean(),
  z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1"),
]);

export const typeList = (what: string) =>
  z.union([z.string(), z.array(z.string())]).openapi({
    description: `${what}: comma-separated (or an array in a body) of ${AIRSPACE_TYPES.join(", ")}`,
  });

export const bufferField = (defaultM: number) =>
  z.coerce
    .number()
    .min(0)
    .max(MAX_BUFFER_M)
    .optional()
    .openapi({
      description: `Meters around the geometry to include (default ${defaultM}, at most ${MAX_BUFFER_M})`,
    });

/** The geometry in a query string: GeoJSON as (URL-encoded) JSON text. */
export const geometryText = (kinds: string) =>
  z.string().openapi({
    description: `GeoJSON ${kinds} as JSON text, URL-encoded, or WKT (\`POLYGON((lon lat,…))\`, \`LINESTRING(lon lat,…)\`)`,
  });

/** The geometry in a body: a GeoJSON object, or its JSON text as the query form carries it. */
export const geometryBody = (kinds: string) =>
  z.union([geometryInput, z.string()]).openapi({ description: `GeoJSON ${kinds} (or its JSON text)` });

/** The value of a domain check, or its problems thrown as the JSend error (400, 413 when too large). */
export function checkedValue<T>(result: Checked<T>): T {
  if (!result.ok) throw problemError(result.problems);
  return result.value;
}

/**
 * JSON text as a query string carries a geometry, or WKT as the Android SDK sends it
 * (domain/wkt.ts); any other value as it is.
 */
function jsonOf(input: unknown, notJson: string): unknown {
  if (typeof input !== "string") return input;
  if (looksLikeWkt(input)) {
    const parsed = parseWkt(input);
    if (!parsed.ok) throw problemError([{ field: "geometry", message: parsed.message }]);
    return parsed.geometry;
  }
  try {
    return JSON.parse(input);
  } catch {
    throw problemError([{ field: "geometry", message: notJson }]);
  }
}

/** The flight area of a query: a Polygon object, its JSON text, or either wrapped in `{geometry}`. */
export function areaFrom(input: unknown): Polygon {
  const value = jsonOf(input, "is not JSON; send a URL-encoded GeoJSON Polygon");
  const unwrapped = unwrapGeometry(value);
  return unwrapped !== value ? areaFrom(unwrapped) : checkedValue(checkArea(value));
}

/** The geometry of a status or airspace search query, from a GeoJSON object or its JSON text. */
export function queryGeometryFrom(input: unknown, allowed: readonly QueryGeometryType[]): QueryGeometry {
  const value = jsonOf(input, "is not JSON; send a GeoJSON geometry (URL-encoded in a query)");
  return checkedValue(checkQueryGeometry(unwrapGeometry(value), allowed));
}

/** Ruleset ids from a comma-separated string or an array; at least one. */
export function rulesetIdsFrom(input: unknown, field = "rulesets"): string[] {
  const parts = Array.isArray(input) ? input : typeof input === "string" ? input.split(",") : [input];
  return checkedValue(checkRulesetIds(parts, field));
}

const TIME_FORMAT = "use ISO 8601 with an offset or Z, or `now`";

/** `start` and `end` (time or `now`) of a query; both default to now, and end defaults to start. */
export function timeWindowFrom(start: string | undefined, end: string | undefined, now = Date.now()) {
  const from = start === undefined ? now : parseTime(start, now);
  if (from === undefined) throw problemError([{ field: "start", message: TIME_FORMAT }]);
  const to = end === undefined ? from : parseTime(end, now);
  if (to === undefined) throw problemError([{ field: "end", message: TIME_FORMAT }]);
  return checkedValue(checkWindow(from, to));
}

/** A list of airspace types, comma-separated or an array; undefined when it names none. */
export function typeListFrom(input: string | string[] | undefined, field: string): string[] | undefined {
  if (input === undefined) return undefined;
  return checkedValue(checkAirspaceTypes(Array.isArray(input) ? input : input.split(","), field));
}

/** The types a query asks for: `types` (default every type) less `ignored_types`; undefined is all. */
export function selectedTypes(
  types: string | string[] | undefined,
  ignored: string | string[] | undefined,
): string[] | undefined {
  const wanted = typeListFrom(types, "types");
  const left = typeListFrom(ignored, "ignored_types");
  if (!left) return wanted;
  return (wanted ?? AIRSPACE_TYPES).filter((t) => !left.includes(t));
}
