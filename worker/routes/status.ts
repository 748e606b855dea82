import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import type { Bindings, Db } from "../env";
import { success } from "../lib/jsend";
import { jsonBody, responses, security, timeInput } from "../lib/openapi";
import { Status } from "../schemas/airspace";
import {
  bufferField,
  flag,
  geometryBody,
  geometryText,
  queryGeometryFrom,
  selectedTypes,
  timeWindowFrom,
  typeList,
} from "../schemas/queryFields";
import { type StatusRequest, statusAtPoint, statusOfArea } from "../services/airspaceStatus";

const DEFAULT_BUFFER_M = 1_000;

/** The members every status query shares (CONTRACT §7 and the SDKs' status query). */
const common = {
  types: typeList("Only these types (default all)").optional(),
  ignored_types: typeList("Leave out these types").optional(),
  buffer: bufferField(DEFAULT_BUFFER_M),
  datetime: timeInput
    .optional()
    .openapi({ description: "The instant asked about (default now): time-bound airspace then" }),
  start: timeInput.optional().openapi({ description: "Or a window: its start…" }),
  end: timeInput.optional().openapi({ description: "…and end (default the start)" }),
  weather: flag.optional().openapi({ description: "Add the weather there at that time" }),
};
const latitude = z.coerce.number().min(-90).max(90);
const longitude = z.coerce.number().min(-180).max(180);

const PointQuery = z.object({ latitude, longitude, ...common });
const geometryQuery = (geometry: z.ZodType) =>
  z.object({
    geometry,
    latitude: latitude
      .optional()
      .openapi({ description: "Where the weather is read (default the geometry's middle)" }),
    longitude: longitude.optional(),
    ...common,
  });
type StatusInput = z.infer<typeof PointQuery> | z.infer<ReturnType<typeof geometryQuery>>;

const point = createRoute({
  method: "get",
  path: "/status/v2/point",
  tags: ["Rules and advisories"],
  summary:
    "Airspace around a point (the older query): controlled airspace split into facility-map cells, and the distance to the nearest advisory",
  security,
  request: { query: PointQuery },
  responses: responses(Status, "Advisories within the buffer"),
});

const AREA_SUMMARY = {
  Polygon:
    "Airspace that meets a polygon or comes within `buffer` of it, colored by the rulesets that apply there by default; controlled airspace whole, with the LAANC properties of the cells under the area",
  LineString: "Airspace along a path: as the polygon query, measured to the line",
} as const;

function areaRoutes(kind: "Polygon" | "LineString", path: string) {
  const get = createRoute({
    method: "get",
    path,
    tags: ["Rules and advisories"],
    summary: AREA_SUMMARY[kind],
    security,
    request: { query: geometryQuery(geometryText(kind)) },
    responses: responses(Status, "Advisories within the buffer"),
  });
  const post = createRoute({
    method: "post",
    path,
    tags: ["Rules and advisories"],
    summary: `${AREA_SUMMARY[kind]} (the GET's answer from a JSON body, for large geometries)`,
    security,
    request: { body: jsonBody(geometryQuery(geometryBody(kind)).openapi(`${kind}StatusRequest`)) },
    responses: responses(Status, "Advisories within the buffer"),
  });
  return { get, post };
}
const polygon = areaRoutes("Polygon", "/status/v2/polygon");
const path = areaRoutes("LineString", "/status/v2/path");

/** `datetime` is an instant; `start`/`end` a window; now when neither is given. */
const windowOf = (input: StatusInput) => timeWindowFrom(input.start ?? input.datetime, input.end);

/** The fields every status query shares: types, window, buffer and whether to add the weather. */
function statusRequest(input: StatusInput): StatusRequest {
  const types = selectedTypes(input.types, input.ignored_types);
  const window = windowOf(input);
  return { types, window, buffer: input.buffer ?? DEFAULT_BUFFER_M, weather: input.weather };
}

function pointAnswer(db: Db, env: Bindings, input: z.infer<typeof PointQuery>) {
  return statusAtPoint(db, env, [input.longitude, input.latitude], statusRequest(input));
}

function areaAnswer(
  db: Db,
  env: Bindings,
  kind: "Polygon" | "LineString",
  input: z.infer<ReturnType<typeof geometryQuery>>,
) {
  const query = queryGeometryFrom(input.geometry, [kind]);
  return statusOfArea(db, env, query, input, statusRequest(input));
}

export const statusRoutes = createRouter()
  .openapi(point, async (c) => success(c, await pointAnswer(c.var.db, c.env, c.req.valid("query"))))
  .openapi(polygon.get, async (c) =>
    success(c, await areaAnswer(c.var.db, c.env, "Polygon", c.req.valid("query"))),
  )
  .openapi(polygon.post, async (c) =>
    success(c, await areaAnswer(c.var.db, c.env, "Polygon", c.req.valid("json"))),
  )
  .openapi(path.get, async (c) =>
    success(c, await areaAnswer(c.var.db, c.env, "LineString", c.req.valid("query"))),
  )
  .openapi(path.post, async (c) =>
    success(c, await areaAnswer(c.var.db, c.env, "LineString", c.req.valid("json"))),
  );
