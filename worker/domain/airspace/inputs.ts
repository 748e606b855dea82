import { badRequest } from "../../lib/errors";
import { parseTime } from "../../lib/time";
import { geometryError, geometryProblem } from "../flightArea";
import { bboxOf, type Polygon, unwrapGeometry } from "../geojson";
import { AIRSPACE_TYPES } from "./types";

/** Request inputs of the rules, advisory and status queries, checked the same way everywhere. */

/** Airspace queries read every record under an area's box: at most a degree across. */
const MAX_AREA_SPAN_DEG = 1;

/** The 400 for an area too wide to answer in one query; null when it fits. */
export function areaSizeError(area: Polygon) {
  const box = bboxOf(area);
  if (box.maxLat - box.minLat <= MAX_AREA_SPAN_DEG && box.maxLng - box.minLng <= MAX_AREA_SPAN_DEG)
    return null;
  return badRequest(
    "geometry",
    `spans more than ${MAX_AREA_SPAN_DEG}° of latitude or longitude; split the area`,
  );
}

/** The flight area of a query: a valid GeoJSON Polygon (400 naming `geometry`, 413 when huge). */
export function areaFrom(input: unknown): Polygon {
  if (typeof input === "string") {
    try {
      return areaFrom(JSON.parse(input));
    } catch (err) {
      if (err instanceof SyntaxError)
        throw badRequest("geometry", "is not JSON; send a URL-encoded GeoJSON Polygon");
      throw err;
    }
  }
  const unwrapped = unwrapGeometry(input);
  if (unwrapped !== input) return areaFrom(unwrapped);
  if ((input as { type?: unknown } | null)?.type !== "Polygon")
    throw badRequest("geometry", "must be a GeoJSON Polygon");
  const problem = geometryProblem(input, undefined);
  if (problem) throw geometryError(problem);
  const tooWide = areaSizeError(input as Polygon);
  if (tooWide) throw tooWide;
  return input as Polygon;
}

/** Ruleset ids from a comma-separated string or an array; at least one. */
export function rulesetIdsFrom(input: unknown, name = "rulesets"): string[] {
  const parts = Array.isArray(input) ? input : typeof input === "string" ? input.split(",") : undefined;
  if (!parts?.every((p) => typeof p === "string"))
    throw badRequest(name, "give ruleset ids, comma-separated or as an array");
  const ids = [...new Set(parts.map((p) => p.trim()).filter((p) => p !== ""))];
  if (ids.length === 0) throw badRequest(name, "give at least one ruleset id (see POST /rules/v1/)");
  return ids;
}

/** The 400 for ruleset ids that name no ruleset. */
export function unknownRulesetsError(unknown: string[], name = "rulesets") {
  return badRequest(name, `unknown ruleset ${unknown.join(", ")}; POST /rules/v1/ lists those for an area`);
}

/** `start` and `end` (time or `now`) of a query; both default to now, and end defaults to start. */
export function timeWindowFrom(start: string | undefined, end: string | undefined, now = Date.now()) {
  const from = start === undefined ? now : parseTime(start, now);
  if (from === undefined) throw badRequest("start", "use ISO 8601 with an offset or Z, or `now`");
  const to = end === undefined ? from : parseTime(end, now);
  if (to === undefined) throw badRequest("end", "use ISO 8601 with an offset or Z, or `now`");
  if (to < from) throw badRequest("end", "must not be before start");
  return { start: from, end: to };
}

/** Airspace types of the status query; unknown ones are named with the valid list. */
export function airspaceTypesFrom(input: string | undefined): string[] | undefined {
  if (input === undefined || input.trim() === "") return undefined;
  const types = [
    ...new Set(
      input
        .split(",")
        .map((t) => t.trim())
        .filter((t) => t !== ""),
    ),
  ];
  const unknown = types.filter((t) => !AIRSPACE_TYPES.includes(t));
  if (unknown.length > 0)
    throw badRequest("types", `unknown type ${unknown.join(", ")}; valid: ${AIRSPACE_TYPES.join(", ")}`);
  return types;
}
