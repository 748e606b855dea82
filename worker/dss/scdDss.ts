import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../env";
import { CellIndex, IDS_IN_CELLS, scheduleExpiry, WriteClock } from "./cellIndex";
import { AreaTooLarge } from "./cells";
import {
  boundingExtentsOf,
  ENDED_KEPT_MS,
  type Extents,
  extentsOf,
  InvalidExtents,
  type OpenExtents,
  queryExtentsOf,
  type Volume4DInput,
} from "./extents";
import { fail, type Outcome, type Refusal, type RfcTime, rfcTime } from "./outcome";
import { BadOvnSuffix, NO_OVN_PHRASE, ovnFromTime, requestedOvn } from "./ovn";

/**
 * The ASTM F3548-21 Discovery and Synchronization Service's data (astm-utm/Protocol `utm.yaml`
 * 1.0.0, with InterUSS's DSS as the reference for what the standard leaves open): operational intent
 * references, constraint references, subscriptions, USS availability and reports, indexed by level-13
 * S2 cells, in ONE SQLite-backed Durable Object. Every write reads, checks and writes inside one
 * synchronous transaction with no outbound call, so writes are serialized by the object's input gate
 * and answered only once durable; a refusal thrown inside rolls the whole write back. Ended entities
 * are removed by the object's alarm, ENDED_KEPT_MS after their end.
 *
 * The methods are the DSS's domain operations: routes (worker/routes/dssScd.ts) and Windsock's own
 * USS call them through the SCD_DSS binding with the caller's identity.
 */

export const SCD_SCOPES = {
  strategicCoordination: "utm.strategic_coordination",
  constraintManagement: "utm.constraint_management",
  constraintProcessing: "utm.constraint_processing",
  conformanceMonitoring: "utm.conformance_monitoring_sa",
  availabilityArbitration: "utm.availability_arbitration",
} as const;

/** The subscription id shown for an operational intent without one (an Accepted one may have none). */
export const NULL_SUBSCRIPTION_ID = "00000000-0000-4000-8000-000000000000";
/** A dependent operational intent may start this long before its subscription (InterUSS's skew). */
const DEPENDENT_START_SKEW_MS = 5 * 60_000;

export type OperationalIntentState = "Accepted" | "Activated" | "Nonconforming" | "Contingent";
export type UssAvailabilityState = "Unknown" | "Normal" | "Down";
const STATES: OperationalIntentState[] = ["Accepted", "Activated", "Nonconforming", "Contingent"];
/** States only a USS with the conformance monitoring scope may set, and that need no key. */
const OFF_NOMINAL: OperationalIntentState[] = ["Nonconforming", "Contingent"];
/** Accepted and Activated: the states that are deconflicted and need a key (the others are off-nominal). */
export const isNominal = (state: unknown): boolean => state === "Accepted" || state === "Activated";

export interface Caller {
  /** The token's `sub`: the manager of what it writes. */
  sub: string;
  scopes: string[];
}

export interface PutOperationalIntentParameters {
  extents: Volume4DInput[];
  key?: string[] | undefined;
  state: string;
  uss_base_url: string;
  subscription_id?: string | undefined;
  new_subscription?: { uss_base_url: string; notify_for_constraints?: boolean | undefined } | undefined;
  requested_ovn_suffix?: string | undefined;
}
export interface PutConstraintParameters {
  extents: Volume4DInput[];
  uss_base_url: string;
}
export interface PutSubscriptionParameters {
  extents: Volume4DInput;
  uss_base_url: string;
  notify_for_operational_intents?: boolean | undefined;
  notify_for_constraints?: boolean | undefined;
}

export interface ConstraintReference {
  id: string;
  manager: string;
  uss_availability: UssAvailabilityState;
  version: number;
  ovn: string;
  time_start: RfcTime;
  time_end: RfcTime;
  uss_base_url: string;
}
export interface OperationalIntentReference extends ConstraintReference {
  state: OperationalIntentState;
  subscription_id: string;
}
export interface Subscription {
  id: string;
  version: string;
  notification_index: number;
  time_start: RfcTime;
  time_end: RfcTime;
  uss_base_url: string;
  notify_for_operational_intents: boolean;
  notify_for_constraints: boolean;
  implicit_subscription: boolean;
  dependent_operational_intents: string[];
}
export interface SubscriberToNotify {
  uss_base_url: string;
  subscriptions: { subscription_id: string; notification_index: number }[];
}
export interface UssAvailabilityStatusResponse {
  status: { uss: string; availability: UssAvailabilityState };
  version: string;
}

