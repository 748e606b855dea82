import type { Volume4DInput } from "../dss/extents";
import type { Outcome } from "../dss/outcome";
import {
  NULL_SUBSCRIPTION_ID,
  type OperationalIntentReference,
  type OperationalIntentState,
} from "../dss/scdDss";
import type { Bindings } from "../env";
import type { Volume } from "../interuss/volumes";

/**
 * Windsock's own USS side of ASTM F3548-21 strategic coordination, in its own DSS (worker/dss/
 * scdDss.ts, called through its binding): a planned flight is an operational intent reference
 * managed by `windsock`, Accepted while planned and Activated in use; a plan that meets another
 * USS's Accepted or Activated intent (the same space and time, altitudes included) is a conflict the
 * planner refuses (F3548 SCD0035: no conflict with an intent of equal priority; Windsock's plans all
 * have priority 0).
 */

/** The manager of this service's own intents in its own DSS. */
export const OWN_MANAGER = "windsock";
const CALLER = { sub: OWN_MANAGER, scopes: ["utm.strategic_coordination", "utm.conformance_monitoring_sa"] };
/** A volume without a time is planned from now for this long (as the plan's flight is). */
const OPEN_VOLUME_MS = 3600_000;

const scdDssOf = (env: Bindings) => env.SCD_DSS.get(env.SCD_DSS.idFromName("f3548-21"));

/** A planning volume as F3548's Volume4D (altitudes as the plan gives them, meters). */
function volume4d(volume: Volume, now: number): Volume4DInput {
  const ring = volume.area.coordinates[0]!;
  const start = volume.start ?? now;
  const end = volume.end ?? Math.max(start, now) + OPEN_VOLUME_MS;
  const altitude = (value: number) => ({ value, reference: "W84", units: "M" });
  return {
    volume: {
      outline_polygon: { vertices: ring.slice(0, -1).map(([lng, lat]) => ({ lat: lat!, lng: lng! })) },
      ...(volume.lowerM !== null ? { altitude_lower: altitude(volume.lowerM) } : {}),
      ...(volume.upperM !== null ? { altitude_upper: altitude(volume.upperM) } : {}),
    },
    time_start: { value: new Date(start).toISOString() },
    time_end: { value: new Date(end).toISOString() },
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

/** Other USSs' Accepted or Activated intents that meet any of the volumes. */
export async function conflictingIntents(
  env: Bindings,
  volumes: Volume[],
  now: number,
): Promise<OperationalIntentReference[]> {
  const dss = scdDssOf(env);
  const found = new Map<string, OperationalIntentReference>();
  for (const volume of volumes) {
    const outcome = (await dss.queryOperationalIntents(OWN_MANAGER, volume4d(volume, now))) as Outcome<{
      operational_intent_references: OperationalIntentReference[];
    }>;
    for (const intent of unwrap(outcome, "querying operational intents").operational_intent_references)
      if (intent.manager !== OWN_MANAGER && (intent.state === "Accepted" || intent.state === "Activated"))
        found.set(intent.id, intent);
  }
  return [...found.values()];
}

/** The planner's note for a refused plan: each conflicting intent and its manager. */
export const conflictNote = (intents: OperationalIntentReference[]) =>
  `Conflicts with ${intents.length === 1 ? "an operational intent" : "operational intents"} of another USS in the same space and time: ${intents
    .map((i) => `${i.id} (${i.manager}, ${i.state})`)
    .join("; ")}`;

/**
 * Creates or replaces the flight plan's intent (its key: this service's own intents there; the
 * caller has checked there is no other USS's) and answers its id and OVN.
 */
export async function putPlanIntent(
  env: Bindings,
  flightPlanId: string,
  volumes: Volume[],
  state: OperationalIntentState,
  ussBaseUrl: string,
  now: number,
): Promise<{ id: string; ovn: string }> {
  const dss = scdDssOf(env);
  const id = await intentIdOf(flightPlanId);
  const current = (await dss.getOperationalIntent(OWN_MANAGER, id)) as Outcome<{
    operational_intent_reference: OperationalIntentReference;
  }>;
  const ovn = current.ok ? current.value.operational_intent_reference.ovn : undefined;
  // Its implicit subscription (Activated needs one), made with the first write and kept after.
  const subscription = current.ok ? current.value.operational_intent_reference.subscription_id : undefined;
  const key = new Set<string>();
  for (const volume of volumes) {
    const outcome = (await dss.queryOperationalIntents(OWN_MANAGER, volume4d(volume, now))) as Outcome<{
      operational_intent_references: OperationalIntentReference[];
    }>;
    for (const intent of unwrap(outcome, "querying operational intents").operational_intent_references)
      if (intent.manager === OWN_MANAGER && intent.id !== id) key.add(intent.ovn);
  }
  const written = (await dss.putOperationalIntent(CALLER, id, ovn, {
    extents: volumes.map((v) => volume4d(v, now)),
    key: [...key],
    state,
    uss_base_url: ussBaseUrl,
    ...(subscription && subscription !== NULL_SUBSCRIPTION_ID
      ? { subscription_id: subscription }
      : { new_subscription: { uss_base_url: ussBaseUrl } }),
  })) as Outcome<{ operational_intent_reference: OperationalIntentReference }>;
  const reference = unwrap(written, "writing the operational intent").operational_intent_reference;
  return { id: reference.id, ovn: reference.ovn };
}

/** Removes the flight plan's intent, if it has one. */
export async function removePlanIntent(env: Bindings, flightPlanId: string): Promise<void> {
  const dss = scdDssOf(env);
  const id = await intentIdOf(flightPlanId);
  const current = (await dss.getOperationalIntent(OWN_MANAGER, id)) as Outcome<{
    operational_intent_reference: OperationalIntentReference;
  }>;
  if (!current.ok) return;
  unwrap(
    (await dss.deleteOperationalIntent(
      OWN_MANAGER,
      id,
      current.value.operational_intent_reference.ovn,
    )) as Outcome<unknown>,
    "deleting the operational intent",
  );
}
