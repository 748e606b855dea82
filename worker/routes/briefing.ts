import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { adviseArea, laancOverArea } from "../domain/airspace/advisories";
import { briefing } from "../domain/airspace/briefing";
import { type Authorization, decideLaanc } from "../domain/airspace/laanc";
import { defaultSelection } from "../domain/airspace/rules";
import { planView } from "../domain/flightViews";
import { bboxOf } from "../domain/geojson";
import { success } from "../lib/jsend";
import { recordId, responses, securityWithToken } from "../lib/openapi";
import { requireToken } from "../middleware/token";
import { advisoryInputs, rulesetsFor } from "../store/airspace";
import { findFlight } from "../store/flights";
import { findPilot } from "../store/pilots";
import { ownPlan } from "./flightPlans";

const Briefing = z
  .object({
    color: z.enum(["green", "yellow", "orange", "red"]),
    advisories: z.array(z.record(z.string(), z.unknown())),
    rulesets: z.array(
      z.object({
        id: z.string(),
        rules: z.array(
          z.object({
            id: z.number().int(),
            short_text: z.string(),
            description: z.string(),
            status: z.enum(["conflicting", "not_conflicting", "missing_info", "informational"]),
          }),
        ),
      }),
    ),
    validations: z.array(z.record(z.string(), z.unknown())),
    authorizations: z.array(
      z.object({
        description: z.string(),
        status: z.enum(["pending", "accepted", "rejected", "not_requested", "cancelled"]),
        message: z.string(),
        authority: z.object({ id: z.string(), name: z.string() }),
      }),
    ),
  })
  .openapi("Briefing");

const getBriefing = createRoute({
  method: "get",
  path: "/flight/v2/plan/{plan_id}/briefing",
  tags: ["Flight plans"],
  summary:
    "What the plan meets: advisories and their color, each rule's status from the plan's flight features, validations and authorizations",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { params: z.object({ plan_id: recordId("plan_id") }) },
  responses: responses(Briefing, "The briefing"),
});

export const briefingRoutes = createRouter().openapi(getBriefing, async (c) => {
  const db = c.var.db;
  const plan = await ownPlan(c, c.req.valid("param").plan_id);
  const now = Date.now();
  // A plan without rulesets is briefed under the default selection where it flies.
  const rulesetIds =
    plan.rulesets.length > 0
      ? plan.rulesets
      : defaultSelection(await rulesetsFor(db, plan.area)).map((r) => r.id);
  const [inputs, pilot, flight] = await Promise.all([
    advisoryInputs(db, bboxOf(plan.area), rulesetIds, { start: plan.startTime, end: plan.endTime }),
    findPilot(db, plan.accountId, plan.pilotId, { statistics: false, now }),
    plan.flightId ? findFlight(db, plan.accountId, plan.flightId) : null,
  ]);
  const { color, advisories } = adviseArea({ area: plan.area, ...inputs, withExtents: true });
  const authorizations = flight
    ? (flight.authorizations as Authorization[])
    : decideLaanc({
        maxAltitudeAgl: plan.maxAltitudeAgl,
        startTime: plan.startTime,
        now,
        rulesets: inputs.rulesets,
        ...laancOverArea(plan.area, inputs.features, inputs.cells),
      });
  return success(
    c,
    briefing({
      rulesets: inputs.rulesets,
      color,
      advisories,
      features: planView(plan).flight_features,
      authorizations,
      submitted: flight !== null,
      pilot: {
        phone: pilot?.pilot.phone ?? null,
        phoneVerified: pilot?.pilot.phoneVerified ?? false,
        faaRegistrationNumber: pilot?.pilot.userMetadata.faa_registration_number,
      },
    }),
  );
});
