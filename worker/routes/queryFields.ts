import { z } from "@hono/zod-openapi";
import { AIRSPACE_TYPES } from "../domain/airspace/types";
import { geometryInput } from "../lib/openapi";

/**
 * Fields shared by the geometry queries (status, airspace search) in their GET and POST forms: one
 * schema per query, built once with the geometry as query text and once as text or a JSON object.
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
  z.string().openapi({ description: `GeoJSON ${kinds} as JSON text, URL-encoded` });

/** The geometry in a body: a GeoJSON object, or its JSON text as the query form carries it. */
export const geometryBody = (kinds: string) =>
  z.union([geometryInput, z.string()]).openapi({ description: `GeoJSON ${kinds} (or its JSON text)` });

/** A body (up to 1 MiB) carries the large geometries that the HTTP front refuses in a URL. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  content: { "application/json": { schema } },
  required: true,
});
