import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import type { Db } from "../env";
import { badRequest } from "../lib/errors";
import { success } from "../lib/jsend";
import { jsonBody, responses, security, timeInput } from "../lib/openapi";
import { AirspaceRecord } from "../schemas/airspace";
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
import { airspaceRecordById, airspaceRecordsByIds, searchAirspace } from "../services/airspaceRecords";

/** The Kotlin SDK's documented maximum, also the most one list request may name. */
const MAX_RECORDS = 100;

const searchFields = (geometry: z.ZodType) =>
  z.object({
    geometry,
    full: flag
      .optional()
      .openapi({ description: "false simplifies `geometry` to its bounding box (default true)" }),
    types: typeList("Only these types").optional(),
    ignored_types: typeList("Leave out these types").optional(),
    buffer: bufferField(0),
    offset: z.coerce.number().int().min(0).optional(),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_RECORDS)
      .optional()
      .openapi({ description: `At most ${MAX_RECORDS} (the default)` }),
    datetime: timeInput
      .optional()
      .openapi({ description: "Time-bound airspace in effect then (default now)" }),
  });
type SearchInput = z.infer<ReturnType<typeof searchFields>>;

const summary = "Airspace records that reach a geometry (their notice radius included), nearest first";
const searchRoute = createRoute({
  method: "get",
  path: "/airspace/v2/search",
  tags: ["Airspace"],
  summary,
  security,
  request: { query: searchFields(geometryText("Polygon, LineString or Point")) },
  responses: responses(z.array(AirspaceRecord), "A page of records"),
});
const searchByBody = createRoute({
  method: "post",
  path: "/airspace/v2/search",
  tags: ["Airspace"],
  summary: `${summary}; the JSON body form of the GET, for large geometries`,
  security,
  request: {
    body: jsonBody(searchFields(geometryBody("Polygon, LineString or Point")).openapi("AirspaceSearch")),
  },
  responses: responses(z.array(AirspaceRecord), "A page of records"),
});

const list = createRoute({
  method: "get",
  path: "/airspace/v2/list",
  tags: ["Airspace"],
  summary: "Airspace records by id, in the order asked; ids that name no record are left out",
  security,
  request: {
    query: z.object({
      ids: z.string().openapi({ description: `Comma-separated ids, at most ${MAX_RECORDS}` }),
    }),
  },
  responses: responses(z.array(AirspaceRecord), "The records found"),
});

const idParam = z.object({
  id: z
    .string()
    .min(1)
    .max(512)
    .openapi({ param: { name: "id", in: "path" }, example: "ourairports:KPHX" }),
});
const one = createRoute({
  method: "get",
  path: "/airspace/v2/{id}",
  tags: ["Airspace"],
  summary: "One airspace record",
  security,
  request: { params: idParam },
  responses: responses(AirspaceRecord, "The record"),
});
// TFR ids hold a `/` (`faa-tfr:0/1234-1-FDC-F`), which the C++ SDK writes into the path unencoded.
const oneWithSlash = createRoute({ ...one, path: "/airspace/v2/{id{.+}}", hide: true });

async function search(db: Db, input: SearchInput) {
  const buffer = input.buffer ?? 0;
  const query = queryGeometryFrom(input.geometry, ["Polygon", "LineString", "Point"]);
  const types = selectedTypes(input.types, input.ignored_types);
  const window = timeWindowFrom(input.datetime, undefined);
  return searchAirspace(db, query, window, {
    buffer,
    types,
    offset: input.offset ?? 0,
    limit: input.limit ?? MAX_RECORDS,
    full: input.full ?? true,
  });
}

function idsFrom(text: string): string[] {
  const ids = [...new Set(text.split(",").map((id) => id.trim()))].filter((id) => id !== "");
  if (ids.length === 0) throw badRequest("ids", "give at least one airspace id");
  if (ids.length > MAX_RECORDS) throw badRequest("ids", `at most ${MAX_RECORDS} ids`);
  return ids;
}

export const airspaceRoutes = createRouter()
  .openapi(searchRoute, async (c) => success(c, await search(c.var.db, c.req.valid("query"))))
  .openapi(searchByBody, async (c) => success(c, await search(c.var.db, c.req.valid("json"))))
  .openapi(list, async (c) =>
    success(c, await airspaceRecordsByIds(c.var.db, idsFrom(c.req.valid("query").ids))),
  )
  .openapi(one, async (c) => success(c, await airspaceRecordById(c.var.db, c.req.valid("param").id)))
  .openapi(oneWithSlash, async (c) =>
    success(c, await airspaceRecordById(c.var.db, c.req.valid("param").id)),
  );
