import { z } from "@hono/zod-openapi";
import { parseTime } from "./time";

/** Shared OpenAPI pieces: the JSend envelopes every route documents. */
export const failResponse = z
  .object({
    status: z.literal("fail"),
    data: z.object({
      code: z.number().int(),
      message: z.string(),
      errors: z.array(z.object({ name: z.string(), message: z.string() })),
    }),
  })
  .openapi("Fail");

export function successOf<T extends z.ZodType>(data: T) {
  return z.object({ status: z.literal("success"), data });
}

/** Standard responses: 200 with `data`, and the JSend failures a route can answer. */
export function responses<T extends z.ZodType>(data: T, description: string) {
  const fail = { content: { "application/json": { schema: failResponse } } };
  return {
    200: { content: { "application/json": { schema: successOf(data) } }, description },
    400: { ...fail, description: "Invalid input; `errors` names every invalid field" },
    401: { ...fail, description: "Missing or invalid API key or token" },
    403: { ...fail, description: "Authenticated, but not allowed" },
    404: { ...fail, description: "No such record" },
    409: { ...fail, description: "The record's state does not allow this" },
    429: { ...fail, description: "Rate limited; see Retry-After" },
  } as const;
}

export const security = [{ ApiKey: [] as string[] }];
export const securityWithToken = [{ ApiKey: [] as string[], Bearer: [] as string[] }];

/** `true`/`false` query flags as real clients send them. */
export const booleanFlag = z
  .enum(["true", "false", "1", "0"])
  .transform((v) => v === "true" || v === "1")
  .optional();

/** Record ids as path parameters; Hono has already percent-decoded them (`%7C` → `|`). */
export const recordId = (name: string) =>
  z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name, in: "path" }, example: `${name.replace(/_id$/, "")}|abc` });

/** A time parameter: ISO 8601 with an offset or `Z`, or `now` (CONTRACT §2). */
export const timeInput = z
  .string()
  .refine((v) => parseTime(v) !== undefined, {
    message: "use ISO 8601 with an offset or Z (e.g. 2026-11-21T10:00:00Z), or `now`",
  })
  .openapi({ example: "2026-11-21T10:00:00Z" });

/**
 * A real area (the ridge above Jacksboro, TN, inside the embedded elevation), so "Try it out" and
 * examples start from a body the API accepts, over ground it knows.
 */
export const EXAMPLE_POLYGON = {
  type: "Polygon" as const,
  coordinates: [
    [
      [-84.121, 36.3],
      [-84.117, 36.3],
      [-84.117, 36.303],
      [-84.121, 36.303],
      [-84.121, 36.3],
    ],
  ],
};

/** A GeoJSON geometry; its shape is checked in the domain so every problem names `geometry`. */
export const geometryInput = z
  .object({ type: z.string(), coordinates: z.unknown() })
  .passthrough()
  .openapi("Geometry", {
    description: "GeoJSON geometry; positions are [longitude, latitude]",
    example: EXAMPLE_POLYGON,
  });

/**
 * A body of `schema` as JSON or as a form (the Android SDK posts and patches forms: AirMapClient.java
 * `bodyFromMap`). Neither is required by the route: the handler takes the one that came with
 * `jsonOrForm`, which refuses a missing body by the schema's own rules.
 */
export const jsonOrFormBody = <T extends z.ZodType>(schema: T) => ({
  content: {
    "application/json": { schema },
    "application/x-www-form-urlencoded": { schema },
  },
});

/** A required JSON request body of `schema` (bodies carry up to 1 MiB, more than a URL may). */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  content: { "application/json": { schema } },
  required: true as const,
});