interface EntityRow extends Record<string, SqlStorageValue> {
  id: string;
  manager: string;
  version: number;
  ovn: string;
  url: string;
  start_ms: number;
  end_ms: number;
  alt_lo: number | null;
  alt_hi: number | null;
  availability: string | null;
}
interface IntentRow extends EntityRow {
  state: string;
  subscription_id: string | null;
}
interface SubscriptionRow extends Record<string, SqlStorageValue> {
  id: string;
  manager: string;
  version: string;
  notification_index: number;
  url: string;
  start_ms: number;
  end_ms: number;
  alt_lo: number | null;
  alt_hi: number | null;
  notify_oi: number;
  notify_c: number;
  implicit: number;
}

type EntityTable = "operational_intents" | "constraints";
type Table = EntityTable | "subscriptions";
type Footprint = Pick<Extents, "cells" | "startMs" | "endMs">;

/** A refusal thrown inside a transaction, so that transactionSync rolls back what was written. */
class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}
const refuse = (...args: Parameters<typeof fail>) => new Refused(fail(...args));

/** Bad extents as the standard's 400 (a write's too large area included). */
function checkedExtents<T>(compute: () => T): T {
  try {
    return compute();
  } catch (e) {
    if (e instanceof InvalidExtents || e instanceof AreaTooLarge) throw refuse(400, e.message);
    throw e;
  }
}

/** The OVN a USS asked for, or the 400 saying why it may not have it. */
function asked(id: string, suffix: string, now: number): string {
  try {
    return requestedOvn(id, suffix, now);
  } catch (e) {
    if (e instanceof BadOvnSuffix) throw refuse(400, e.message);
    throw e;
  }
}

const availabilityOf = (row: EntityRow): UssAvailabilityState =>
  (row.availability as UssAvailabilityState | null) ?? "Unknown";

function constraintView(row: EntityRow, caller: string): ConstraintReference {
  return {
    id: row.id,
    manager: row.manager,
    uss_availability: availabilityOf(row),
    version: row.version,
    // Only the manager learns an OVN from the DSS; others must ask the managing USS.
    ovn: row.manager === caller ? row.ovn : NO_OVN_PHRASE,
    time_start: rfcTime(row.start_ms),
    time_end: rfcTime(row.end_ms),
    uss_base_url: row.url,
  };
}

const intentView = (row: IntentRow, caller: string): OperationalIntentReference => ({
  ...constraintView(row, caller),
  state: row.state as OperationalIntentState,
  subscription_id: row.subscription_id ?? NULL_SUBSCRIPTION_ID,
});

/** Whether others must name this intent's OVN in their key (a Down USS's Accepted intent need not be). */
const requiresKey = (row: IntentRow) => availabilityOf(row) !== "Down" || row.state !== "Accepted";

/** The one F3548 DSS object; its name is fixed so every isolate and location reaches the same one. */
export const scdDssOf = (env: Pick<Bindings, "SCD_DSS">) =>
  env.SCD_DSS.get(env.SCD_DSS.idFromName("f3548-21"));

