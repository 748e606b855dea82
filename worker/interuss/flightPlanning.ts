import { bboxOf, type Polygon, type Position } from "../domain/geojson";
import { flightAuthorisationProblems } from "../domain/uspaceAuthorisation";
import type { Bindings, Db } from "../env";
import { newId } from "../lib/ids";
import { isObject } from "../lib/json";
import { areaSizeError } from "../services/airspace";
import { createPlanFlight } from "../services/flightCreation";
import {
  type Coordination,
  conflictNote,
  coordinate,
  IntentRefused,
  putPlanIntent,
  removePlanIntent,
  tellUser,
} from "../services/operationalIntents";
import { deleteInactiveFlight, deletePlan, endFlight, findFlight, insertPlan } from "../store/flights";
import { ensurePilot } from "../store/pilots";
import { userNotificationsBetween } from "../store/strategicCoordination";
import { assessVolume, type Finding } from "./assessment";
import { deletePlanLink, findPlanLink, type PlanLink, planLinksIn, putPlanLink } from "./store";
import { InvalidInput, type Volume, volume4d } from "./volumes";

/**
 * InterUSS flight_planning/v1 (automated_testing_interfaces `flight_planning/v1/flight_planning.yaml`)
 * on this service's plans, briefings, LAANC and flights. The qualifier is a virtual user of the
 * service account `account|interuss` (created on first use, no API key) and its one pilot.
 *
 * A plan is assessed volume by volume as the geospatial map shows it (worker/interuss/assessment.ts):
 * nothing blocking (LAANC accepts automatically, or no authorization is needed) → Completed, Planned
 * or OkToFly by its usage state, with the plan and its flight created as a pilot's would be; anything
 * blocking (further coordination, no facility map, a restricted area, a blocking ED-269 zone) →
 * Rejected with notes saying why, and nothing changes. A plan that is not hypothetical becomes an
 * ASTM F3548-21 operational intent in this service's own DSS (worker/services/operationalIntents.ts);
 * one that meets another USS's intent there is Rejected, its notes naming that intent.
 */

export const FLIGHT_PLANNING_STATUS = {
  status: "Ready",
  api_name: "Flight Planning Automated Testing Interface",
  api_version: "v0.6.0",
} as const;

export const INTERUSS_ACCOUNT = {
  id: "account|interuss",
  publicId: "app_interuss",
  name: "InterUSS qualifier",
};
const VIRTUAL_USER = "interuss-virtual-user";
/** Plans without an end in their volumes last as long as a flight does by default (CONTRACT §4). */
const DEFAULT_DURATION_MS = 4 * 60 * 60 * 1000;

export type PlanningResult = "Completed" | "Rejected" | "Failed" | "NotSupported";
export type FlightPlanStatus = "NotPlanned" | "Planned" | "OkToFly" | "OffNominal" | "Closed";
export type AdvisoryInclusion = "Unknown" | "AtLeastOneAdvisoryOrCondition" | "NoAdvisoriesOrConditions";

export interface UpsertResponse {
  planning_result: PlanningResult;
  flight_plan_status: FlightPlanStatus;
  notes?: string;
  includes_advisories?: AdvisoryInclusion;
}

/** The service account and its pilot, created the first time the qualifier plans anything. */
export async function virtualPilot(
  db: Db,
  d1: D1Database,
  now: number,
): Promise<{ accountId: string; pilotId: string }> {
  await d1
    .prepare(
      "INSERT INTO accounts (id, public_id, name, rate_limit_per_minute, created_at) VALUES (?, ?, ?, NULL, ?) ON CONFLICT DO NOTHING",
    )
    .bind(INTERUSS_ACCOUNT.id, INTERUSS_ACCOUNT.publicId, INTERUSS_ACCOUNT.name, now)
    .run();
  return {
    accountId: INTERUSS_ACCOUNT.id,
    pilotId: await ensurePilot(db, INTERUSS_ACCOUNT.id, VIRTUAL_USER, now),
  };
}

interface UpsertRequest {
  usageState: "Planned" | "InUse" | "Closed";
  uasState: string;
  volumes: Volume[];
  /** ASTM F3548-21 priority (`astm_f3548_21.priority`; 0, the lowest, when not given). */
  priority: number;
  style: "Hypothetical" | "IfAllowed" | "InReality";
  requestId: string;
  /** What is wrong with its U-space flight authorisation data (none when valid or not given). */
  authorisationProblems: string[];
}

