import type { Volume4DInput } from "../dss/extents";
import { type Outcome, rfcTime } from "../dss/outcome";
import {
  isNominal,
  NULL_SUBSCRIPTION_ID,
  type OperationalIntentReference,
  type OperationalIntentState,
  SCD_SCOPES,
  type SubscriberToNotify,
  scdDssOf,
} from "../dss/scdDss";
import type { Bindings } from "../env";
import {
  f3548Volume,
  meet,
  type OperationalIntent,
  type OperationalIntentDetails,
  type ParsedIntent,
  parseIntent,
  readDetails,
} from "../interuss/intentDetails";
import { InvalidInput, type Volume } from "../interuss/volumes";
import type { SqlDb } from "../store/accounts";
import {
  addUserNotification,
  deleteOwnIntent,
  findOwnIntent,
  findPeerIntent,
  saveOwnIntent,
  savePeerIntent,
} from "../store/strategicCoordination";
import { type Fetch, peerUrl, tellPeer, type UssAuthorityConfig, ussRequest } from "./ussAuthority";

/**
 * Windsock's own USS side of ASTM F3548-21 strategic coordination, in its own DSS (worker/dss/
 * scdDss.ts, called through its binding). A planned flight is an operational intent managed by
 * `windsock`: Accepted while planned, Activated in use, Nonconforming off-nominal. Its details
 * (volumes, priority) are kept for other USSs (worker/services/ussPeers.ts answers them), and the
 * subscribers the DSS names are told of each change (`POST /uss/v1/operational_intents`). Before planning, the details of every other USS's intent the DSS finds
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
      time_start: rfcTime(Math.min(...times.map((t) => t[0]!))),
      time_end: rfcTime(Math.max(...times.map((t) => t[1]!))),
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
    const url = peerUrl(reference.uss_base_url, `/uss/v1/operational_intents/${reference.id}`);
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
  const current = ownId === null ? null : await findOwnIntent(db, ownId);
  // SCD0030: changing an Activated intent may keep the conflicts it already had.
  const before =
    current && plan.inUse && current.reference.state === "Activated"
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
      reference.manager === OWN_MANAGER ? ownView(db, reference) : peerView(db, env, reference, now, fetcher),
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
    if (!isNominal(reference.state) || !meet(plan.volumes, view.volumes)) continue;
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
  const details: OperationalIntentDetails = {
    volumes: plan.state === "Contingent" ? [] : volumes,
    off_nominal_volumes: isNominal(plan.state) ? [] : volumes,
    priority: plan.priority,
  };
  const endsAt = Math.max(...volumes.map((v) => Date.parse(v.time_end!.value)));
  await saveOwnIntent(db, { id, flightPlanId, reference, details, endsAt }, now);
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
  const own = peerUrl(ownBaseUrl, "");
  await Promise.all(
    subscribers
      .filter((s) => peerUrl(s.uss_base_url, "") !== own)
      .map((s) =>
        tellPeer(
          env,
          peerUrl(s.uss_base_url, "/uss/v1/operational_intents"),
          SCD_SCOPES.strategicCoordination,
          {
            operational_intent_id: intentId,
            ...(intent ? { operational_intent: intent } : {}),
            subscriptions: s.subscriptions,
          },
          "operational intent notification",
          fetcher,
        ),
      ),
  );
}

/** The row kept of a peer's intent: the intent as received, with what planning looks it up by. */
export const peerRecord = (intent: unknown, parsed: ParsedIntent, manager: string) => ({
  id: parsed.reference.id,
  manager,
  version: parsed.reference.version,
  ovn: parsed.reference.ovn,
  intent,
  endsAt: parsed.endsAt,
});

/** A conflict told to the planning user (flight_planning/v1 `user_notifications`). */
export async function tellUser(db: SqlDb, conflicts: number, message: string, now: number): Promise<void> {
  await addUserNotification(db, {
    observedAt: now,
    conflicts: conflicts === 1 ? "Single" : "Multiple",
    message,
  });
}
