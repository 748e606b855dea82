import type { Volume4DInput } from "../dss/extents";
import type { Outcome } from "../dss/outcome";
import {
  NULL_SUBSCRIPTION_ID,
  type OperationalIntentReference,
  type OperationalIntentState,
  SCD_SCOPES,
  type SubscriberToNotify,
  scdDssOf,
} from "../dss/scdDss";
import type { Bindings } from "../env";
import { findPlanLink } from "../interuss/store";
import { InvalidInput, type Volume, volume4d, volumesMeet } from "../interuss/volumes";
import type { SqlDb } from "../store/accounts";
import { latestLivePosition } from "../store/livePositions";
import {
  addUserNotification,
  deleteOwnIntent,
  deletePeerIntent,
  findOwnIntent,
  findPeerIntent,
  saveOwnIntent,
  savePeerIntent,
  saveUssReport,
} from "../store/strategicCoordination";
import { type Fetch, type UssAuthorityConfig, ussRequest } from "./ussAuthority";

/**
 * Windsock's own USS side of ASTM F3548-21 strategic coordination, in its own DSS (worker/dss/
 * scdDss.ts, called through its binding). A planned flight is an operational intent managed by
 * `windsock`: Accepted while planned, Activated in use, Nonconforming off-nominal. Its details
 * (volumes, priority) are kept here and answered to other USSs (`GET /uss/v1/operational_intents/
 * {id}`), and the subscribers the DSS names are told of each change (`POST /uss/v1/
 * operational_intents`). Before planning, the details of every other USS's intent the DSS finds
 * there are fetched from its manager (or taken from what it last notified, at the same version):
 * a plan that meets an Accepted or Activated intent of equal or higher priority is refused (SCD0015,
 * SCD0035: equal priorities may not conflict here), and one whose manager cannot say what it holds is
 * refused too, since the plan could neither be proven clear nor name that intent's OVN in its key.
 */

/** The manager of this service's own intents in its own DSS. */
export const OWN_MANAGER = "windsock";
const CALLER = {
  sub: OWN_MANAGER,
  scopes: [SCD_SCOPES.strategicCoordination, SCD_SCOPES.conformanceMonitoring],
};
/** A volume without a time is planned from now for this long (as the plan's flight is). */
const OPEN_VOLUME_MS = 3600_000;
/** Without altitudes a volume reaches from the ground to 400 ft, the small-UAS ceiling (meters). */
const DEFAULT_FLOOR_M = 0;
const DEFAULT_CEILING_M = 121.92;

export interface OperationalIntentDetails {
  volumes: Volume4DInput[];
  off_nominal_volumes: Volume4DInput[];
  priority: number;
}

export interface OperationalIntent {
  reference: OperationalIntentReference;
  details: OperationalIntentDetails;
}

const rfc3339 = (ms: number) => ({ value: new Date(ms).toISOString(), format: "RFC3339" as const });
const meters = (value: number) => ({ value, reference: "W84", units: "M" });

/** A planning volume as F3548's Volume4D: its outline as given, altitudes and times always. */
export function f3548Volume(volume: Volume, now: number): Volume4DInput {
  const start = volume.start ?? now;
  const end = volume.end ?? Math.max(start, now) + OPEN_VOLUME_MS;
  const outline = volume.circle
    ? {
        outline_circle: {
          center: { lat: volume.circle.center[1], lng: volume.circle.center[0] },
          radius: { value: volume.circle.radiusM, units: "M" },
        },
      }
    : {
        outline_polygon: {
          vertices: volume.area.coordinates[0]!.slice(0, -1).map(([lng, lat]) => ({ lat: lat!, lng: lng! })),
        },
      };
  return {
    volume: {
      ...outline,
      altitude_lower: meters(volume.lowerM ?? DEFAULT_FLOOR_M),
      altitude_upper: meters(volume.upperM ?? Math.max(DEFAULT_CEILING_M, volume.lowerM ?? 0)),
    },
    time_start: rfc3339(start),
    time_end: rfc3339(end),
  };
}