export class ScdDss extends DurableObject<Bindings> {
  private readonly sql: SqlStorage;
  private readonly cells: CellIndex;
  private readonly clock = new WriteClock();

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    const entity = `id TEXT PRIMARY KEY, manager TEXT NOT NULL, version INTEGER NOT NULL, ovn TEXT NOT NULL,
      url TEXT NOT NULL, start_ms REAL NOT NULL, end_ms REAL NOT NULL, alt_lo REAL, alt_hi REAL`;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS operational_intents (${entity}, state TEXT NOT NULL,
      subscription_id TEXT)`);
    this.sql.exec(
      "CREATE INDEX IF NOT EXISTS intents_by_subscription ON operational_intents (subscription_id)",
    );
    this.sql.exec(`CREATE TABLE IF NOT EXISTS constraints (${entity})`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS subscriptions (id TEXT PRIMARY KEY, manager TEXT NOT NULL,
      version TEXT NOT NULL, notification_index INTEGER NOT NULL, url TEXT NOT NULL, start_ms REAL NOT NULL,
      end_ms REAL NOT NULL, alt_lo REAL, alt_hi REAL, notify_oi INTEGER NOT NULL, notify_c INTEGER NOT NULL,
      implicit INTEGER NOT NULL)`);
    this.cells = new CellIndex(this.sql);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS availability (uss TEXT PRIMARY KEY, availability TEXT NOT NULL,
      version TEXT NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS reports (id TEXT PRIMARY KEY, reporter TEXT NOT NULL,
      received_ms REAL NOT NULL, report TEXT NOT NULL)`);
  }

  // --- Operational intent references

  queryOperationalIntents(
    caller: string,
    area: Volume4DInput,
  ): Outcome<{ operational_intent_references: OperationalIntentReference[] }> {
    return this.read(() => ({
      operational_intent_references: this.entitiesIn<IntentRow>("operational_intents", this.areaOf(area)).map(
        (row) => intentView(row, caller),
      ),
    }));
  }

  getOperationalIntent(
    caller: string,
    id: string,
  ): Outcome<{ operational_intent_reference: OperationalIntentReference }> {
    const row = this.entity<IntentRow>("operational_intents", id);
    if (!row) return fail(404, `OperationalIntent ${id} not found`);
    return { ok: true, value: { operational_intent_reference: intentView(row, caller) } };
  }

  /**
   * Creates (ovn undefined) or updates the operational intent reference at its current OVN: checks
   * the key against every intersecting intent (and constraint, when its subscription wants them),
   * attaches, widens or makes its subscription, and answers the subscribers to notify.
   */
  async putOperationalIntent(
    caller: Caller,
    id: string,
    ovn: string | undefined,
    params: PutOperationalIntentParameters,
  ): Promise<
    Outcome<{ operational_intent_reference: OperationalIntentReference; subscribers: SubscriberToNotify[] }>
  > {
    const outcome = this.write(() => {
      const now = this.writeTime();
      const state = this.checkIntentParameters(caller, ovn, params);
      const extents = checkedExtents(() => boundingExtentsOf(params.extents, now, true));
      const newOvn =
        params.requested_ovn_suffix === undefined ? undefined : asked(id, params.requested_ovn_suffix, now);
      const old = this.entity<IntentRow>("operational_intents", id);
      if (old) {
        if (old.manager !== caller.sub)
          throw refuse(403, `OperationalIntent ${id} is managed by another USS`);
        if (old.ovn !== ovn)
          throw refuse(409, `OperationalIntent ${id}'s current OVN is not ${ovn ?? "absent (create)"}`);
      } else if (ovn !== undefined) {
        throw refuse(400, `OperationalIntent ${id} does not exist and therefore is not at OVN ${ovn}`);
      }
      if (isNominal(state) && this.availability(caller.sub) === "Down")
        throw refuse(412, `USS ${caller.sub} is marked Down: it may not make an operational intent ${state}`);

      const previous = old?.subscription_id ? this.subscription(old.subscription_id) : undefined;
      const dropPrevious =
        previous !== undefined &&
        params.subscription_id !== previous.id &&
        this.onlyImplicitFor(previous, id);
      const attached = this.attachedSubscription(caller.sub, params, extents, now);
      if (!OFF_NOMINAL.includes(state)) this.checkKey(caller.sub, id, extents, params.key ?? [], attached);

      const before = this.footprint("operational_intents", old);
      this.writeEntity("operational_intents", id, caller.sub, params.uss_base_url, extents, {
        version: (old?.version ?? 0) + 1,
        ovn: newOvn ?? ovnFromTime(id, now),
        state,
        subscription_id: attached?.id ?? null,
      });
      if (dropPrevious) this.remove("subscriptions", previous!.id);
      const subscribers = this.notify("notify_oi", extents, ...before);
      const row = this.entity<IntentRow>("operational_intents", id)!;
      return { operational_intent_reference: intentView(row, caller.sub), subscribers };
    });
    await this.scheduleExpiry();
    return outcome;
  }

  deleteOperationalIntent(
    caller: string,
    id: string,
    ovn: string,
  ): Outcome<{
    operational_intent_reference: OperationalIntentReference;
    subscribers: SubscriberToNotify[];
  }> {
    return this.write(() => {
      const old = this.entity<IntentRow>("operational_intents", id);
      if (!old) throw refuse(404, `OperationalIntent ${id} not found`);
      if (old.manager !== caller) throw refuse(403, `OperationalIntent ${id} is managed by another USS`);
      if (old.ovn !== ovn) throw refuse(409, `OperationalIntent ${id}'s current OVN is not ${ovn}`);
      if (this.availability(caller) === "Down")
        throw refuse(412, `USS ${caller} is marked Down: it may not delete an operational intent`);
      const previous = old.subscription_id ? this.subscription(old.subscription_id) : undefined;
      const dropSubscription = previous !== undefined && this.onlyImplicitFor(previous, id);
      const subscribers = this.notify("notify_oi", ...this.footprint("operational_intents", old));
      this.remove("operational_intents", id);
      if (dropSubscription) this.remove("subscriptions", previous!.id);
      return { operational_intent_reference: intentView(old, caller), subscribers };
    });
  }

  // --- Constraint references

  queryConstraints(
    caller: string,
    area: Volume4DInput,
  ): Outcome<{ constraint_references: ConstraintReference[] }> {
    return this.read(() => ({
      constraint_references: this.entitiesIn("constraints", this.areaOf(area)).map((row) =>
        constraintView(row, caller),
      ),
    }));
  }

  getConstraint(caller: string, id: string): Outcome<{ constraint_reference: ConstraintReference }> {
    const row = this.entity("constraints", id);
    if (!row) return fail(404, `Constraint ${id} not found`);
    return { ok: true, value: { constraint_reference: constraintView(row, caller) } };
  }

  /** Creates (ovn undefined) or updates the constraint reference; answers the subscribers to notify. */
  async putConstraint(
    caller: string,
    id: string,
    ovn: string | undefined,
    params: PutConstraintParameters,
  ): Promise<Outcome<{ constraint_reference: ConstraintReference; subscribers: SubscriberToNotify[] }>> {
    const outcome = this.write(() => {
      const now = this.writeTime();
      const extents = checkedExtents(() => boundingExtentsOf(params.extents, now, false));
      const old = this.entity("constraints", id);
      if (old) {
        if (old.manager !== caller) throw refuse(403, `Constraint ${id} is managed by another USS`);
        if (old.ovn !== ovn)
          throw refuse(409, `Constraint ${id}'s current OVN is not ${ovn ?? "absent (create)"}`);
      } else if (ovn !== undefined) {
        throw refuse(409, `Constraint ${id} does not exist and therefore is not at OVN ${ovn}`);
      }
      const before = this.footprint("constraints", old);
      this.writeEntity("constraints", id, caller, params.uss_base_url, extents, {
        version: (old?.version ?? 0) + 1,
        ovn: ovnFromTime(id, now),
      });
      const subscribers = this.notify("notify_c", extents, ...before);
      return { constraint_reference: constraintView(this.entity("constraints", id)!, caller), subscribers };
    });
    await this.scheduleExpiry();
    return outcome;
  }

  deleteConstraint(
    caller: string,
    id: string,
    ovn: string,
  ): Outcome<{ constraint_reference: ConstraintReference; subscribers: SubscriberToNotify[] }> {
    return this.write(() => {
      const old = this.entity("constraints", id);
      if (!old) throw refuse(404, `Constraint ${id} not found`);
      if (old.manager !== caller) throw refuse(403, `Constraint ${id} is managed by another USS`);
      if (old.ovn !== ovn) throw refuse(409, `Constraint ${id}'s current OVN is not ${ovn}`);
      const subscribers = this.notify("notify_c", ...this.footprint("constraints", old));
      this.remove("constraints", id);
      return { constraint_reference: constraintView(old, caller), subscribers };
    });
  }

  // --- Subscriptions

  /** The caller's live subscriptions over the area. */
  querySubscriptions(caller: string, area: Volume4DInput): Outcome<{ subscriptions: Subscription[] }> {
    return this.read(() => {
      const now = Date.now();
      const rows = this.subscriptionsIn(this.areaOf(area)).filter(
        (row) => row.manager === caller && row.end_ms >= now,
      );
      return { subscriptions: rows.map((row) => this.subscriptionView(row)) };
    });
  }

  getSubscription(caller: string, id: string): Outcome<{ subscription: Subscription }> {
    const row = this.subscription(id);
    if (!row) return fail(404, `Subscription ${id} not found`);
    if (row.manager !== caller) return fail(403, `Subscription ${id} is owned by another USS`);
    return { ok: true, value: { subscription: this.subscriptionView(row) } };
  }

  /**
   * Creates (version undefined) or updates the subscription (at most 24 h; still covering the
   * intents that depend on it); answers the intents and constraints already in its area.
   */
  async putSubscription(
    caller: string,
    id: string,
    version: string | undefined,
    params: PutSubscriptionParameters,
  ): Promise<
    Outcome<{
      subscription: Subscription;
      operational_intent_references?: OperationalIntentReference[];
      constraint_references?: ConstraintReference[];
    }>
  > {
    const outcome = this.write(() => {
      const now = this.writeTime();
      const notifyForIntents = params.notify_for_operational_intents ?? false;
      const notifyForConstraints = params.notify_for_constraints ?? false;
      if (!notifyForIntents && !notifyForConstraints)
        throw refuse(400, "No notification triggers requested for Subscription");
      const old = this.subscription(id);
      const prior = version !== undefined && old ? { startMs: old.start_ms, endMs: old.end_ms } : undefined;
      const extents = checkedExtents(() => extentsOf("Subscription", params.extents, now, prior));
      if (!old) {
        if (version !== undefined) throw refuse(400, `Subscription ${id} not found`);
      } else {
        if (version === undefined) throw refuse(409, `Subscription ${id} already exists`);
        if (old.version !== version) throw refuse(409, `Subscription version ${version} is not current`);
        if (old.manager !== caller) throw refuse(403, `Subscription ${id} is owned by another USS`);
        for (const intentId of this.dependents(id)) {
          const intent = this.entity<IntentRow>("operational_intents", intentId)!;
          if (!this.covers(extents, intent))
            throw refuse(
              400,
              `Subscription would no longer cover its dependent operational intent ${intentId}`,
            );
        }
      }
      const row = this.writeSubscription(caller, id, now, {
        url: params.uss_base_url,
        extents,
        notifyForIntents,
        notifyForConstraints,
        implicit: false,
        notificationIndex: old?.notification_index ?? 0,
      });
      return {
        subscription: this.subscriptionView(row),
        ...(notifyForIntents && {
          operational_intent_references: this.entitiesIn<IntentRow>("operational_intents", extents).map((r) =>
            intentView(r, caller),
          ),
        }),
        ...(notifyForConstraints && {
          constraint_references: this.entitiesIn("constraints", extents).map((r) =>
            constraintView(r, caller),
          ),
        }),
      };
    });
    await this.scheduleExpiry();
    return outcome;
  }

  deleteSubscription(caller: string, id: string, version: string): Outcome<{ subscription: Subscription }> {
    return this.write(() => {
      const old = this.subscription(id);
      if (!old) throw refuse(404, `Subscription ${id} not found`);
      if (old.manager !== caller) throw refuse(403, `Subscription ${id} is owned by another USS`);
      if (old.version !== version) throw refuse(409, `Subscription version ${version} is not current`);
      const view = this.subscriptionView(old);
      if (view.dependent_operational_intents.length > 0)
        throw refuse(400, "Subscriptions with dependent operational intents may not be removed");
      this.remove("subscriptions", id);
      return { subscription: view };
    });
  }

  // --- Reports and USS availability

  /** Keeps the report (the standard: "archived") and answers it with the id given to it. */
  makeReport(caller: string, report: Record<string, unknown>): Outcome<Record<string, unknown>> {
    return this.write(() => {
      const stored = { ...report, report_id: crypto.randomUUID() };
      this.sql.exec(
        "INSERT INTO reports (id, reporter, received_ms, report) VALUES (?, ?, ?, ?)",
        stored.report_id,
        caller,
        Date.now(),
        JSON.stringify(stored),
      );
      return stored;
    });
  }

  getAvailability(uss: string): UssAvailabilityStatusResponse {
    const row = this.sql
      .exec<{ availability: string; version: string }>("SELECT * FROM availability WHERE uss = ?", uss)
      .toArray()[0];
    return {
      status: { uss, availability: (row?.availability as UssAvailabilityState | undefined) ?? "Unknown" },
      version: row?.version ?? "",
    };
  }

  /** Sets a USS's availability at its current version ("" before the first setting). */
  setAvailability(
    uss: string,
    oldVersion: string,
    availability: UssAvailabilityState,
  ): Outcome<UssAvailabilityStatusResponse> {
    return this.write(() => {
      const current = this.getAvailability(uss);
      if (current.version !== oldVersion)
        throw refuse(409, `USS availability version ${oldVersion || "(empty)"} is not current`);
      this.sql.exec(
        "INSERT OR REPLACE INTO availability (uss, availability, version) VALUES (?, ?, ?)",
        uss,
        availability,
        ovnFromTime(uss, this.writeTime()),
      );
      return this.getAvailability(uss);
    });
  }

  /** Removes what ended ENDED_KEPT_MS ago (an intent's implicit subscription with it) and sets the next alarm. */
  override async alarm(): Promise<void> {
    const before = Date.now() - ENDED_KEPT_MS;
    this.ctx.storage.transactionSync(() => {
      for (const table of ["operational_intents", "constraints", "subscriptions"] as const) {
        const ended = this.sql
          .exec<{ id: string }>(`SELECT id FROM ${table} WHERE end_ms < ?`, before)
          .toArray();
        for (const { id } of ended) this.remove(table, id);
      }
      this.sql.exec(
        "UPDATE operational_intents SET subscription_id = NULL WHERE subscription_id NOT IN (SELECT id FROM subscriptions)",
      );
    });
    await this.scheduleExpiry();
  }

  // --- checks

  /** The state, or why the parameters cannot make an operational intent (400, or 403 for a missing scope). */
  private checkIntentParameters(
    caller: Caller,
    ovn: string | undefined,
    params: PutOperationalIntentParameters,
  ): OperationalIntentState {
    const state = params.state as OperationalIntentState;
    if (!STATES.includes(state)) throw refuse(400, `state: ${params.state} is not a state a DSS keeps`);
    if (params.subscription_id !== undefined && params.new_subscription !== undefined)
      throw refuse(400, "subscription_id and new_subscription exclude each other");
    if (ovn === undefined && state !== "Accepted")
      throw refuse(400, `state: an operational intent is created Accepted, not ${state}`);
    if (state !== "Accepted" && params.subscription_id === undefined && !params.new_subscription)
      throw refuse(400, `state: ${state} needs a subscription_id or a new_subscription`);
    if (OFF_NOMINAL.includes(state) && !caller.scopes.includes(SCD_SCOPES.conformanceMonitoring))
      throw refuse(403, `state: ${state} needs the scope ${SCD_SCOPES.conformanceMonitoring} (SCD0100)`);
    return state;
  }

  /** 409 with the intents (and constraints) in the extents whose current OVN the key does not name. */
  private checkKey(
    caller: string,
    id: string,
    extents: Extents,
    key: string[],
    attached: SubscriptionRow | undefined,
  ) {
    const known = new Set(key);
    const missingIntents = this.entitiesIn<IntentRow>("operational_intents", extents).filter(
      (row) => row.id !== id && requiresKey(row) && !known.has(row.ovn),
    );
    const missingConstraints = attached?.notify_c
      ? this.entitiesIn("constraints", extents).filter((row) => !known.has(row.ovn))
      : [];
    if (missingIntents.length === 0 && missingConstraints.length === 0) return;
    throw refuse(409, "Current OVNs not provided for one or more OperationalIntents or Constraints", {
      missing_operational_intents: missingIntents.map((row) => intentView(row, caller)),
      missing_constraints: missingConstraints.map((row) => constraintView(row, caller)),
    });
  }

  /** The intent's subscription: none, a new implicit one, or the named one made to cover it. */
  private attachedSubscription(
    caller: string,
    params: PutOperationalIntentParameters,
    extents: Extents,
    now: number,
  ): SubscriptionRow | undefined {
    if (params.subscription_id === undefined) {
      if (!params.new_subscription) return undefined;
      return this.writeSubscription(caller, crypto.randomUUID(), now, {
        url: params.new_subscription.uss_base_url,
        extents,
        notifyForIntents: true,
        notifyForConstraints: params.new_subscription.notify_for_constraints ?? false,
        implicit: true,
      });
    }
    const named = this.subscription(params.subscription_id);
    if (!named) throw refuse(400, `Subscription ${params.subscription_id} does not exist`);
    if (named.manager !== caller)
      throw refuse(403, `Subscription ${params.subscription_id} is owned by another USS`);
    return this.coverIntent(named, extents, now);
  }

  /** The subscription, widened to cover the intent if it is implicit; 400 if an explicit one falls short. */
  private coverIntent(sub: SubscriptionRow, extents: Extents, now: number): SubscriptionRow {
    const cells = this.cellsOf("subscriptions", sub.id);
    const missing = extents.cells.filter((cell) => !cells.includes(cell));
    const early = sub.start_ms > extents.startMs;
    const late = sub.end_ms < extents.endMs;
    if (!early && !late && missing.length === 0) return sub;
    if (!sub.implicit) {
      if (early) throw refuse(400, "Subscription does not begin until after the OperationalIntent starts");
      if (late) throw refuse(400, "Subscription ends before the OperationalIntent ends");
      throw refuse(400, "Subscription does not cover entire spatial area of the OperationalIntent");
    }
    return this.writeSubscription(sub.manager, sub.id, now, {
      url: sub.url,
      extents: {
        cells: [...cells, ...missing],
        startMs: Math.min(sub.start_ms, extents.startMs),
        endMs: Math.max(sub.end_ms, extents.endMs),
        altitudeLower: sub.alt_lo,
        altitudeUpper: sub.alt_hi,
      },
      notifyForIntents: Boolean(sub.notify_oi),
      notifyForConstraints: Boolean(sub.notify_c),
      implicit: true,
      notificationIndex: sub.notification_index,
    });
  }

  /** Whether a subscription's new extents still cover a dependent intent (InterUSS's rules). */
  private covers(extents: Extents, intent: IntentRow): boolean {
    const cells = new Set(extents.cells);
    if (!this.cellsOf("operational_intents", intent.id).every((cell) => cells.has(cell))) return false;
    if (extents.altitudeLower !== null && intent.alt_lo !== null && intent.alt_lo < extents.altitudeLower)
      return false;
    if (extents.altitudeUpper !== null && intent.alt_hi !== null && intent.alt_hi > extents.altitudeUpper)
      return false;
    return extents.startMs - intent.start_ms <= DEPENDENT_START_SKEW_MS && intent.end_ms <= extents.endMs;
  }

  private onlyImplicitFor(sub: SubscriptionRow, intentId: string): boolean {
    const dependents = this.dependents(sub.id);
    return Boolean(sub.implicit) && dependents.length === 1 && dependents[0] === intentId;
  }

  // --- storage

  private read<T>(compute: () => T): Outcome<T> {
    try {
      return { ok: true, value: compute() };
    } catch (e) {
      if (e instanceof Refused) return e.refusal;
      throw e;
    }
  }

  /** One synchronous transaction; a Refused thrown inside rolls it back and is answered. */
  private write<T>(change: () => T): Outcome<T> {
    try {
      return { ok: true, value: this.ctx.storage.transactionSync(change) };
    } catch (e) {
      if (e instanceof Refused) return e.refusal;
      throw e;
    }
  }

  /** A query's area; its being too large is a 413 (read answers it), not a write's 400. */
  private areaOf(area: Volume4DInput): OpenExtents {
    try {
      return queryExtentsOf(area);
    } catch (e) {
      if (e instanceof InvalidExtents) throw refuse(400, e.message);
      if (e instanceof AreaTooLarge) throw refuse(413, e.message);
      throw e;
    }
  }

  /** The time of this write: later than every earlier one, so each write gets an OVN of its own. */
  private writeTime(): number {
    return this.clock.next();
  }

  private availability(uss: string): UssAvailabilityState {
    return this.getAvailability(uss).status.availability;
  }

  private entity<R extends EntityRow = EntityRow>(table: EntityTable, id: string): R | undefined {
    return this.sql
      .exec<R>(
        `SELECT e.*, a.availability FROM ${table} e LEFT JOIN availability a ON a.uss = e.manager WHERE e.id = ?`,
        id,
      )
      .toArray()[0];
  }

  private subscription(id: string): SubscriptionRow | undefined {
    return this.sql.exec<SubscriptionRow>("SELECT * FROM subscriptions WHERE id = ?", id).toArray()[0];
  }

  private dependents(subscriptionId: string): string[] {
    return this.sql
      .exec<{ id: string }>(
        "SELECT id FROM operational_intents WHERE subscription_id = ? ORDER BY id",
        subscriptionId,
      )
      .toArray()
      .map((r) => r.id);
  }

  private subscriptionView(row: SubscriptionRow): Subscription {
    return {
      id: row.id,
      version: row.version,
      notification_index: row.notification_index,
      time_start: rfcTime(row.start_ms),
      time_end: rfcTime(row.end_ms),
      uss_base_url: row.url,
      notify_for_operational_intents: Boolean(row.notify_oi),
      notify_for_constraints: Boolean(row.notify_c),
      implicit_subscription: Boolean(row.implicit),
      dependent_operational_intents: this.dependents(row.id),
    };
  }

  private cellsOf(kind: Table, id: string): string[] {
    return this.cells.of(kind, id);
  }

  /** Entities over the cells whose time and altitude overlap the extents' (an open bound matches all). */
  private entitiesIn<R extends EntityRow = EntityRow>(table: EntityTable, extents: OpenExtents): R[] {
    return this.sql
      .exec<R>(
        `SELECT e.*, a.availability FROM ${table} e LEFT JOIN availability a ON a.uss = e.manager
          WHERE e.id IN (${IDS_IN_CELLS})
          AND (?3 IS NULL OR e.end_ms >= ?3) AND (?4 IS NULL OR e.start_ms <= ?4)
          AND (?5 IS NULL OR e.alt_hi IS NULL OR e.alt_hi >= ?5) AND (?6 IS NULL OR e.alt_lo IS NULL OR e.alt_lo <= ?6)
          ORDER BY e.id`,
        table,
        JSON.stringify(extents.cells),
        extents.startMs,
        extents.endMs,
        extents.altitudeLower,
        extents.altitudeUpper,
      )
      .toArray();
  }

  /** Subscriptions over the cells whose time overlaps (InterUSS matches subscriptions without altitudes). */
  private subscriptionsIn(
    extents: Pick<OpenExtents, "cells" | "startMs" | "endMs">,
    flag?: "notify_oi" | "notify_c",
  ): SubscriptionRow[] {
    return this.sql
      .exec<SubscriptionRow>(
        `SELECT * FROM subscriptions WHERE id IN (${IDS_IN_CELLS}) AND (?3 IS NULL OR end_ms >= ?3)
          AND (?4 IS NULL OR start_ms <= ?4) ${flag ? `AND ${flag} = 1` : ""} ORDER BY id`,
        "subscriptions",
        JSON.stringify(extents.cells),
        extents.startMs,
        extents.endMs,
      )
      .toArray();
  }

  /**
   * Bumps the notification index of every subscription wanting this kind of change over the areas
   * (the new extents and the old entity's); answers them grouped by USS (the client's own included).
   */
  private notify(flag: "notify_oi" | "notify_c", ...areas: Footprint[]): SubscriberToNotify[] {
    const rows = this.subscriptionsIn(
      {
        cells: [...new Set(areas.flatMap((a) => a.cells))],
        startMs: Math.min(...areas.map((a) => a.startMs)),
        endMs: Math.max(...areas.map((a) => a.endMs)),
      },
      flag,
    );
    const byUrl = new Map<string, SubscriberToNotify>();
    for (const row of rows) {
      const index = row.notification_index + 1;
      this.sql.exec("UPDATE subscriptions SET notification_index = ? WHERE id = ?", index, row.id);
      const entry = byUrl.get(row.url) ?? { uss_base_url: row.url, subscriptions: [] };
      entry.subscriptions.push({ subscription_id: row.id, notification_index: index });
      byUrl.set(row.url, entry);
    }
    return [...byUrl.values()];
  }

  /** Where and when a stored entity is, read before a write replaces it. */
  private footprint(table: EntityTable, row: EntityRow | undefined): Footprint[] {
    return row ? [{ cells: this.cellsOf(table, row.id), startMs: row.start_ms, endMs: row.end_ms }] : [];
  }

  private writeEntity(
    table: EntityTable,
    id: string,
    manager: string,
    url: string,
    extents: Extents,
    fields: { version: number; ovn: string; state?: string; subscription_id?: string | null },
  ) {
    this.remove(table, id);
    const intent = table === "operational_intents";
    this.sql.exec(
      `INSERT INTO ${table} (id, manager, version, ovn, url, start_ms, end_ms, alt_lo, alt_hi
        ${intent ? ", state, subscription_id" : ""}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?${intent ? ", ?, ?" : ""})`,
      id,
      manager,
      fields.version,
      fields.ovn,
      url,
      extents.startMs,
      extents.endMs,
      extents.altitudeLower,
      extents.altitudeUpper,
      ...(intent ? [fields.state!, fields.subscription_id ?? null] : []),
    );
    this.cells.write(table, id, extents.cells);
  }

  private writeSubscription(
    manager: string,
    id: string,
    now: number,
    fields: {
      url: string;
      extents: Extents;
      notifyForIntents: boolean;
      notifyForConstraints: boolean;
      implicit: boolean;
      notificationIndex?: number;
    },
  ): SubscriptionRow {
    this.remove("subscriptions", id);
    this.sql.exec(
      `INSERT INTO subscriptions (id, manager, version, notification_index, url, start_ms, end_ms, alt_lo, alt_hi,
        notify_oi, notify_c, implicit) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      manager,
      ovnFromTime(id, now),
      fields.notificationIndex ?? 0,
      fields.url,
      fields.extents.startMs,
      fields.extents.endMs,
      fields.extents.altitudeLower,
      fields.extents.altitudeUpper,
      fields.notifyForIntents ? 1 : 0,
      fields.notifyForConstraints ? 1 : 0,
      fields.implicit ? 1 : 0,
    );
    this.cells.write("subscriptions", id, fields.extents.cells);
    return this.subscription(id)!;
  }

  private remove(table: Table, id: string) {
    this.cells.remove(table, id);
    this.sql.exec(`DELETE FROM ${table} WHERE id = ?`, id);
  }

  private scheduleExpiry() {
    return scheduleExpiry(
      this.ctx.storage,
      ["operational_intents", "constraints", "subscriptions"],
      ENDED_KEPT_MS,
    );
  }
}
