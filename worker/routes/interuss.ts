import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { requireScope, SCOPES } from "../interuss/auth";
import {
  clearArea,
  deleteFlightPlan,
  FLIGHT_PLANNING_STATUS,
  upsertFlightPlan,
  userNotifications,
} from "../interuss/flightPlanning";
import {
  Conflict,
  GEOSPATIAL_MAP_STATUS,
  getSource,
  listSources,
  putSource,
  queryMap,
  removeSource,
} from "../interuss/geospatialMap";
import {
  AUTH_ERRORS,
  bodyOf,
  errorResponse,
  interussValidationHook,
  jsonResponse,
  renderInterussError,
  UserNotification,
} from "../interuss/http";
import { limitPerSubject } from "../interuss/rateLimit";
import { InvalidInput } from "../interuss/volumes";
import { publicOrigin } from "../lib/publicOrigin";

/**
 * InterUSS automated-testing interfaces: geospatial_map/v1 and flight_planning/v1. Their bodies are
 * the interfaces' own JSON, errors included (`{"message"}`), not JSend (an exception to CONTRACT §1),
 * and their credential is the test authority's bearer token with the endpoint's scope, not an API key
 * (an exception to CONTRACT §3; worker/interuss/auth.ts), rate limited per token subject
 * (worker/interuss/rateLimit.ts). The logic is in worker/interuss/.
 */

const GEO = "/interuss/geospatial_map/v1";
const PLAN = "/interuss/flight_planning/v1";

const security = (scope: string) => [{ InterussBearer: [scope] }];