/** The intent id of a flight plan: a UUID derived from its id, so no mapping needs keeping. */
export async function intentIdOf(flightPlanId: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`windsock-flight-plan|${flightPlanId}`)),
  );
  digest[6] = (digest[6]! & 0x0f) | 0x40;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = [...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

const unwrap = <T>(outcome: Outcome<T>, what: string): T => {
  if (outcome.ok) return outcome.value;
  throw new IntentRefused(`${what}: the DSS answered ${outcome.status} (${outcome.message})`);
};

export class IntentRefused extends Error {}

/** An intent the plan may not meet, and why. */
export interface Conflict {
  reference: OperationalIntentReference;
  reason: string;
}

export interface Coordination {
  conflicts: Conflict[];
  /** Intents of lower priority the plan meets: allowed, and told to its user (SCD0090). */
  preempted: OperationalIntentReference[];
  /** The OVNs the DSS will ask the plan's key to name (every intent it meets, but its own). */
  key: string[];
}

/** What planning needs of the plan: its id (null while hypothetical), volumes, priority and use. */
export interface PlanShape {
  flightPlanId: string | null;
  volumes: Volume[];
  priority: number;
  /** In use: conflicts its Activated intent already had may remain through a change (SCD0030). */
  inUse: boolean;
}

/**
 * The intents the DSS holds where and when the plan would fly. Each volume's outline is asked over
 * the plan's whole window and altitudes, as the DSS's key check sees the plan (one bounding extent).
 */
async function intentsAround(env: Bindings, volumes: Volume4DInput[]): Promise<OperationalIntentReference[]> {
  const dss = scdDssOf(env);
  const times = volumes.map((v) => [Date.parse(v.time_start!.value), Date.parse(v.time_end!.value)]);
  const floors = volumes.map((v) => v.volume.altitude_lower!.value);
  const ceilings = volumes.map((v) => v.volume.altitude_upper!.value);
  const found = new Map<string, OperationalIntentReference>();
  for (const v of volumes) {
    const outcome = (await dss.queryOperationalIntents(OWN_MANAGER, {
      volume: {
        ...v.volume,
        altitude_lower: { value: Math.min(...floors) },
        altitude_upper: { value: Math.max(...ceilings) },
      },
      time_start: rfc3339(Math.min(...times.map((t) => t[0]!))),
      time_end: rfc3339(Math.max(...times.map((t) => t[1]!))),
    })) as Outcome<{ operational_intent_references: OperationalIntentReference[] }>;
    for (const intent of unwrap(outcome, "querying operational intents").operational_intent_references)
      found.set(intent.id, intent);
  }
  return [...found.values()];
}

/** An intent as planning weighs it: its OVN, volumes (nominal and off-nominal) and priority. */
type IntentView =
  | { ok: true; ovn: string; volumes: Volume[]; priority: number }
  | { ok: false; reason: string };

/** One of this service's own intents, from the details it keeps. */
async function ownView(db: SqlDb, reference: OperationalIntentReference): Promise<IntentView> {
  const record = await findOwnIntent(db, reference.id);
  if (!record) return { ok: false, reason: "its details are not kept here" };
  const details = readDetails(record.details, "details");
  return { ok: true, ovn: reference.ovn, ...details };
}

/** A peer's intent: what it last notified at this version, else asked of its USS (and kept). */
async function peerView(
  db: SqlDb,
  config: UssAuthorityConfig,
  reference: OperationalIntentReference,
  now: number,
  fetcher: Fetch,
): Promise<IntentView> {
  const known = await findPeerIntent(db, reference.id);
  let intent = known && known.version === reference.version ? known.intent : undefined;
  if (intent === undefined) {
    if (reference.uss_availability === "Down") return { ok: false, reason: "its USS is marked Down" };
    const url = `${reference.uss_base_url.replace(/\/$/, "")}/uss/v1/operational_intents/${reference.id}`;
    try {
      const res = await ussRequest(config, url, "GET", SCD_SCOPES.strategicCoordination, undefined, fetcher);
      if (!res.ok) return { ok: false, reason: `its USS answered ${res.status} for its details` };
      intent = (res.body as { operational_intent?: unknown } | null)?.operational_intent;
    } catch (err) {
      return { ok: false, reason: `its USS could not be asked for its details (${String(err)})` };
    }
  }
  try {
    const parsed = parseIntent(intent, "operational_intent");
    if (parsed.reference.id !== reference.id)
      return { ok: false, reason: "its USS answered the details of another intent" };
    if (known?.intent !== intent)
      await savePeerIntent(db, peerRecord(intent, parsed, reference.manager), now);
    return { ok: true, ovn: parsed.reference.ovn, volumes: parsed.volumes, priority: parsed.priority };
  } catch (err) {
    if (!(err instanceof InvalidInput)) throw err;
    return { ok: false, reason: `its USS answered invalid details (${err.message})` };
  }
}

const meet = (ours: Volume[], theirs: Volume[]) => ours.some((a) => theirs.some((b) => volumesMeet(a, b)));

/**
 * What planning these volumes at this priority meets in the DSS, this service's own intents and
 * other USSs' alike: the conflicts that refuse it, the lower-priority intents it preempts, and the
 * key its write must carry.
 */
export async function coordinate(
  db: SqlDb,
  env: Bindings,
  plan: PlanShape,
  now: number,
  fetcher: Fetch = fetch,
): Promise<Coordination> {
  const ownId = plan.flightPlanId === null ? null : await intentIdOf(plan.flightPlanId);
  const config = env as Bindings & UssAuthorityConfig;
  const current = ownId === null ? null : await findOwnIntent(db, ownId);
  // SCD0030: changing an Activated intent may keep the conflicts it already had.
  const before =
    current && plan.inUse && (current.reference as OperationalIntentReference).state === "Activated"
      ? readDetails(current.details, "details").volumes
      : [];
  const coordination: Coordination = { conflicts: [], preempted: [], key: [] };
  const around = await intentsAround(
    env,
    plan.volumes.map((v) => f3548Volume(v, now)),
  );
  // Every manager is asked at once: a silent one costs one time-out, not one each.
  const others = around.filter((reference) => reference.id !== ownId);
  const views = await Promise.all(
    others.map((reference) =>
      reference.manager === OWN_MANAGER
        ? ownView(db, reference)
        : peerView(db, config, reference, now, fetcher),
    ),
  );
  for (const [i, reference] of others.entries()) {
    const view = views[i]!;
    if (!view.ok) {
      // SCD0005: a Down USS's Accepted intent counts as of the lowest priority (and needs no key).
      if (reference.uss_availability === "Down" && reference.state === "Accepted")
        coordination.preempted.push(reference);
      // Anything else can neither be shown clear nor be named in the key.
      else coordination.conflicts.push({ reference, reason: view.reason });
      continue;
    }
    coordination.key.push(view.ovn);
    const blocking = reference.state === "Accepted" || reference.state === "Activated";
    if (!blocking || !meet(plan.volumes, view.volumes)) continue;
    if (view.priority < plan.priority) coordination.preempted.push(reference);
    else if (!meet(before, view.volumes))
      coordination.conflicts.push({
        reference,
        reason: `priority ${view.priority}, not below this plan's ${plan.priority}`,
      });
  }
  return coordination;
}

/** The planner's note for a refused plan: each conflicting intent, its manager and why. */
export const conflictNote = (conflicts: Conflict[]) =>
  `Conflicts with ${conflicts.length === 1 ? "an operational intent" : "operational intents"} of another USS in the same space and time: ${conflicts
    .map((c) => `${c.reference.id} (${c.reference.manager}, ${c.reference.state}: ${c.reason})`)
    .join("; ")}`;

/**
 * Creates or replaces the flight plan's intent with the key `coordinate` found, keeps its details
 * for other USSs and notifies the subscribers the DSS names; answers its id and OVN.
 */
export async function putPlanIntent(
  db: SqlDb,
  env: Bindings,
  flightPlanId: string,
  plan: { volumes: Volume[]; priority: number; state: OperationalIntentState; key: string[] },
  ownBaseUrl: string,
  now: number,
  fetcher: Fetch = fetch,
): Promise<{ id: string; ovn: string }> {
  const dss = scdDssOf(env);
  const id = await intentIdOf(flightPlanId);
  const current = (await dss.getOperationalIntent(OWN_MANAGER, id)) as Outcome<{
    operational_intent_reference: OperationalIntentReference;
  }>;
  const ovn = current.ok ? current.value.operational_intent_reference.ovn : undefined;
  // Its implicit subscription (Activated needs one), made with the first write and kept after.
  const subscription = current.ok ? current.value.operational_intent_reference.subscription_id : undefined;
  const volumes = plan.volumes.map((v) => f3548Volume(v, now));
  type Written = {
    operational_intent_reference: OperationalIntentReference;
    subscribers: SubscriberToNotify[];
  };
  const write = async (
    state: OperationalIntentState,
    at: string | undefined,
    subscriptionId: string | undefined,
  ) =>
    unwrap(
      (await dss.putOperationalIntent(CALLER, id, at, {
        extents: volumes,
        key: plan.key,
        state,
        uss_base_url: ownBaseUrl,
        ...(subscriptionId && subscriptionId !== NULL_SUBSCRIPTION_ID
          ? { subscription_id: subscriptionId }
          : { new_subscription: { uss_base_url: ownBaseUrl } }),
      })) as Outcome<Written>,
      "writing the operational intent",
    );
  // A DSS creates intents Accepted only: a plan first flown (or off-nominal) is created, then moved on.
  let written = await write(ovn === undefined ? "Accepted" : plan.state, ovn, subscription);
  if (written.operational_intent_reference.state !== plan.state)
    written = await write(
      plan.state,
      written.operational_intent_reference.ovn,
      written.operational_intent_reference.subscription_id,
    );
  const { operational_intent_reference: reference, subscribers } = written;
  const offNominal = plan.state === "Nonconforming" || plan.state === "Contingent";
  const details: OperationalIntentDetails = {
    volumes: plan.state === "Contingent" ? [] : volumes,
    off_nominal_volumes: offNominal ? volumes : [],
    priority: plan.priority,
  };
  await saveOwnIntent(db, { id, flightPlanId, reference, details }, now);
  await notifySubscribers(env, subscribers, ownBaseUrl, id, { reference, details }, fetcher);
  return { id: reference.id, ovn: reference.ovn };
}

/** Removes the flight plan's intent, if it has one, and tells the subscribers. */
export async function removePlanIntent(
  db: SqlDb,
  env: Bindings,
  flightPlanId: string,
  fetcher: Fetch = fetch,
): Promise<void> {
  const dss = scdDssOf(env);
  const id = await intentIdOf(flightPlanId);
  const current = (await dss.getOperationalIntent(OWN_MANAGER, id)) as Outcome<{
    operational_intent_reference: OperationalIntentReference;
  }>;
  if (current.ok) {
    const reference = current.value.operational_intent_reference;
    const removed = unwrap(
      (await dss.deleteOperationalIntent(OWN_MANAGER, id, reference.ovn)) as Outcome<{
        subscribers: SubscriberToNotify[];
      }>,
      "deleting the operational intent",
    );
    await notifySubscribers(env, removed.subscribers, reference.uss_base_url, id, undefined, fetcher);
  }
  await deleteOwnIntent(db, id);
}

/**
 * Tells each subscriber (but this service's own subscriptions) of the intent's new state, or of its
 * removal (`intent` undefined). One that cannot be told is logged: the change stands (F3548 leaves
 * it to the subscriber to catch up from the DSS).
 */
async function notifySubscribers(
  env: Bindings,
  subscribers: SubscriberToNotify[],
  ownBaseUrl: string,
  intentId: string,
  intent: OperationalIntent | undefined,
  fetcher: Fetch,
): Promise<void> {
  const config = env as Bindings & UssAuthorityConfig;
  const own = ownBaseUrl.replace(/\/$/, "");
  await Promise.all(
    subscribers
      .filter((s) => s.uss_base_url.replace(/\/$/, "") !== own)
      .map(async (s) => {
        const url = `${s.uss_base_url.replace(/\/$/, "")}/uss/v1/operational_intents`;
        const body = {
          operational_intent_id: intentId,
          ...(intent ? { operational_intent: intent } : {}),
          subscriptions: s.subscriptions,
        };
        try {
          const res = await ussRequest(config, url, "POST", SCD_SCOPES.strategicCoordination, body, fetcher);
          if (!res.ok) throw new Error(`answered ${res.status}`);
        } catch (err) {
          console.error(
            JSON.stringify({
              level: "warn",
              msg: "operational intent notification failed",
              url,
              error: String(err),
            }),
          );
        }
      }),
  );
}

/** One of this service's own intents as other USSs see it, or null (404). */
export async function ownIntent(db: SqlDb, id: string): Promise<OperationalIntent | null> {
  const record = await findOwnIntent(db, id);
  return record
    ? {
        reference: record.reference as OperationalIntentReference,
        details: record.details as OperationalIntentDetails,
      }
    : null;
}

/** A received intent, read: its reference's id, version, OVN and manager, its volumes and priority. */
interface ParsedIntent {
  reference: { id: string; version: number; ovn: string; manager: string };
  volumes: Volume[];
  priority: number;
  endsAt: number;
}

function parseIntent(intent: unknown, field: string): ParsedIntent {
  const o = intent as { reference?: Record<string, unknown>; details?: Record<string, unknown> } | null;
  const reference = o?.reference;
  if (!reference || typeof reference !== "object") throw new InvalidInput(`${field}.reference`, "required");
  const { id, version, ovn, manager } = reference;
  if (typeof id !== "string") throw new InvalidInput(`${field}.reference.id`, "required (a string)");
  if (typeof version !== "number")
    throw new InvalidInput(`${field}.reference.version`, "required (a number)");
  if (typeof ovn !== "string" || ovn.length === 0)
    throw new InvalidInput(`${field}.reference.ovn`, "required (the OVN)");
  const { volumes, priority } = readDetails(o?.details ?? {}, `${field}.details`);
  const ends = volumes.map((v) => v.end).filter((t): t is number => t !== null);
  return {
    reference: { id, version, ovn, manager: typeof manager === "string" ? manager : "" },
    volumes,
    priority,
    endsAt: ends.length > 0 ? Math.max(...ends) : Number.MAX_SAFE_INTEGER,
  };
}

/** OperationalIntentDetails read: every volume (nominal and off-nominal) and the priority (0 if absent). */
function readDetails(details: unknown, field: string): { volumes: Volume[]; priority: number } {
  const d = (details ?? {}) as Record<string, unknown>;
  const list = (name: "volumes" | "off_nominal_volumes") => {
    const value = d[name] ?? [];
    if (!Array.isArray(value)) throw new InvalidInput(`${field}.${name}`, "must be an array");
    return value.map((v, i) => volume4d(v, `${field}.${name}.${i}`));
  };
  const priority = d.priority ?? 0;
  if (typeof priority !== "number" || !Number.isInteger(priority))
    throw new InvalidInput(`${field}.priority`, "must be an integer");
  return { volumes: [...list("volumes"), ...list("off_nominal_volumes")], priority };
}

/** The row kept of a peer's intent: the intent as received, with what planning looks it up by. */
const peerRecord = (intent: unknown, parsed: ParsedIntent, manager: string) => ({
  id: parsed.reference.id,
  manager,
  version: parsed.reference.version,
  ovn: parsed.reference.ovn,
  intent,
  endsAt: parsed.endsAt,
});

/** A notification refused: 403 (not the intent's manager by this service's records) or 409 (older). */
export class NotificationRefused extends Error {
  constructor(
    readonly status: 403 | 409,
    message: string,
  ) {
    super(message);
  }
}

/**
 * `POST /uss/v1/operational_intents` from `sender`: keeps the peer's new details (or forgets a
 * removed intent) for planning. Refuses a sender that does not manage the intent this service knows,
 * and a version older than the one it holds (or the same version with other content). A changed
 * intent that meets one of this service's Accepted or Activated intents (found through the
 * subscriptions the notification names) is told to the planning user (SCD0095).
 */
export async function receiveIntentNotification(
  db: SqlDb,
  env: Bindings,
  sender: string,
  notification: {
    operational_intent_id: string;
    operational_intent?: unknown;
    subscriptions: { subscription_id: string }[];
  },
  now: number,
): Promise<void> {
  const id = notification.operational_intent_id;
  const known = await findPeerIntent(db, id);
  if (known && known.manager !== sender)
    throw new NotificationRefused(
      403,
      `operational intent ${id} is managed by another USS by this USS's records`,
    );
  if (notification.operational_intent === undefined) {
    await deletePeerIntent(db, id);
    return;
  }
  const parsed = parseIntent(notification.operational_intent, "operational_intent");
  if (parsed.reference.id !== id)
    throw new InvalidInput("operational_intent.reference.id", "must be operational_intent_id");
  if (known && parsed.reference.version < known.version)
    throw new NotificationRefused(
      409,
      `version ${parsed.reference.version} is older than ${known.version}, received before`,
    );
  const same = JSON.stringify(known?.intent) === JSON.stringify(notification.operational_intent);
  if (known && parsed.reference.version === known.version && !same)
    throw new NotificationRefused(409, `version ${known.version} was received before with other content`);
  await savePeerIntent(db, peerRecord(notification.operational_intent, parsed, sender), now);
  const state = (notification.operational_intent as { reference?: { state?: unknown } }).reference?.state;
  if (!same && (state === "Accepted" || state === "Activated")) {
    const met = await ownIntentsMet(db, env, notification.subscriptions, parsed.volumes);
    if (met.length > 0)
      await tellUser(
        db,
        met.length,
        `Operational intent ${id} of ${sender} now conflicts with ${met.join(", ")}`,
        now,
      );
  }
}

/** This service's Accepted or Activated intents behind the subscriptions that the volumes meet. */
async function ownIntentsMet(
  db: SqlDb,
  env: Bindings,
  subscriptions: { subscription_id: string }[],
  volumes: Volume[],
): Promise<string[]> {
  const dss = scdDssOf(env);
  const met = new Set<string>();
  for (const { subscription_id } of subscriptions) {
    const found = (await dss.getSubscription(OWN_MANAGER, subscription_id)) as Outcome<{
      subscription: { dependent_operational_intents: string[] };
    }>;
    if (!found.ok) continue;
    for (const intentId of found.value.subscription.dependent_operational_intents) {
      const record = await findOwnIntent(db, intentId);
      const state = (record?.reference as OperationalIntentReference | undefined)?.state;
      if (!record || (state !== "Accepted" && state !== "Activated")) continue;
      if (meet(readDetails(record.details, "details").volumes, volumes)) met.add(intentId);
    }
  }
  return [...met];
}

/** A conflict told to the planning user (flight_planning/v1 `user_notifications`). */
export async function tellUser(db: SqlDb, conflicts: number, message: string, now: number): Promise<void> {
  await addUserNotification(db, {
    observedAt: now,
    conflicts: conflicts === 1 ? "Single" : "Multiple",
    message,
  });
}

type TelemetryAnswer =
  | {
      ok: true;
      value: {
        operational_intent_id: string;
        telemetry: {
          time_measured: { value: string; format: "RFC3339" };
          position: { latitude: number; longitude: number };
        };
      };
    }
  | { ok: false; status: 404 | 409 | 412; message: string };

/**
 * The latest position of an own off-nominal intent's aircraft, from the live-position index (its
 * flight's telemetry, by UDP or HTTP). Only Nonconforming and Contingent intents answer (F3548).
 */
export async function ownIntentTelemetry(db: SqlDb, d1: D1Database, id: string): Promise<TelemetryAnswer> {
  const record = await findOwnIntent(db, id);
  if (!record) return { ok: false, status: 404, message: "Windsock manages no such operational intent" };
  const state = (record.reference as OperationalIntentReference).state;
  if (state !== "Nonconforming" && state !== "Contingent")
    return {
      ok: false,
      status: 409,
      message: `the operational intent is ${state}: only off-nominal ones give telemetry`,
    };
  const link = await findPlanLink(d1, record.flightPlanId);
  const position = link?.flightId ? await latestLivePosition(d1, link.flightId) : null;
  if (!position)
    return { ok: false, status: 412, message: "no position was reported in the last two minutes" };
  return {
    ok: true,
    value: {
      operational_intent_id: id,
      telemetry: {
        time_measured: rfc3339(position.reportedAt),
        position: { latitude: position.latitude, longitude: position.longitude },
      },
    },
  };
}

/** `POST /uss/v1/reports`: keeps another USS's report for the operator and answers it with its id. */
export async function receiveUssReport<T extends object>(
  db: SqlDb,
  reporter: string,
  report: T,
  now: number,
): Promise<T & { report_id: string }> {
  const kept = { ...report, report_id: crypto.randomUUID() };
  await saveUssReport(db, { id: kept.report_id, reporter, report: kept }, now);
  console.log(
    JSON.stringify({ level: "info", msg: "USS report received", reporter, report_id: kept.report_id }),
  );
  return kept;
}
