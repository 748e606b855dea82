import type { Outcome } from "../dss/outcome";
import { type OperationalIntentReference, scdDssOf } from "../dss/scdDss";
import type { Bindings } from "../env";
import {
  meet,
  type OperationalIntent,
  type OperationalIntentDetails,
  parseIntent,
  readDetails,
  rfc3339,
} from "../interuss/intentDetails";
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
