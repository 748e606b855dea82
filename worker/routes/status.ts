import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { pointStatus } from "../domain/airspace/advisories";
import { areaStatus } from "../domain/airspace/areaStatus";
import { representativePoint } from "../domain/airspace/geometry";
import { withDecodedProperties } from "../domain/airspace/records";
import type { Place } from "../domain/weather/forecast";
import type { Bindings, Db } from "../env";
import { success } from "../lib/jsend";
import { jsonBody, responses, security, timeInput } from "../lib/openapi";
import { Status, type WeatherUpdate } from "../schemas/airspace";
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
import { areaAdvisoryInputs, statusInputs } from "../services/airspace";
import { weatherAt } from "../services/weather";

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

async function statusAtPoint(db: Db, env: Bindings, input: z.infer<typeof PointQuery>) {
  const types = selectedTypes(input.types, input.ignored_types);
  const window = windowOf(input);
  const buffer = input.buffer ?? DEFAULT_BUFFER_M;
  const at: [number, number] = [input.longitude, input.latitude];
  const { rulesets, features, cells } = await statusInputs(db, at, buffer, { types, ...window });
  const status = pointStatus({
    point: at,
    buffer,
    features,
    cells,
    rulesets,
    includeCells: !types || types.includes("controlled_airspace"),
  });
  return withWeather(env, input, input, window.start, {
    ...status,
    advisories: status.advisories.map(withDecodedProperties),
  });
}

async function statusOfArea(
  db: Db,
  env: Bindings,
  kind: "Polygon" | "LineString",
  input: z.infer<ReturnType<typeof geometryQuery>>,
) {
  const query = queryGeometryFrom(input.geometry, [kind]);
  const types = selectedTypes(input.types, input.ignored_types);
  const window = windowOf(input);
  const buffer = input.buffer ?? DEFAULT_BUFFER_M;
  const { rulesets, features, cells } = await areaAdvisoryInputs(db, query.area, buffer, [], window);
  const status = areaStatus({
    area: query.area,
    buffer,
    features: types ? features.filter((f) => types.includes(f.type)) : features,
    cells,
    rulesets,
  });
  const [lng, lat] = representativePoint(query.geometry);
  const place = { latitude: input.latitude ?? lat, longitude: input.longitude ?? lng };
  return withWeather(env, input, place, window.start, {
    ...status,
    advisories: status.advisories.map(withDecodedProperties),
  });
}

/** Status never fails for weather: without it the answer says why in `weather_unavailable`. */
async function withWeather<T extends object>(
  env: Bindings,
  input: StatusInput,
  place: Place,
  time: number,
  status: T,
): Promise<T & { weather?: z.infer<typeof WeatherUpdate>; weather_unavailable?: string }> {
  if (!input.weather) return status;
  const found = await weatherAt(env, place, time);
  return "weather" in found
    ? { ...status, weather: found.weather }
    : { ...status, weather_unavailable: found.unavailable };
}

export const statusRoutes = createRouter()
  .openapi(point, async (c) => success(c, await statusAtPoint(c.var.db, c.env, c.req.valid("query"))))
  .openapi(polygon.get, async (c) =>
    success(c, await statusOfArea(c.var.db, c.env, "Polygon", c.req.valid("query"))),
  )
  .openapi(polygon.post, async (c) =>
    success(c, await statusOfArea(c.var.db, c.env, "Polygon", c.req.valid("json"))),
  )
  .openapi(path.get, async (c) =>
    success(c, await statusOfArea(c.var.db, c.env, "LineString", c.req.valid("query"))),
  )
  .openapi(path.post, async (c) =>
    success(c, await statusOfArea(c.var.db, c.env, "LineString", c.req.valid("json"))),
  );
