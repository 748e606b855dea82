import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createRouter } from "../app";
import { areaSizeError, unknownRulesetsError } from "../domain/airspace/inputs";
import { flightArea, geometryError, geometryProblem } from "../domain/flightArea";
import { planView } from "../domain/flightViews";
import { bboxOf, type Geometry, type LineString, type Point, type Polygon } from "../domain/geojson";
import type { AppEnv } from "../env";
import { badRequest, conflict, forbidden, notFound } from "../lib/errors";
import { newId } from "../lib/ids";
import { success } from "../lib/jsend";
import { geometryInput, recordId, responses, securityWithToken, timeInput } from "../lib/openapi";
import { parseTime } from "../lib/time";
import { requireToken } from "../middleware/token";
import { authorizationsForPlan, locatePoint, unknownRulesetIds } from "../store/airspace";
import {
  type FlightPlanRow,
  findPlan,
  insertPlan,
  ownsAircraft,
  submitPlan,
  updateUnsubmittedPlan,
} from "../store/flights";

const altitude = z.number().min(0).max(10_000);
const PlanFields = z.object({
  takeoff_latitude: z.number().min(-90).max(90),
  takeoff_longitude: z.number().min(-180).max(180),
  pilot_id: z.string().max(64).optional(),
  start_time: timeInput,
  end_time: timeInput,
  max_altitude_agl: altitude,
  min_altitude_agl: altitude.optional(),
  buffer: z.number().min(0).max(100_000).optional(),
  geometry: geometryInput,
  aircraft_id: z.string().max(64).nullable().optional(),
  rulesets: z.array(z.string().min(1).max(128)).max(100).optional(),
  flight_description: z.string().max(2000).optional(),
  flight_features: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])).optional(),
});
const PlanCreate = PlanFields.openapi("FlightPlanCreate");
const PlanPatch = PlanFields.partial().openapi("FlightPlanPatch");
const PlanView = z.record(z.string(), z.unknown()).openapi("FlightPlan");

const planParams = z.object({ plan_id: recordId("plan_id") });
const json = <T extends z.ZodType>(schema: T, required = true) => ({
  content: { "application/json": { schema } },
  required,
});

const createPlan = createRoute({
  method: "post",
  path: "/flight/v2/plan",
  tags: ["Flight plans"],
  summary: "Create a flight plan for the token's pilot",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { body: json(PlanCreate) },
  responses: responses(PlanView, "The plan, with its `id`"),
});

const getPlan = createRoute({
  method: "get",
  path: "/flight/v2/plan/{plan_id}",
  tags: ["Flight plans"],
  summary: "Read one of the pilot's plans",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { params: planParams },
  responses: responses(PlanView, "The plan"),
});

const patchPlan = createRoute({
  method: "patch",
  path: "/flight/v2/plan/{plan_id}",
  tags: ["Flight plans"],
  summary: "Change a plan until it is submitted (409 after)",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { params: planParams, body: json(PlanPatch) },
  responses: responses(PlanView, "The changed plan"),
});

const submit = createRoute({
  method: "post",
  path: "/flight/v2/plan/{plan_id}/submit",
  tags: ["Flight plans"],
  summary: "Create the plan's flight (once; again is 409)",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { params: planParams, body: json(z.object({ public: z.boolean().optional() }), false) },
  responses: responses(PlanView, "The plan with `flight_id`"),
});

type PlanInput = z.infer<typeof PlanFields>;

/** Checks what the schema cannot: the geometry, time order, altitude order, aircraft, pilot. */
async function validatedPlan(c: Context<AppEnv>, input: PlanInput, pilotId: string, now: number) {
  if (input.pilot_id !== undefined && input.pilot_id !== pilotId) {
    throw forbidden("pilot_id must be the token's pilot");
  }
  const startTime = parseTime(input.start_time, now)!;
  const endTime = parseTime(input.end_time, now)!;
  if (endTime < startTime) throw badRequest("end_time", "must not be before start_time");
  const minAltitude = input.min_altitude_agl ?? 0;
  if (minAltitude > input.max_altitude_agl)
    throw badRequest("min_altitude_agl", "must not exceed max_altitude_agl");
  const unknownRulesets = await unknownRulesetIds(c.var.db, input.rulesets ?? []);
  if (unknownRulesets.length > 0) throw unknownRulesetsError(unknownRulesets);
  const buffer = input.buffer ?? 0;
  const problem = geometryProblem(input.geometry, buffer);
  if (problem) throw geometryError(problem);
  const geometry = input.geometry as unknown as Polygon | LineString | Point;
  if (input.aircraft_id && !(await ownsAircraft(c.var.db, pilotId, input.aircraft_id))) {
    throw badRequest("aircraft_id", "not one of the pilot's aircraft");
  }
  const area = flightArea(geometry, buffer);
  const tooWide = areaSizeError(area);
  if (tooWide) throw tooWide;
  return {
    takeoffLatitude: input.takeoff_latitude,
    takeoffLongitude: input.takeoff_longitude,
    startTime,
    endTime,
    maxAltitudeAgl: input.max_altitude_agl,
    minAltitudeAgl: minAltitude,
    buffer,
    geometry: geometry as Geometry,
    area,
    ...bboxOf(area),
    aircraftId: input.aircraft_id ?? null,
    rulesets: input.rulesets ?? [],
    flightDescription: input.flight_description ?? "",
    flightFeatures: input.flight_features ?? {},
  };
}

