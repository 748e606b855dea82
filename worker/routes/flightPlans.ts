import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createRouter, validationError } from "../app";
import { unknownRulesetsError } from "../domain/airspace/inputs";
import { planView } from "../domain/flightViews";
import { bboxOf, type Geometry } from "../domain/geojson";
import type { AppEnv } from "../env";
import { ApiError, badRequest, conflict, forbidden, notFound } from "../lib/errors";
import { newId } from "../lib/ids";
import { success } from "../lib/jsend";
import { geometryInput, recordId, responses, securityWithToken, timeInput } from "../lib/openapi";
import { requireToken } from "../middleware/token";
import { checkAircraft, checkedFlightArea, createPlanFlight, flightWindow } from "../services/flightCreation";
import { unknownRulesetIds } from "../store/airspace";
import {
  deleteSubmittedPlan,
  deleteUnsubmittedPlan,
  type FlightPlanRow,
  findFlight,
  findPlan,
  insertPlan,
  updateUnsubmittedPlan,
} from "../store/flights";
import { forgetTelemetry } from "./flights";

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
const json = <T extends z.ZodType>(schema: T) => ({
  content: { "application/json": { schema } },
  required: true,
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

const SubmitBody = z.object({ public: z.boolean().optional() });

/**
 * Documented, not validated by the router: the SDKs send this body four ways (JSON, form-encoded,
 * JSON content type with no body, nothing at all) and `submitVisibility` reads them all.
 */
const submitBodySchema = (publicType: "boolean" | "string") => ({
  schema: {
    type: "object" as const,
    properties: {
      public: {
        type: publicType,
        ...(publicType === "string" ? { enum: ["true", "false"] } : {}),
        description: "Whether the flight is public (default false)",
      },
    },
  },
});

const submit = createRoute({
  method: "post",
  path: "/flight/v2/plan/{plan_id}/submit",
  tags: ["Flight plans"],
  summary: "Create the plan's flight (once; again is 409). The body is optional, also when its type is JSON",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: {
    params: planParams,
    body: {
      content: {
        "application/json": submitBodySchema("boolean"),
        "application/x-www-form-urlencoded": submitBodySchema("string"),
      },
      required: false,
    },
  },
  responses: responses(PlanView, "The plan with `flight_id`"),
});

const deletePlan = createRoute({
  method: "delete",
  path: "/flight/v2/plan/{plan_id}",
  tags: ["Flight plans"],
  summary:
    "Delete a plan; a submitted plan goes with its flight while that has not started (409 once it has)",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { params: planParams },
  responses: responses(z.object({ id: z.string() }), "The deleted plan's `id`"),
});

type PlanInput = z.infer<typeof PlanFields>;

/** Checks what the schema cannot: the geometry, time order, altitude order, aircraft, pilot. */
async function validatedPlan(c: Context<AppEnv>, input: PlanInput, pilotId: string, now: number) {
  if (input.pilot_id !== undefined && input.pilot_id !== pilotId) {
    throw forbidden("pilot_id must be the token's pilot");
  }
  const { startTime, endTime } = flightWindow(input.start_time, input.end_time, now);
  const minAltitude = input.min_altitude_agl ?? 0;
  if (minAltitude > input.max_altitude_agl)
    throw badRequest("min_altitude_agl", "must not exceed max_altitude_agl");
  const unknownRulesets = await unknownRulesetIds(c.var.db, input.rulesets ?? []);
  if (unknownRulesets.length > 0) throw unknownRulesetsError(unknownRulesets);
  const buffer = input.buffer ?? 0;
  const area = checkedFlightArea(input.geometry, buffer);
  await checkAircraft(c.var.db, pilotId, input.aircraft_id);
  return {
    takeoffLatitude: input.takeoff_latitude,
    takeoffLongitude: input.takeoff_longitude,
    startTime,
    endTime,
    maxAltitudeAgl: input.max_altitude_agl,
    minAltitudeAgl: minAltitude,
    buffer,
    geometry: input.geometry as unknown as Geometry,
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
    const visibility = await submitVisibility(c);
    const flight = await createPlanFlight(c.var.db, plan, { public: visibility ?? false }, Date.now());
    if (!flight) throw conflict("This flight plan was already submitted");
    return success(c, planView({ ...plan, flightId: flight.id }));
  })
  .openapi(deletePlan, async (c) => {
    const plan = await ownPlan(c, c.req.valid("param").plan_id);
    const now = Date.now();
    if (!plan.flightId) {
      if (!(await deleteUnsubmittedPlan(c.var.db, plan.id)))
        throw conflict("This flight plan was submitted meanwhile; delete it again to remove its flight too");
      return success(c, { id: plan.id });
    }
    const flightId = plan.flightId;
    const flight = await findFlight(c.var.db, plan.accountId, flightId);
    if (!(await deleteSubmittedPlan(c.var.db, { ...plan, flightId }, now)))
      throw conflict("This plan's flight has started; a plan is kept with the flight it created");
    if (flight) await forgetTelemetry(c, flightId, now);
    return success(c, { id: plan.id });
  });

/**
 * `public` from the submit body as each SDK sends it: JSON `{"public": true}` (Swift), a JSON
 * content type with an empty body (C++), form-encoded `public=true` or no field (Kotlin), or no body.
 * Undefined when not given; a body of another type is 415, an unreadable one 400.
 */
async function submitVisibility(c: Context<AppEnv>): Promise<boolean | undefined> {
  // Decoded here: workerd warns when a form-typed body is read with text().
  const text = new TextDecoder().decode(await c.req.arrayBuffer());
  if (text.trim() === "") return undefined;
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  let fields: unknown;
  if (type === "application/json" || type.endsWith("+json")) {
    try {
      fields = JSON.parse(text);
    } catch {
      throw badRequest("body", "not valid JSON");
    }
  } else if (type === "application/x-www-form-urlencoded") {
    const form = new URLSearchParams(text);
    const value = form.get("public");
    fields = {
      public: value === null ? undefined : value === "true" ? true : value === "false" ? false : value,
    };
  } else {
    throw new ApiError(415, "Send the body as application/json or application/x-www-form-urlencoded", [
      { name: "content-type", message: "application/json or application/x-www-form-urlencoded" },
    ]);
  }
  const parsed = SubmitBody.safeParse(fields);
  if (!parsed.success) throw validationError(parsed.error.issues);
  return parsed.data.public;
}
