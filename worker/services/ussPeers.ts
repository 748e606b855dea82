import { fail, type Outcome, type RfcTime, rfcTime } from "../dss/outcome";
import { isNominal, scdDssOf } from "../dss/scdDss";
import type { Bindings } from "../env";
import { meet, type OperationalIntent, parseIntent, readDetails } from "../interuss/intentDetails";
import { findPlanLink } from "../interuss/store";
import { InvalidInput, type Volume } from "../interuss/volumes";
import type { SqlDb } from "../store/accounts";
import { latestLivePosition } from "../store/livePositions";
import {
  deletePeerIntent,
  findOwnIntent,
  findPeerIntent,
  savePeerIntent,
  saveUssReport,
} from "../store/strategicCoordination";
import { OWN_MANAGER, peerRecord, tellUser } from "./operationalIntents";

/**
 * What other USSs ask of Windsock and tell it over ASTM F3548-21's `/uss/v1` (worker/routes/
 * ussScd.ts): the details and telemetry of its own intents, their changed intents (kept for
 * planning, worker/services/operationalIntents.ts, and told to the planning user when they meet one
 * of Windsock's), and their reports.
 */

/** One of this service's own intents as other USSs see it (404 for one it does not manage). */
export async function ownIntent(
  db: SqlDb,
  id: string,
): Promise<Outcome<{ operational_intent: OperationalIntent }>> {
  const record = await findOwnIntent(db, id);
  if (!record) return fail(404, NOT_MANAGED);
  return {
    ok: true,
    value: { operational_intent: { reference: record.reference, details: record.details } },
  };
}

const NOT_MANAGED = "Windsock manages no such operational intent";

/**
 * `POST /uss/v1/operational_intents` from `sender`: keeps the peer's new details (or forgets a
 * removed intent) for planning. Refuses a sender that does not manage the intent this service knows
 * (403), and a version older than the one it holds, or the same version with other content (409).
 * A changed intent that meets one of this service's Accepted or Activated intents (found through the
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
): Promise<Outcome<null>> {
  const id = notification.operational_intent_id;
  const known = await findPeerIntent(db, id);
  if (known && known.manager !== sender)
    return fail(403, `operational intent ${id} is managed by another USS by this USS's records`);
  if (notification.operational_intent === undefined) {
    await deletePeerIntent(db, id);
    return { ok: true, value: null };
  }
  const parsed = parseIntent(notification.operational_intent, "operational_intent");
  if (parsed.reference.id !== id)
    throw new InvalidInput("operational_intent.reference.id", "must be operational_intent_id");
  if (known && parsed.reference.version < known.version)
    return fail(409, `version ${parsed.reference.version} is older than ${known.version}, received before`);
  const same = JSON.stringify(known?.intent) === JSON.stringify(notification.operational_intent);
  if (known && parsed.reference.version === known.version && !same)
    return fail(409, `version ${known.version} was received before with other content`);
  await savePeerIntent(db, peerRecord(notification.operational_intent, parsed, sender), now);
  const state = (notification.operational_intent as { reference?: { state?: unknown } }).reference?.state;
  if (!same && isNominal(state)) {
    const met = await ownIntentsMet(db, env, notification.subscriptions, parsed.volumes);
    if (met.length > 0)
      await tellUser(
        db,
        met.length,
        `Operational intent ${id} of ${sender} now conflicts with ${met.join(", ")}`,
        now,
      );
  }
  return { ok: true, value: null };
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
      if (!record || !isNominal(record.reference.state)) continue;
      if (meet(readDetails(record.details, "details").volumes, volumes)) met.add(intentId);
    }
  }
  return [...met];
}

/**
 * The latest position of an own off-nominal intent's aircraft, from the live-position index (its
 * flight's telemetry, by UDP or HTTP). Only Nonconforming and Contingent intents answer (F3548).
 */
export async function ownIntentTelemetry(
  db: SqlDb,
  d1: D1Database,
  id: string,
): Promise<
  Outcome<{
    operational_intent_id: string;
    telemetry: { time_measured: RfcTime; position: { latitude: number; longitude: number } };
  }>
> {
  const record = await findOwnIntent(db, id);
  if (!record) return fail(404, NOT_MANAGED);
  const { state } = record.reference;
  if (isNominal(state))
    return fail(409, `the operational intent is ${state}: only off-nominal ones give telemetry`);
  const link = await findPlanLink(d1, record.flightPlanId);
  const position = link?.flightId ? await latestLivePosition(d1, link.flightId) : null;
  if (!position) return fail(412, "no position was reported in the last two minutes");
  return {
    ok: true,
    value: {
      operational_intent_id: id,
      telemetry: {
        time_measured: rfcTime(position.reportedAt),
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