function upsertRequestOf(body: unknown): UpsertRequest {
  if (!isObject(body)) throw new InvalidInput("body", "must be a JSON object");
  if (typeof body.request_id !== "string") throw new InvalidInput("request_id", "required (a string)");
  const style = body.execution_style;
  if (style !== "Hypothetical" && style !== "IfAllowed" && style !== "InReality")
    throw new InvalidInput("execution_style", "must be Hypothetical, IfAllowed or InReality");
  const plan = body.flight_plan;
  if (!isObject(plan) || !isObject(plan.basic_information))
    throw new InvalidInput("flight_plan.basic_information", "required");
  const info = plan.basic_information;
  const usage = info.usage_state;
  if (usage !== "Planned" && usage !== "InUse" && usage !== "Closed")
    throw new InvalidInput("flight_plan.basic_information.usage_state", "must be Planned, InUse or Closed");
  if (typeof info.uas_state !== "string")
    throw new InvalidInput("flight_plan.basic_information.uas_state", "required (a string)");
  const area = info.area ?? [];
  if (!Array.isArray(area)) throw new InvalidInput("flight_plan.basic_information.area", "must be an array");
  const astm = plan.astm_f3548_21 ?? {};
  if (!isObject(astm)) throw new InvalidInput("flight_plan.astm_f3548_21", "must be an object");
  const priority = astm.priority ?? 0;
  if (typeof priority !== "number" || !Number.isInteger(priority) || priority < 0)
    throw new InvalidInput("flight_plan.astm_f3548_21.priority", "must be a whole number, 0 or more");
  const authorisation = plan.uspace_flight_authorisation;
  if (authorisation !== undefined && !isObject(authorisation))
    throw new InvalidInput("flight_plan.uspace_flight_authorisation", "must be an object");
  return {
    authorisationProblems: authorisation === undefined ? [] : flightAuthorisationProblems(authorisation),
    usageState: usage,
    uasState: info.uas_state,
    volumes: area.map((v, i) => volume4d(v, `flight_plan.basic_information.area.${i}`)),
    priority,
    style,
    requestId: body.request_id,
  };
}

/** OiMaxPlanHorizon (F3548 OPIN0030): no operational intent may start later than this from now. */
const MAX_PLAN_HORIZON_MS = 30 * 24 * 3600_000;

/** Why the plan's times cannot be an operational intent (OPIN0030, USS0105: no end in the past), or null. */
function timingProblem(volumes: Volume[], now: number): string | null {
  const tooLate = volumes.find((v) => v.start !== null && v.start > now + MAX_PLAN_HORIZON_MS);
  if (tooLate)
    return `The flight plan starts more than 30 days ahead (${new Date(tooLate.start!).toISOString()}): plan it within 30 days of its start`;
  const ended = volumes.find((v) => v.end !== null && v.end < now);
  if (ended)
    return `The flight plan has a volume that ended at ${new Date(ended.end!).toISOString()}, in the past`;
  return null;
}

/** The F3548 state of a plan's intent: Contingent and Nonconforming when off-nominal, else by its use. */
function intentState(status: FlightPlanStatus, uasState: string) {
  if (status === "OffNominal") return uasState === "Contingent" ? "Contingent" : "Nonconforming";
  return status === "OkToFly" ? "Activated" : "Accepted";
}

/** One polygon for the plan: the volume itself, or the box around several (a superset, as allowed). */
function planArea(volumes: Volume[]): Polygon {
  if (volumes.length === 1) return volumes[0]!.area;
  const boxes = volumes.map((v) => bboxOf(v.area));
  const minLng = Math.min(...boxes.map((b) => b.minLng));
  const minLat = Math.min(...boxes.map((b) => b.minLat));
  const maxLng = Math.max(...boxes.map((b) => b.maxLng));
  const maxLat = Math.max(...boxes.map((b) => b.maxLat));
  const ring: Position[] = [
    [minLng, minLat],
    [maxLng, minLat],
    [maxLng, maxLat],
    [minLng, maxLat],
    [minLng, minLat],
  ];
  return { type: "Polygon", coordinates: [ring] };
}

const advisoriesOf = (findings: Finding[]): AdvisoryInclusion =>
  findings.length > 0 ? "AtLeastOneAdvisoryOrCondition" : "NoAdvisoriesOrConditions";

