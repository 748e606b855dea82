import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createRouter, validationError } from "../app";
import { planView } from "../domain/flightViews";
import { ApiError, badRequest, conflict, notFound } from "../lib/errors";
import { success } from "../lib/jsend";
import { geometryInput, jsonBody, recordId, responses, securityWithToken, timeInput } from "../lib/openapi";
import { ownPlan, ownPlanAhead } from "../middleware/ownFlight";
import { rememberPlan } from "../middleware/recentPlans";
import { pilotIdOf, requireToken } from "../middleware/token";
import { FlightPlan, flightPlanCreateExample } from "../schemas/flights";
import { changePlan, createPlan, submitPlanAhead } from "../services/flightCreation";
import { readablePlanView } from "../services/flightListing";
import { removePlan } from "../services/flightRemoval";

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
const PlanCreate = PlanFields.openapi("FlightPlanCreate", { example: flightPlanCreateExample });
const PlanPatch = PlanFields.partial().openapi("FlightPlanPatch");
const PlanView = FlightPlan;

const planParams = z.object({ plan_id: recordId("plan_id") });

const create = createRoute({
  method: "post",
  path: "/flight/v2/plan",
  tags: ["Flight plans"],
  summary: "Create a flight plan for the token's pilot",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { body: jsonBody(PlanCreate) },
  responses: responses(PlanView, "The plan, with its `id`"),
});

const getPlan = createRoute({
  method: "get",
  path: "/flight/v2/plan/{plan_id}",
  tags: ["Flight plans"],
  summary: "Read one of the pilot's plans",
  security: securityWithToken,
  middleware: [requireToken, ownPlan] as const,
  request: { params: planParams },
  responses: responses(PlanView, "The plan"),
});

const patchPlan = createRoute({
  method: "patch",
  path: "/flight/v2/plan/{plan_id}",
  tags: ["Flight plans"],
  summary: "Change a plan until it is submitted (409 after)",
  security: securityWithToken,
  middleware: [requireToken, ownPlan] as const,
  request: { params: planParams, body: jsonBody(PlanPatch) },
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
  middleware: [requireToken, ownPlanAhead] as const,
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
  summary: "Delete a plan; a submitted plan's flight stays (end or delete it through /flight/v2)",
  security: securityWithToken,
  middleware: [requireToken, ownPlan] as const,
  request: { params: planParams },
  responses: responses(z.object({ id: z.string() }), "The deleted plan's `id`"),
});

export const flightPlanRoutes = createRouter()
  .openapi(create, async (c) => {
    const owner = { accountId: c.var.account.id, pilotId: c.var.pilotId! };
    const plan = await createPlan(c.var.db, owner, ownPilotId(c, c.req.valid("json")), Date.now());
    rememberPlan(plan);
    return success(c, planView(plan));
  })
  .openapi(getPlan, async (c) => success(c, await readablePlanView(c.var.db, c.var.plan)))
  .openapi(patchPlan, async (c) => {
    const { plan } = c.var;
    if (plan.flightId) throw conflict("This flight plan was submitted; it can no longer change");
    const updated = await changePlan(c.var.db, plan, ownPilotId(c, c.req.valid("json")), Date.now());
    if (!updated) throw conflict("This flight plan was submitted; it can no longer change");
    rememberPlan(updated);
    return success(c, planView(updated));
  })
  .openapi(submit, async (c) => {
    const submitted = await submitPlanAhead(c.var.db, c.var.planAhead, () => submitVisibility(c), Date.now());
    return success(c, planView(submitted.plan, submitted.flight));
  })
  .openapi(deletePlan, async (c) => {
    const { plan } = c.var;
    if (!(await removePlan(c.var.db, plan))) throw notFound("Flight plan");
    return success(c, { id: plan.id });
  });

/**
 * The body's `pilot_id` as the SDKs send it: the Android SDK's apps put `AirMap.getUserId()`, the
 * token's `sub`, in the plan (its own ApplicationTest.java 197 expects it back), which for a provider's
 * token stands for the caller's pilot (middleware/token.ts `pilotIdOf`).
 */
function ownPilotId<T extends { pilot_id?: string }>(c: Parameters<typeof pilotIdOf>[0], body: T): T {
  return body.pilot_id === undefined ? body : { ...body, pilot_id: pilotIdOf(c, body.pilot_id) };
}

/**
 * `public` from the submit body as each SDK sends it: JSON `{"public": true}` (Swift), a JSON
 * content type with an empty body (C++), form-encoded `public=true` or no field (Kotlin), or no body.
 * Undefined when not given; a body of another type is 415, an unreadable one 400.
 */
async function submitVisibility(c: Context): Promise<boolean | undefined> {
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