/** The pilot's own plan: 404 when it is not the account's, 403 when it is another pilot's. */
export async function ownPlan(c: Context<AppEnv>, planId: string): Promise<FlightPlanRow> {
  const plan = await findPlan(c.var.db, c.var.account.id, planId);
  if (!plan) throw notFound("Flight plan");
  if (plan.pilotId !== c.var.pilotId) throw forbidden("This flight plan belongs to another pilot");
  return plan;
}

/** Back to the request's shape, so a PATCH is checked as the whole plan it produces. */
function planInput(plan: FlightPlanRow): PlanInput {
  return {
    takeoff_latitude: plan.takeoffLatitude,
    takeoff_longitude: plan.takeoffLongitude,
    start_time: new Date(plan.startTime).toISOString(),
    end_time: new Date(plan.endTime).toISOString(),
    max_altitude_agl: plan.maxAltitudeAgl,
    min_altitude_agl: plan.minAltitudeAgl,
    buffer: plan.buffer,
    geometry: plan.geometry as unknown as PlanInput["geometry"],
    aircraft_id: plan.aircraftId,
    rulesets: plan.rulesets,
    flight_description: plan.flightDescription,
    flight_features: plan.flightFeatures as PlanInput["flight_features"],
  };
}

export const flightPlanRoutes = createRouter()
  .openapi(createPlan, async (c) => {
    const pilotId = c.var.pilotId!;
    const now = Date.now();
    const fields = await validatedPlan(c, c.req.valid("json"), pilotId, now);
    const plan = await insertPlan(c.var.db, {
      id: newId("flight_plan"),
      accountId: c.var.account.id,
      pilotId,
      ...fields,
      acceptLanguage: c.req.header("accept-language") ?? "en-US",
      flightId: null,
      createdAt: now,
    });
    return success(c, planView(plan));
  })
  .openapi(getPlan, async (c) => success(c, planView(await ownPlan(c, c.req.valid("param").plan_id))))
  .openapi(patchPlan, async (c) => {
    const plan = await ownPlan(c, c.req.valid("param").plan_id);
    if (plan.flightId) throw conflict("This flight plan was submitted; it can no longer change");
    const merged = { ...planInput(plan), ...c.req.valid("json") };
    const fields = await validatedPlan(c, merged, plan.pilotId, Date.now());
    const updated = await updateUnsubmittedPlan(c.var.db, plan.id, {
      ...fields,
      acceptLanguage: c.req.header("accept-language") ?? plan.acceptLanguage,
    });
    if (!updated) throw conflict("This flight plan was submitted; it can no longer change");
    return success(c, planView(updated));
  })
  .openapi(submit, async (c) => {
    const plan = await ownPlan(c, c.req.valid("param").plan_id);
    if (plan.flightId) throw conflict("This flight plan was already submitted");
    const [place, authorizations] = await Promise.all([
      locatePoint(c.var.db, plan.takeoffLatitude, plan.takeoffLongitude),
      authorizationsForPlan(c.var.db, plan),
    ]);
    const flight = await submitPlan(c.var.db, plan.id, {
      id: newId("flight"),
      accountId: plan.accountId,
      pilotId: plan.pilotId,
      latitude: plan.takeoffLatitude,
      longitude: plan.takeoffLongitude,
      buffer: plan.buffer,
      geometry: plan.area,
      minLat: plan.minLat,
      minLng: plan.minLng,
      maxLat: plan.maxLat,
      maxLng: plan.maxLng,
      maxAltitude: plan.maxAltitudeAgl,
      startTime: plan.startTime,
      endTime: plan.endTime,
      createdAt: Date.now(),
      public: c.req.valid("json").public ?? false,
      notify: false,
      ...place,
      authorizations,
    });
    if (!flight) throw conflict("This flight plan was already submitted");
    return success(c, planView({ ...plan, flightId: flight.id }));
  });