/** PUT /flight_plans/{id}. A repeated request_id gets the first answer again. */
export async function upsertFlightPlan(
  db: Db,
  env: Bindings,
  id: string,
  body: unknown,
  now: number,
  ownOrigin: string,
): Promise<UpsertResponse> {
  const d1 = env.DB;
  const request = upsertRequestOf(body);
  const existing = await findPlanLink(d1, id);
  if (existing && existing.requestId === request.requestId)
    return existing.response as unknown as UpsertResponse;
  const currentStatus = (existing?.status ?? "NotPlanned") as FlightPlanStatus;

  if (request.usageState === "Closed") {
    if (request.style === "Hypothetical")
      return {
        planning_result: "Completed",
        flight_plan_status: "Closed",
        includes_advisories: "NoAdvisoriesOrConditions",
      };
    if (existing) await closeLinked(db, existing, now);
    const response: UpsertResponse = {
      planning_result: "Completed",
      flight_plan_status: "Closed",
      includes_advisories: "NoAdvisoriesOrConditions",
    };
    if (existing) await deletePlanLink(d1, id);
    await removePlanIntent(db, env, id);
    return response;
  }

  const rejected = (notes: string): UpsertResponse => ({
    planning_result: "Rejected",
    flight_plan_status: currentStatus,
    notes,
    includes_advisories: "Unknown",
  });
  if (request.volumes.length === 0)
    return rejected("The flight plan has no area: this service plans flights by their area");
  if (request.authorisationProblems.length > 0)
    return rejected(`Invalid U-space flight authorisation data: ${request.authorisationProblems.join("; ")}`);
  const area = planArea(request.volumes);
  if (areaSizeError(area))
    return rejected("The flight plan's area spans more than 1° of latitude or longitude");
  const timing = timingProblem(request.volumes, now);
  if (timing) return rejected(timing);

  const findings = (
    await Promise.all(request.volumes.map((volume) => assessVolume(db, d1, volume, { now })))
  ).flat();
  const blocking = findings.filter((f) => f.effect === "Block");
  const inUse = request.usageState === "InUse";
  if (blocking.length > 0 && request.style !== "InReality")
    return rejected(
      `Not authorized automatically: ${[...new Set(blocking.map((f) => `${f.name}: ${f.reason}`))].join("; ")}`,
    );
  const status: FlightPlanStatus =
    blocking.length > 0 || (inUse && request.uasState !== "Nominal")
      ? "OffNominal"
      : inUse
        ? "OkToFly"
        : "Planned";
  // Strategic coordination: no conflict with an intent of equal or higher priority. An off-nominal
  // flight is not deconflicted (F3548: it must be shared whatever it meets); its key is still found,
  // for a new intent is first written Accepted.
  let coordination: Coordination;
  try {
    coordination = await coordinate(
      db,
      env,
      {
        flightPlanId: request.style === "Hypothetical" ? null : id,
        volumes: request.volumes,
        priority: request.priority,
        inUse,
      },
      now,
    );
  } catch (err) {
    // The DSS refused the query (an area over its 2,500 km², say): no coordination, no plan.
    if (!(err instanceof IntentRefused)) throw err;
    return rejected(`Strategic coordination is not possible for this plan: ${err.message}`);
  }
  if (status !== "OffNominal" && coordination.conflicts.length > 0)
    return rejected(conflictNote(coordination.conflicts));

  const response: UpsertResponse = {
    planning_result: "Completed",
    flight_plan_status: status,
    ...(blocking.length > 0
      ? { notes: `Flying without authorization: ${blocking.map((f) => f.name).join("; ")}` }
      : {}),
    includes_advisories: advisoriesOf(findings),
  };
  if (request.style === "Hypothetical") return response;

  try {
    await putPlanIntent(
      db,
      env,
      id,
      {
        volumes: request.volumes,
        priority: request.priority,
        state: intentState(status, request.uasState),
        key: coordination.key,
      },
      ownOrigin,
      now,
    );
  } catch (err) {
    // The DSS refused what this service asked: the interface's answer for a downstream failure.
    if (!(err instanceof IntentRefused)) throw err;
    return { planning_result: "Failed", flight_plan_status: currentStatus, notes: err.message };
  }
  // SCD0090: the plan now conflicts with intents of lower priority; its user is told.
  if (coordination.preempted.length > 0)
    await tellUser(
      db,
      coordination.preempted.length,
      `Flight plan ${id} conflicts with lower-priority operational intents: ${coordination.preempted.map((r) => `${r.id} (${r.manager})`).join("; ")}`,
      now,
    );
  // A modified plan replaces the old one: its flight is closed and a new plan and flight are made.
  if (existing) await closeLinked(db, existing, now);
  const starts = request.volumes.map((v) => v.start).filter((t): t is number => t !== null);
  const ends = request.volumes.map((v) => v.end).filter((t): t is number => t !== null);
  const startTime = starts.length > 0 ? Math.min(...starts) : now;
  const endTime = ends.length > 0 ? Math.max(...ends) : startTime + DEFAULT_DURATION_MS;
  const uppers = request.volumes.map((v) => v.upperM ?? v.lowerM ?? 0);
  const lowers = request.volumes.map((v) => v.lowerM ?? 0);
  const box = bboxOf(area);
  const { accountId, pilotId } = await virtualPilot(db, d1, now);
  const plan = await insertPlan(db, {
    id: newId("flight_plan"),
    accountId,
    pilotId,
    aircraftId: null,
    takeoffLatitude: (box.minLat + box.maxLat) / 2,
    takeoffLongitude: (box.minLng + box.maxLng) / 2,
    startTime,
    endTime,
    maxAltitudeAgl: Math.max(...uppers),
    minAltitudeAgl: Math.min(...lowers),
    buffer: 0,
    geometry: area,
    area,
    ...box,
    flightDescription: `InterUSS flight plan ${id}`,
    rulesets: [],
    flightFeatures: {},
    flightId: null,
    createdAt: now,
  });
  const flight = await createPlanFlight(db, plan, { public: false }, now);
  await putPlanLink(
    d1,
    {
      id,
      planId: plan.id,
      flightId: flight?.id ?? null,
      status,
      requestId: request.requestId,
      response: { ...response },
    },
    { ...box, start: startTime, end: endTime },
    now,
  );
  return response;
}

