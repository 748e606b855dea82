import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { pointStatus } from "../domain/airspace/advisories";
import { airspaceTypesFrom, timeWindowFrom } from "../domain/airspace/inputs";
import { AIRSPACE_TYPES } from "../domain/airspace/types";
import { success } from "../lib/jsend";
import { responses, security, timeInput } from "../lib/openapi";
import { statusInputs } from "../store/airspace";
import { AdvisoryFields } from "./advisory";

/** CONTRACT §7: the buffer is meters, 0 to 20 km. */
const MAX_BUFFER_M = 20_000;
const DEFAULT_BUFFER_M = 1_000;

const StatusAdvisory = AdvisoryFields.openapi("StatusAdvisory");

const status = createRoute({
  method: "get",
  path: "/status/v2/point",
  tags: ["Rules and advisories"],
  summary:
    "Airspace around a point (the older query): controlled airspace split into facility-map cells, and the distance to the nearest advisory",
  security,
  request: {
    query: z.object({
      latitude: z.coerce.number().min(-90).max(90),
      longitude: z.coerce.number().min(-180).max(180),
      types: z
        .string()
        .optional()
        .openapi({
          description: `Comma-separated airspace types (default all): ${AIRSPACE_TYPES.join(", ")}`,
        }),
      buffer: z.coerce
        .number()
        .min(0)
        .max(MAX_BUFFER_M)
        .optional()
        .openapi({ description: `Meters around the point to include (default ${DEFAULT_BUFFER_M})` }),
      start: timeInput.optional(),
      end: timeInput.optional(),
    }),
  },
  responses: responses(
    z.object({
      max_safe_distance: z.number(),
      advisory_color: z.enum(["green", "yellow", "orange", "red"]),
      advisories: z.array(StatusAdvisory),
    }),
    "Advisories within the buffer",
  ),
});

export const statusRoutes = createRouter().openapi(status, async (c) => {
  const query = c.req.valid("query");
  const types = airspaceTypesFrom(query.types);
  const window = timeWindowFrom(query.start, query.end);
  const buffer = query.buffer ?? DEFAULT_BUFFER_M;
  const point: [number, number] = [query.longitude, query.latitude];
  const { rulesets, features, cells } = await statusInputs(c.var.db, point, buffer, { types, ...window });
  return success(
    c,
    pointStatus({
      point,
      buffer,
      features,
      cells,
      rulesets,
      includeCells: !types || types.includes("controlled_airspace"),
    }),
  );
});