const Uuid4 = z
  .string()
  .regex(
    /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[8-b][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/,
    "a version-4 UUID",
  );

const StatusResponse = z
  .object({ status: z.enum(["Starting", "Ready"]), api_name: z.string(), api_version: z.string() })
  .openapi("InterussStatusResponse");
const SourceStatus = z.object({
  id: z.string(),
  status: z.enum(["Activating", "Ready", "Deactivating", "Deactivated", "Unsupported", "Rejected", "Error"]),
  message: z.string().optional(),
});
const SourceResponse = z.object({ data_source: SourceStatus }).openapi("GeospatialDataSourceResponse");
const SourceList = z
  .object({ data_sources: z.array(SourceStatus) })
  .openapi("ListGeospatialDataSourcesResponse");
const QueryReply = z
  .object({
    results: z.array(
      z.object({
        features_selection_outcome: z.enum(["Present", "Absent", "UnsupportedFilter", "Error"]),
        message: z.string().optional(),
      }),
    ),
  })
  .openapi("GeospatialMapQueryReply");
const PlanningResult = z.enum(["Completed", "Rejected", "Failed", "NotSupported"]);
const PlanStatus = z.enum(["NotPlanned", "Planned", "OkToFly", "OffNominal", "Closed"]);
const Advisories = z.enum(["Unknown", "AtLeastOneAdvisoryOrCondition", "NoAdvisoriesOrConditions"]);
const PlanResponse = z
  .object({
    planning_result: PlanningResult,
    flight_plan_status: PlanStatus,
    notes: z.string().optional(),
    includes_advisories: Advisories.optional(),
  })
  .openapi("UpsertFlightPlanResponse");
const ClearAreaResponse = z
  .object({ outcome: z.object({ success: z.boolean(), message: z.string().optional() }) })
  .openapi("ClearAreaResponse");
const NotificationsResponse = z
  .object({ user_notifications: z.array(UserNotification) })
  .openapi("QueryUserNotificationsResponse");

const sourceParams = z.object({ geospatial_data_source_id: Uuid4 });
const planParams = z.object({ flight_plan_id: Uuid4 });

const routes = {
  geoStatus: createRoute({
    method: "get",
    path: `${GEO}/status`,
    tags: ["InterUSS"],
    summary: "geospatial_map/v1 status",
    security: security(SCOPES.geospatialMapDirect),
    middleware: [requireScope(SCOPES.geospatialMapDirect), limitPerSubject()] as const,
    responses: { 200: jsonResponse(StatusResponse, "Ready"), ...AUTH_ERRORS },
  }),
  listSources: createRoute({
    method: "get",
    path: `${GEO}/geospatial_data_sources`,
    tags: ["InterUSS"],
    summary: "The data sources loaded through this interface (deleted ones are gone)",
    security: security(SCOPES.geospatialMapDirect),
    middleware: [requireScope(SCOPES.geospatialMapDirect), limitPerSubject()] as const,
    responses: { 200: jsonResponse(SourceList, "Each source's status"), ...AUTH_ERRORS },
  }),
  putSource: createRoute({
    method: "put",
    path: `${GEO}/geospatial_data_sources/{geospatial_data_source_id}`,
    tags: ["InterUSS"],
    summary: "Load an ED-269 data source (https; a loopback http server in development)",
    security: security(SCOPES.geospatialMapDirect),
    middleware: [requireScope(SCOPES.geospatialMapDirect), limitPerSubject()] as const,
    request: { params: sourceParams, body: bodyOf("CreateGeospatialDataSourceRequest") },
    responses: {
      200: jsonResponse(SourceResponse, "Loaded, or why not"),
      400: errorResponse("Invalid request"),
      409: errorResponse("This id was loaded from another URL"),
      ...AUTH_ERRORS,
    },
  }),
  getSource: createRoute({
    method: "get",
    path: `${GEO}/geospatial_data_sources/{geospatial_data_source_id}`,
    tags: ["InterUSS"],
    summary: "A data source's status",
    security: security(SCOPES.geospatialMapDirect),
    middleware: [requireScope(SCOPES.geospatialMapDirect), limitPerSubject()] as const,
    request: { params: sourceParams },
    responses: {
      200: jsonResponse(SourceResponse, "Its status"),
      404: errorResponse("No such data source"),
      ...AUTH_ERRORS,
    },
  }),
  deleteSource: createRoute({
    method: "delete",
    path: `${GEO}/geospatial_data_sources/{geospatial_data_source_id}`,
    tags: ["InterUSS"],
    summary: "Deactivate a data source",
    security: security(SCOPES.geospatialMapDirect),
    middleware: [requireScope(SCOPES.geospatialMapDirect), limitPerSubject()] as const,
    request: { params: sourceParams },
    responses: { 200: jsonResponse(SourceResponse, "Deactivated"), ...AUTH_ERRORS },
  }),
  query: createRoute({
    method: "post",
    path: `${GEO}/map/queries`,
    tags: ["InterUSS"],
    summary: "Which checks select Block or Advise features, from this service's airspace and rules",
    security: security(SCOPES.geospatialMapQuery),
    middleware: [requireScope(SCOPES.geospatialMapQuery), limitPerSubject()] as const,
    request: { body: bodyOf("GeospatialMapQueryRequest") },
    responses: {
      200: jsonResponse(QueryReply, "One result per check"),
      400: errorResponse("Invalid request"),
      ...AUTH_ERRORS,
    },
  }),
  planStatus: createRoute({
    method: "get",
    path: `${PLAN}/status`,
    tags: ["InterUSS"],
    summary: "flight_planning/v1 status",
    security: security(SCOPES.flightPlanningDirect),
    middleware: [requireScope(SCOPES.flightPlanningDirect), limitPerSubject()] as const,
    responses: { 200: jsonResponse(StatusResponse, "Ready"), ...AUTH_ERRORS },
  }),
  upsertPlan: createRoute({
    method: "put",
    path: `${PLAN}/flight_plans/{flight_plan_id}`,
    tags: ["InterUSS"],
    summary: "Plan, modify or close a flight as the qualifier's virtual user",
    security: security(SCOPES.flightPlanningPlan),
    middleware: [requireScope(SCOPES.flightPlanningPlan), limitPerSubject()] as const,
    request: { params: planParams, body: bodyOf("UpsertFlightPlanRequest") },
    responses: {
      200: jsonResponse(PlanResponse, "The planning outcome"),
      400: errorResponse("Invalid request"),
      ...AUTH_ERRORS,
    },
  }),
  deletePlan: createRoute({
    method: "delete",
    path: `${PLAN}/flight_plans/{flight_plan_id}`,
    tags: ["InterUSS"],
    summary: "Close a flight plan (the virtual user or the test director)",
    // The qualifier's client deletes with the planning scope, as InterUSS's mock USS accepts.
    security: [
      { InterussBearer: [SCOPES.flightPlanningPlan] },
      { InterussBearer: [SCOPES.flightPlanningDirect] },
    ],
    middleware: [
      requireScope(SCOPES.flightPlanningPlan, SCOPES.flightPlanningDirect),
      limitPerSubject(),
    ] as const,
    request: { params: planParams },
    responses: {
      200: jsonResponse(PlanResponse, "Closed"),
      404: errorResponse("No such flight plan"),
      ...AUTH_ERRORS,
    },
  }),
  clearArea: createRoute({
    method: "post",
    path: `${PLAN}/clear_area_requests`,
    tags: ["InterUSS"],
    summary: "Close every qualifier flight plan in an area",
    security: security(SCOPES.flightPlanningDirect),
    middleware: [requireScope(SCOPES.flightPlanningDirect), limitPerSubject()] as const,
    request: { body: bodyOf("ClearAreaRequest") },
    responses: {
      200: jsonResponse(ClearAreaResponse, "Cleared"),
      400: errorResponse("Invalid request"),
      ...AUTH_ERRORS,
    },
  }),
  notifications: createRoute({
    method: "get",
    path: `${PLAN}/user_notifications`,
    tags: ["InterUSS"],
    summary: "Notifications the virtual user observed",
    security: security(SCOPES.flightPlanningPlan),
    middleware: [requireScope(SCOPES.flightPlanningPlan), limitPerSubject()] as const,
    request: { query: z.object({ after: z.string().optional(), before: z.string().optional() }) },
    responses: {
      200: jsonResponse(NotificationsResponse, "The notifications"),
      400: errorResponse("Invalid request"),
      ...AUTH_ERRORS,
    },
  }),
};

export const interussRoutes = new OpenAPIHono<AppEnv>({ strict: false, defaultHook: interussValidationHook })
  .openapi(routes.geoStatus, (c) => c.json({ ...GEOSPATIAL_MAP_STATUS }, 200))
  .openapi(routes.listSources, async (c) => c.json({ data_sources: await listSources(c.env.DB) }, 200))
  .openapi(routes.putSource, async (c) => {
    const { geospatial_data_source_id: id } = c.req.valid("param");
    const dataSource = await putSource(c.env.DB, id, c.req.valid("json"), {
      development: c.env.ENVIRONMENT === "development",
      now: Date.now(),
    });
    return c.json({ data_source: dataSource }, 200);
  })
  .openapi(routes.getSource, async (c) => {
    const { geospatial_data_source_id: id } = c.req.valid("param");
    const dataSource = await getSource(c.env.DB, id);
    if (!dataSource) return c.json({ message: `No geospatial data source ${id}` }, 404);
    return c.json({ data_source: dataSource }, 200);
  })
  .openapi(routes.deleteSource, async (c) => {
    const { geospatial_data_source_id: id } = c.req.valid("param");
    return c.json({ data_source: await removeSource(c.env.DB, id) }, 200);
  })
  .openapi(routes.query, async (c) =>
    c.json(await queryMap(c.var.db, c.env.DB, c.req.valid("json"), Date.now()), 200),
  )
  .openapi(routes.planStatus, (c) => c.json({ ...FLIGHT_PLANNING_STATUS }, 200))
  .openapi(routes.upsertPlan, async (c) => {
    const { flight_plan_id: id } = c.req.valid("param");
    return c.json(
      await upsertFlightPlan(c.var.db, c.env, id, c.req.valid("json"), Date.now(), publicOrigin(c)),
      200,
    );
  })
  .openapi(routes.deletePlan, async (c) => {
    const { flight_plan_id: id } = c.req.valid("param");
    const closed = await deleteFlightPlan(c.var.db, c.env, id, Date.now());
    if (!closed) return c.json({ message: `No flight plan ${id}` }, 404);
    return c.json(closed, 200);
  })
  .openapi(routes.clearArea, async (c) =>
    c.json(await clearArea(c.var.db, c.env, c.req.valid("json"), Date.now()), 200),
  )
  .openapi(routes.notifications, async (c) => {
    const { after, before } = c.req.valid("query");
    return c.json(await userNotifications(c.var.db, after, before, Date.now()), 200);
  });

interussRoutes.onError(
  renderInterussError([
    [InvalidInput, 400],
    [Conflict, 409],
  ]),
);
interussRoutes.openAPIRegistry.registerComponent("securitySchemes", "InterussBearer", {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
  description:
    "The InterUSS test authority's RS256/ES256 token: `scope` names the endpoint's scope, `aud` this host",
});
