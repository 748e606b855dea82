import { geometryProblem } from "../flightArea";
import { bboxOf, type Polygon } from "../geojson";
import { type Checked, checked, type Problem, problem } from "../problem";
import { AIRSPACE_TYPES } from "./types";

/**
 * What the rules, advisory and status queries accept, checked the same way everywhere. Problems are
 * values; the HTTP layer (schemas/queryFields.ts, services) turns them into JSend errors.
 */

/** Airspace queries read every record under an area's box: at most a degree across. */
const MAX_AREA_SPAN_DEG = 1;

/** The problem of an area too wide to answer in one query; null when it fits. */
export function areaSizeProblem(area: Polygon): Problem | null {
  const box = bboxOf(area);
  if (box.maxLat - box.minLat <= MAX_AREA_SPAN_DEG && box.maxLng - box.minLng <= MAX_AREA_SPAN_DEG)
    return null;
  return {
    field: "geometry",
    message: `spans more than ${MAX_AREA_SPAN_DEG}° of latitude or longitude; split the area`,
  };
}

/** The flight area of a query: a valid GeoJSON Polygon at most a degree across (too many positions is `tooLarge`). */
export function checkArea(value: unknown): Checked<Polygon> {
  if ((value as { type?: unknown } | null)?.type !== "Polygon")
    return problem("geometry", "must be a GeoJSON Polygon");
  const invalid = geometryProblem(value, undefined) ?? areaSizeProblem(value as Polygon);
  return invalid ? { ok: false, problems: [invalid] } : checked(value as Polygon);
}

/** Ruleset ids as given (trimmed, without blanks or repeats); at least one. */
export function checkRulesetIds(parts: unknown[], field = "rulesets"): Checked<string[]> {
  if (!parts.every((p) => typeof p === "string"))
    return problem(field, "give ruleset ids, comma-separated or as an array");
  const ids = [...new Set(parts.map((p) => p.trim()).filter((p) => p !== ""))];
  if (ids.length === 0) return problem(field, "give at least one ruleset id (see POST /rules/v1/)");
  return checked(ids);
}

/** The problem of ruleset ids that name no ruleset. */
export function unknownRulesetsProblem(unknown: string[], field = "rulesets"): Problem {
  return {
    field,
    message: `unknown ruleset ${unknown.join(", ")}; POST /rules/v1/ lists those for an area`,
  };
}

/** Airspace types as given (trimmed, without blanks or repeats); unknown ones are named with the valid list. */
export function checkAirspaceTypes(parts: string[], field: string): Checked<string[] | undefined> {
  const types = [...new Set(parts.map((t) => t.trim()).filter((t) => t !== ""))];
  if (types.length === 0) return checked(undefined);
  const unknown = types.filter((t) => !AIRSPACE_TYPES.includes(t));
  if (unknown.length > 0)
    return problem(field, `unknown type ${unknown.join(", ")}; valid: ${AIRSPACE_TYPES.join(", ")}`);
  return checked(types);
}

/** A time window: `end` must not come before `start`. */
export function checkWindow(start: number, end: number): Checked<{ start: number; end: number }> {
  return end < start ? problem("end", "must not be before start") : checked({ start, end });
}
