import { type AreaAdvisory, adviseArea, laancOverArea } from "../domain/airspace/advisories";
import { briefing, briefingFeatures } from "../domain/airspace/briefing";
import type { Color } from "../domain/airspace/colors";
import { fliesAtNight } from "../domain/airspace/daylight";
import { type EvaluationInput, evaluate, flightFeatureProblems } from "../domain/airspace/evaluation";
import { flightBand } from "../domain/airspace/heights";
import { type Authorization, decideLaanc } from "../domain/airspace/laanc";
import { withDecodedProperties } from "../domain/airspace/records";
import { LAANC_ALTITUDE_FEATURE, numericFeature } from "../domain/airspace/rules";
import { maxLinearExtent } from "../domain/flightArea";
import { takeoffDistance } from "../domain/flightSanity";
import { bboxOf, type Polygon } from "../domain/geojson";
import { DEFAULT_DIALECT, type SdkDialect } from "../domain/sdkDialect";
import type { Db } from "../env";
import { ApiError, forbidden, notFound, problemError } from "../lib/errors";
import { isoTime } from "../lib/time";
import { advisoryInputs } from "../store/airspace";
import { type FlightPlanRow, type FlightRow, findFlight, findPlan } from "../store/flights";
import { pilotById } from "../store/pilots";
import { allFlightFeatures, plansWithAuthorizations } from "../store/rulesets";
import { chosenRulesetIds, refuseUnknownRulesets } from "./airspace";

/**
 * What an evaluation reads, for an area (`POST /rules/v1/evaluation`) or a plan (its evaluation and
 * briefing): one batch for rulesets, airspace and facility-map cells, alongside the feature
 * definitions and (for a plan) its pilot. The verdicts are `evaluate` and `briefing`, in the domain.
 */
export interface Evaluated {
  input: EvaluationInput;
  color: Color;
  advisories: AreaAdvisory[];
}

export interface AreaRequest {
  area: Polygon;
  rulesetIds: string[];
  given: Record<string, unknown>;
  start: number;
  end: number;
  /** Whether the client gave the flight's times: only then is night worked out. */
  timed: boolean;
}

export async function evaluateArea(db: Db, request: AreaRequest, now = Date.now()): Promise<Evaluated> {
  const { area } = request;
  const [inputs, definitions] = await Promise.all([
    advisoryInputs(db, bboxOf(area), request.rulesetIds, { start: request.start, end: request.end }),
    allFlightFeatures(db),
  ]);
  refuseUnknownRulesets(request.rulesetIds, inputs.rulesets);
  const problems = flightFeatureProblems(request.given, definitions);
  if (problems.length > 0) throw problemError(problems);

  const { color, advisories } = adviseArea({ area, ...inputs, withExtents: true });
  const altitude = numericFeature(request.given, LAANC_ALTITUDE_FEATURE);
  const calculated: Record<string, unknown> = request.timed
    ? { flight_at_night: nightOver(area, request.start, request.end) }
    : {};
  return {
    input: {
      rulesets: inputs.rulesets,
      definitions,
      advisories,
      given: request.given,
      calculated,
      // Without an altitude LAANC cannot decide; its rules then ask for one (missing_info).
      authorizations:
        altitude === undefined
          ? null
          : decideLaanc({
              maxAltitudeAgl: altitude,
              startTime: request.start,
              now,
              rulesets: inputs.rulesets,
              ...laancOverArea(area, inputs.features, inputs.cells),
            }),
      submitted: false,
      pilot: null,
    },
    color,
    advisories,
  };
}

/**
 * A plan under its rulesets (or the default selection where it flies), its own fields and times as
 * calculated features, the authorizations stored with its flight once submitted or else what LAANC
 * would decide, and its pilot's details.
 */
export async function evaluatePlan(db: Db, plan: FlightPlanRow, now = Date.now()): Promise<Evaluated> {
  const rulesetIds = await chosenRulesetIds(db, plan.area, plan.rulesets);
  // The pilot is read in the airspace's batch: one D1 call for both.
  const [inputs, definitions, flightAuthorizations] = await Promise.all([
    advisoryInputs(
      db,
      bboxOf(plan.area),
      rulesetIds,
      { start: plan.startTime, end: plan.endTime, band: flightBand(plan) },
      pilotById(db, plan.accountId, plan.pilotId),
    ),
    allFlightFeatures(db),
    plan.flightId ? storedAuthorizations(db, plan) : null,
  ]);
  const pilot = inputs.also?.[0];
  const { color, advisories } = adviseArea({ area: plan.area, ...inputs, withExtents: true });
  const authorizations =
    flightAuthorizations ??
    decideLaanc({
      maxAltitudeAgl: plan.maxAltitudeAgl,
      startTime: plan.startTime,
      now,
      rulesets: inputs.rulesets,
      ...laancOverArea(plan.area, inputs.features, inputs.cells),
    });
  return {
    input: {
      rulesets: inputs.rulesets,
      definitions,
      advisories,
      given: plan.flightFeatures,
      calculated: {
        flight_max_altitude_agl: plan.maxAltitudeAgl,
        flight_min_altitude_agl: plan.minAltitudeAgl,
        max_linear_extent: maxLinearExtent(plan.area),
        flight_at_night: nightOver(plan.area, plan.startTime, plan.endTime),
      },
      authorizations,
      submitted: flightAuthorizations !== null,
      pilot: {
        phone: pilot?.phone ?? null,
        phoneVerified: pilot?.phoneVerified ?? false,
        faaRegistrationNumber: pilot?.userMetadata.faa_registration_number,
      },
      takeoffDistanceM: takeoffDistance([plan.takeoffLongitude, plan.takeoffLatitude], plan.area),
    },
    color,
    advisories,
  };
}

