import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, jsonOrForm } from "../app";
import { notFound } from "../lib/errors";
import { success } from "../lib/jsend";
import { jsonOrFormBody, recordId, responses, security, securityWithToken } from "../lib/openapi";
import { requireOwnPilot } from "../middleware/ownPilot";
import { addAircraft, changeAircraft } from "../services/aircraft";
import {
  deleteAircraft,
  findModel,
  findPilotAircraft,
  listManufacturers,
  listModels,
  listPilotAircraft,
} from "../store/aircraft";

const Manufacturer = z
  .object({ id: z.string(), name: z.string(), url: z.string().nullable() })
  .openapi("AircraftManufacturer");

const Model = z
  .object({
    id: z.string(),
    name: z.string(),
    manufacturer: z.object({ id: z.string(), name: z.string(), url: z.string().nullable() }),
    metadata: z.object({ mass_kg: z.number().nullable().openapi({ description: "Take-off mass, kg" }) }),
  })
  .openapi("AircraftModel");

const Aircraft = z
  .object({ id: z.string(), nickname: z.string(), model: Model, created_at: z.string() })
  .openapi("Aircraft");

const searchText = z.string().trim().min(1).max(100).optional();
const nickname = z.string().trim().min(1).max(64);
const modelId = z.string().min(1).max(64).openapi({ example: "model|dji-mavic-3" });

const AircraftCreate = z.object({ nickname, model_id: modelId }).openapi("AircraftCreate");
const AircraftPatch = z
  .object({ nickname: nickname.optional(), model_id: modelId.optional() })
  .openapi("AircraftPatch");

const PilotParams = z.object({ id: recordId("id") });
const AircraftParams = z.object({ id: recordId("id"), aircraft_id: recordId("aircraft_id") });

const manufacturerList = createRoute({
  method: "get",
  path: "/aircraft/v2/manufacturer",
  tags: ["Aircraft"],
  summary: "Aircraft manufacturers in the catalogue, by name",
  security,
  request: { query: z.object({ q: searchText.openapi({ description: "Part of the name" }) }) },
  responses: responses(z.array(Manufacturer), "Manufacturers"),
});

const modelList = createRoute({
  method: "get",
  path: "/aircraft/v2/model",
  tags: ["Aircraft"],
  summary: "Aircraft models in the catalogue, by manufacturer and name",
  security,
  request: {
    query: z.object({
      manufacturer: z.string().min(1).max(64).optional().openapi({ description: "A manufacturer id" }),
      q: searchText.openapi({ description: "Part of the model or manufacturer name" }),
    }),
  },
  responses: responses(z.array(Model), "Models"),
});

const modelRead = createRoute({
  method: "get",
  path: "/aircraft/v2/model/{id}",
  tags: ["Aircraft"],
  summary: "One aircraft model",
  security,
  request: { params: z.object({ id: recordId("id") }) },
  responses: responses(Model, "The model"),
});

const aircraftList = createRoute({
  method: "get",
  path: "/pilot/v2/{id}/aircraft",
  tags: ["Aircraft"],
  summary: "The pilot's own aircraft, oldest first",
  security: securityWithToken,
  middleware: [requireOwnPilot] as const,
  request: { params: PilotParams },
  responses: responses(z.array(Aircraft), "The pilot's aircraft"),
});

const aircraftCreate = createRoute({
  method: "post",
  path: "/pilot/v2/{id}/aircraft",
  tags: ["Aircraft"],
  summary: "Add an aircraft of a catalogue model to the pilot's own",
  security: securityWithToken,
  middleware: [requireOwnPilot] as const,
  // JSON, or the form the Android SDK posts (PilotService.java 125–126, AirMapAircraft.getAsParamsPost).
  request: { params: PilotParams, body: jsonOrFormBody(AircraftCreate) },
  responses: responses(Aircraft, "The new aircraft"),
});

const aircraftRead = createRoute({
  method: "get",
  path: "/pilot/v2/{id}/aircraft/{aircraft_id}",
  tags: ["Aircraft"],
  summary: "One of the pilot's aircraft",
  security: securityWithToken,
  middleware: [requireOwnPilot] as const,
  request: { params: AircraftParams },
  responses: responses(Aircraft, "The aircraft"),
});

const aircraftPatch = createRoute({
  method: "patch",
  path: "/pilot/v2/{id}/aircraft/{aircraft_id}",
  tags: ["Aircraft"],
  summary: "Rename an aircraft or change its model",
  security: securityWithToken,
  middleware: [requireOwnPilot] as const,
  // JSON, or the form the Android SDK patches (PilotService.java 157–158, getAsParamsPatch).
  request: { params: AircraftParams, body: jsonOrFormBody(AircraftPatch) },
  responses: responses(Aircraft, "The aircraft as stored"),
});

const aircraftDelete = createRoute({
  method: "delete",
  path: "/pilot/v2/{id}/aircraft/{aircraft_id}",
  tags: ["Aircraft"],
  summary: "Remove an aircraft; flights that named it keep its id and show no aircraft",
  security: securityWithToken,
  middleware: [requireOwnPilot] as const,
  request: { params: AircraftParams },
  responses: responses(z.object({ id: z.string() }), "The removed aircraft's id"),
});

export const aircraftRoutes = createRouter()
  .openapi(manufacturerList, async (c) =>
    success(c, await listManufacturers(c.var.db, c.req.valid("query").q)),
  )
  .openapi(modelList, async (c) => {
    const { manufacturer, q } = c.req.valid("query");
    return success(c, await listModels(c.var.db, { manufacturerId: manufacturer, q }));
  })
  .openapi(modelRead, async (c) => {
    const model = await findModel(c.var.db, c.req.valid("param").id);
    if (!model) throw notFound("Aircraft model");
    return success(c, model);
  })
  // requireOwnPilot checked `{id}`: the token's pilot is the one meant.
  .openapi(aircraftList, async (c) => success(c, await listPilotAircraft(c.var.db, c.var.pilotId!)))
  .openapi(aircraftCreate, async (c) => {
    const id = c.var.pilotId!;
    const body = jsonOrForm(AircraftCreate, { json: c.req.valid("json"), form: c.req.valid("form") });
    const fields = { nickname: body.nickname, modelId: body.model_id };
    return success(c, await addAircraft(c.var.db, id, fields, Date.now()));
  })
  .openapi(aircraftRead, async (c) => {
    const { aircraft_id } = c.req.valid("param");
    const id = c.var.pilotId!;
    const found = await findPilotAircraft(c.var.db, id, aircraft_id);
    if (!found) throw notFound("Aircraft");
    return success(c, found);
  })
  .openapi(aircraftPatch, async (c) => {
    const { aircraft_id } = c.req.valid("param");
    const id = c.var.pilotId!;
    const body = jsonOrForm(AircraftPatch, { json: c.req.valid("json"), form: c.req.valid("form") });
    const fields = { nickname: body.nickname, modelId: body.model_id };
    return success(c, await changeAircraft(c.var.db, id, aircraft_id, fields));
  })
  .openapi(aircraftDelete, async (c) => {
    const { aircraft_id } = c.req.valid("param");
    const id = c.var.pilotId!;
    if (!(await deleteAircraft(c.var.db, id, aircraft_id))) throw notFound("Aircraft");
    return success(c, { id: aircraft_id });
  });