/** Ends the flight (it has started) or deletes it with its plan (it has not). */
async function closeLinked(db: Db, link: PlanLink, now: number): Promise<void> {
  if (!link.flightId || !link.planId) return;
  const flight = await findFlight(db, INTERUSS_ACCOUNT.id, link.flightId);
  if (!flight) return;
  if (flight.startTime > now) {
    await deleteInactiveFlight(db, flight, now);
    await deletePlan(db, link.planId);
  } else if (flight.endTime >= now) await endFlight(db, flight.id, now);
}

export interface DeleteResponse {
  planning_result: PlanningResult;
  flight_plan_status: FlightPlanStatus;
  notes?: string;
  includes_advisories?: AdvisoryInclusion;
}

/** DELETE /flight_plans/{id}: null when there is no such plan (404). */
export async function deleteFlightPlan(
  db: Db,
  env: Bindings,
  id: string,
  now: number,
): Promise<DeleteResponse | null> {
  const link = await findPlanLink(env.DB, id);
  if (!link) return null;
  await closeLinked(db, link, now);
  await deletePlanLink(env.DB, id);
  await removePlanIntent(db, env, id);
  return {
    planning_result: "Completed",
    flight_plan_status: "Closed",
    includes_advisories: "NoAdvisoriesOrConditions",
  };
}

/** POST /clear_area_requests: closes every qualifier plan whose box and window meet the extent. */
export async function clearArea(
  db: Db,
  env: Bindings,
  body: unknown,
  now: number,
): Promise<{ outcome: { success: boolean; message?: string } }> {
  const d1 = env.DB;
  if (!isObject(body) || typeof body.request_id !== "string")
    throw new InvalidInput("request_id", "required (a string)");
  const extent = volume4d(body.extent, "extent");
  const links = await planLinksIn(d1, bboxOf(extent.area), extent.start, extent.end);
  for (const link of links) {
    await closeLinked(db, link, now);
    await deletePlanLink(d1, link.id);
    await removePlanIntent(db, env, link.id);
  }
  return { outcome: { success: true, message: `Closed ${links.length} flight plan(s)` } };
}

/**
 * GET /user_notifications: what the virtual user was told outside a planning answer: the conflicts
 * strategic coordination raised for its plans (worker/services/operationalIntents.ts), observed in
 * the window (`before` defaults to now).
 */
export async function userNotifications(
  db: Db,
  after: string | undefined,
  before: string | undefined,
  now: number,
) {
  const window = notificationWindow(after, before, now);
  const notifications = await userNotificationsBetween(db, window.after, Math.min(window.before, now));
  return {
    user_notifications: notifications.map((n) => ({
      observed_at: { value: new Date(n.observedAt).toISOString(), format: "RFC3339" as const },
      conflicts: n.conflicts,
      message: n.message,
    })),
  };
}

/** The `after` and `before` of a user_notifications query (ms); `before` defaults to now. */
export function notificationWindow(
  after: string | undefined,
  before: string | undefined,
  now: number,
): { after: number; before: number } {
  const start = after === undefined ? Number.NaN : Date.parse(after);
  if (!Number.isFinite(start)) throw new InvalidInput("after", "required (an RFC 3339 time)");
  if (before === undefined) return { after: start, before: now };
  const end = Date.parse(before);
  if (!Number.isFinite(end)) throw new InvalidInput("before", "must be an RFC 3339 time");
  if (end < start) throw new InvalidInput("before", "must be after `after`");
  return { after: start, before: end };
}