async function storedAuthorizations(db: Db, plan: FlightPlanRow): Promise<Authorization[] | null> {
  const flight = await findFlight(db, plan.accountId, plan.flightId!);
  return flight ? (flight.authorizations as Authorization[]) : null;
}

/** Night anywhere in the window, at the middle of the area's box. */
function nightOver(area: Polygon, start: number, end: number): boolean {
  const box = bboxOf(area);
  return fliesAtNight(start, end, (box.minLat + box.maxLat) / 2, (box.minLng + box.maxLng) / 2);
}

/**
 * The SDKs' evaluation answer: when it was made, the color, the advisories (with the `properties` the
 * decoders read, as the advisory routes give them) under `airspace`, and the rulesets' verdicts.
 */
function evaluationAnswer(evaluated: Evaluated, dialect: SdkDialect, now: number) {
  return {
    // The Android SDK reads an evaluation as a briefing, `created_at` included (AirMapFlightBriefing.java 42).
    created_at: isoTime(now),
    color: evaluated.color,
    airspace: { color: evaluated.color, advisories: evaluated.advisories.map(withDecodedProperties) },
    ...evaluate(evaluated.input, dialect),
  };
}

/** `POST /rules/v1/evaluation`: an area under its rulesets, in the asking SDK's words. */
export async function areaEvaluation(db: Db, request: AreaRequest, dialect: SdkDialect = DEFAULT_DIALECT) {
  const now = Date.now();
  return evaluationAnswer(await evaluateArea(db, request, now), dialect, now);
}

/**
 * A plan's evaluation, for the account's key (the C++ SDK sends no token here: other accounts learn
 * nothing, 404); a pilot's token narrows the reach to that pilot's own plans (CONTRACT §1: 403).
 */
export async function planEvaluation(
  db: Db,
  accountId: string,
  pilotId: string | undefined,
  planId: string,
  dialect: SdkDialect = DEFAULT_DIALECT,
) {
  const plan = await findPlan(db, accountId, planId);
  if (!plan) throw notFound("Flight plan");
  if (pilotId !== undefined && pilotId !== plan.pilotId)
    throw forbidden("This flight plan belongs to another pilot");
  const now = Date.now();
  return evaluationAnswer(await evaluatePlan(db, plan, now), dialect, now);
}

/** The flight features the plan's rules ask for, each with its status for the plan. */
export async function planFeatures(db: Db, plan: FlightPlanRow) {
  return briefingFeatures(evaluate((await evaluatePlan(db, plan)).input).rulesets);
}

/** The plan's briefing: its advisories and color, each rule's status, validations and authorizations. */
export async function planBriefing(
  db: Db,
  plan: FlightPlanRow,
  now: number,
  dialect: SdkDialect = DEFAULT_DIALECT,
) {
  const evaluated = await evaluatePlan(db, plan, now);
  return briefing(
    {
      ...evaluated.input,
      planId: plan.id,
      color: evaluated.color,
      advisories: evaluated.advisories.map(withDecodedProperties),
      now,
    },
    dialect,
  );
}

/**
 * The Swift and Android SDKs' batch read of authorizations: the briefing of each plan asked for
 * (the Android SDK reads each entry as a whole `AirMapFlightBriefing`: color, rulesets, airspace,
 * validations, authorizations), in the order asked. Plans that no longer exist (deleted, or never
 * this account's) are left out, so one stale id does not hide the others; another pilot's plan is
 * 403, as for one plan.
 */
export async function planBriefings(
  db: Db,
  accountId: string,
  pilotId: string | undefined,
  ids: string[],
  now: number,
  dialect: SdkDialect,
) {
  const rows = await plansWithAuthorizations(db, accountId, ids);
  if (rows.some((r) => r.plan.pilotId !== pilotId))
    throw forbidden("A flight plan among flight_plan_ids belongs to another pilot");
  const byId = new Map(rows.map((r) => [r.plan.id, r.plan]));
  const found = ids.flatMap((id) => byId.get(id) ?? []);
  return Promise.all(found.map((plan) => planBriefing(db, plan, now, dialect)));
}

/** The briefing of the plan a flight was submitted from; 404 for a flight made without one. */
export async function flightBriefing(db: Db, flight: FlightRow, now: number) {
  const plan = flight.flightPlanId ? await findPlan(db, flight.accountId, flight.flightPlanId) : null;
  if (!plan) throw new ApiError(404, "This flight was made without a plan, so it has no briefing");
  return planBriefing(db, plan, now);
}
