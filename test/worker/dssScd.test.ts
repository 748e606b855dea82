import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SCD_SCOPES, scdDssOf } from "../../worker/dss/scdDss";
import { dssVolume, rfc3339 } from "../geometries";
import { call, interussToken } from "./helpers";

/**
 * The F3548-21 DSS (`/dss/v1/…`) as USSs use it: operational intent references created and changed
 * by OVN, the key check's 409 listing what the key missed (OVNs masked), implicit subscriptions made,
 * widened and removed, notification indices bumped for every subscriber, constraints, explicit
 * subscriptions, reports, USS availability, scopes and bad input, errors as `{"message"}`.
 */

const DSS = "/dss/v1";
const { strategicCoordination: SC, constraintManagement: CM, conformanceMonitoring: CMSA } = SCD_SCOPES;
let uss1: string;
let uss2: string;
let uss1Cmsa: string;
let manager: string;
let arbiter: string;

beforeAll(async () => {
  uss1 = await interussToken([SC], { sub: "uss1" });
  uss2 = await interussToken([SC], { sub: "uss2" });
  uss1Cmsa = await interussToken([SC, CMSA], { sub: "uss1" });
  manager = await interussToken([CM], { sub: "authority" });
  arbiter = await interussToken([SCD_SCOPES.availabilityArbitration], { sub: "arbiter" });
});

const uuid = () => crypto.randomUUID();

/** A Volume4D: a square of `halfDeg` around a point, 0–120 m, from `startMin` to `endMin` from now. */
function volume(lat: number, lng: number, { halfDeg = 0.005, startMin = 0, endMin = 30 } = {}) {
  const now = Date.now();
  return dssVolume(lat, lng, halfDeg, now + startMin * 60_000, now + endMin * 60_000);
}

const USS1 = "https://uss1.example/utm";
const USS2 = "https://uss2.example/utm";

const intentBody = (lat: number, lng: number, more: Record<string, unknown> = {}) => ({
  extents: [volume(lat, lng)],
  state: "Accepted",
  uss_base_url: USS1,
  new_subscription: { uss_base_url: USS1 },
  ...more,
});
const putIntent = (id: string, body: unknown, token = uss1, ovn?: string) =>
  call(`${DSS}/operational_intent_references/${id}${ovn ? `/${ovn}` : ""}`, { method: "PUT", token, body });
const putSub = (id: string, body: unknown, token = uss2, version?: string) =>
  call(`${DSS}/subscriptions/${id}${version ? `/${version}` : ""}`, { method: "PUT", token, body });
const queryIntents = (lat: number, lng: number, token = uss1) =>
  call(`${DSS}/operational_intent_references/query`, {
    method: "POST",
    token,
    body: { area_of_interest: volume(lat, lng, { halfDeg: 0.01 }) },
  });

describe("F3548-21 DSS: operational intent references", () => {
  it("creates (201), finds, gets, updates by OVN and deletes by OVN, the version counting up", async () => {
    const id = uuid();
    const created = await putIntent(id, intentBody(40.1, -100.1));
    expect(created.status).toBe(201);
    const ref = created.json.operational_intent_reference;
    expect(ref).toMatchObject({
      id,
      manager: "uss1",
      version: 1,
      state: "Accepted",
      uss_availability: "Unknown",
    });
    expect(ref.ovn.length).toBeGreaterThanOrEqual(16);
    expect(ref.time_end.format).toBe("RFC3339");

    const found = await queryIntents(40.1, -100.1);
    expect(found.status).toBe(200);
    expect(found.json.operational_intent_references.map((r: { id: string }) => r.id)).toContain(id);
    expect((await queryIntents(41.5, -100.1)).json.operational_intent_references).toEqual([]);

    const got = await call(`${DSS}/operational_intent_references/${id}`, { token: uss1 });
    expect(got.json.operational_intent_reference.ovn).toBe(ref.ovn);
    // Another USS never learns the OVN from the DSS.
    const seen = await call(`${DSS}/operational_intent_references/${id}`, { token: uss2 });
    expect(seen.json.operational_intent_reference.ovn).toBe("Available from USS");

    const activated = await putIntent(
      id,
      intentBody(40.1, -100.1, {
        state: "Activated",
        subscription_id: ref.subscription_id,
        new_subscription: undefined,
      }),
      uss1,
      ref.ovn,
    );
    expect(activated.status).toBe(200);
    const now = activated.json.operational_intent_reference;
    expect(now).toMatchObject({ version: 2, state: "Activated", subscription_id: ref.subscription_id });
    expect(now.ovn).not.toBe(ref.ovn);

    const stale = await putIntent(id, intentBody(40.1, -100.1, { state: "Activated" }), uss1, ref.ovn);
    expect(stale.status).toBe(409);
    expect(
      (await call(`${DSS}/operational_intent_references/${id}/${ref.ovn}`, { method: "DELETE", token: uss1 }))
        .status,
    ).toBe(409);
    const deleted = await call(`${DSS}/operational_intent_references/${id}/${now.ovn}`, {
      method: "DELETE",
      token: uss1,
    });
    expect(deleted.status).toBe(200);
    expect(deleted.json.operational_intent_reference.id).toBe(id);
    expect((await call(`${DSS}/operational_intent_references/${id}`, { token: uss1 })).status).toBe(404);
  });

  it("refuses a write whose key misses an intersecting intent: 409 listing it, its OVN masked", async () => {
    const first = uuid();
    const made = await putIntent(first, intentBody(40.2, -100.2), uss2);
    expect(made.status).toBe(201);
    const firstOvn = made.json.operational_intent_reference.ovn;

    const second = uuid();
    const refused = await putIntent(second, intentBody(40.2, -100.2));
    expect(refused.status).toBe(409);
    expect(refused.json.message).toMatch(/OVNs not provided/);
    expect(refused.json.missing_operational_intents).toHaveLength(1);
    expect(refused.json.missing_operational_intents[0]).toMatchObject({
      id: first,
      ovn: "Available from USS",
    });
    // Nothing of the refused write stays: no intent, no implicit subscription, no index bumped.
    expect((await call(`${DSS}/operational_intent_references/${second}`, { token: uss1 })).status).toBe(404);
    const implicit = made.json.operational_intent_reference.subscription_id;
    const index = (await call(`${DSS}/subscriptions/${implicit}`, { token: uss2 })).json.subscription
      .notification_index;
    expect(index).toBe(1);
    const mine = await call(`${DSS}/subscriptions/query`, {
      method: "POST",
      token: uss1,
      body: { area_of_interest: volume(40.2, -100.2) },
    });
    expect(mine.json.subscriptions).toEqual([]);

    const accepted = await putIntent(second, intentBody(40.2, -100.2, { key: [firstOvn] }));
    expect(accepted.status).toBe(201);
    // Off-nominal states need no key, and need the conformance monitoring scope.
    const ovn = accepted.json.operational_intent_reference.ovn;
    const subscription_id = accepted.json.operational_intent_reference.subscription_id;
    const nonconforming = intentBody(40.2, -100.2, {
      state: "Nonconforming",
      subscription_id,
      new_subscription: undefined,
    });
    expect((await putIntent(second, nonconforming, uss1, ovn)).status).toBe(403);
    expect((await putIntent(second, nonconforming, uss1Cmsa, ovn)).status).toBe(200);
  });

  it("makes an implicit subscription, widens it with the intent, and removes it with the intent", async () => {
    const id = uuid();
    const created = await putIntent(id, intentBody(40.3, -100.3));
    const ref = created.json.operational_intent_reference;
    const sub = await call(`${DSS}/subscriptions/${ref.subscription_id}`, { token: uss1 });
    expect(sub.status).toBe(200);
    expect(sub.json.subscription).toMatchObject({
      implicit_subscription: true,
      notify_for_operational_intents: true,
      dependent_operational_intents: [id],
      uss_base_url: USS1,
    });

    const wider = {
      extents: [volume(40.3, -100.3, { halfDeg: 0.02, endMin: 90 })],
      state: "Accepted",
      uss_base_url: USS1,
      subscription_id: ref.subscription_id,
    };
    const updated = await putIntent(id, wider, uss1, ref.ovn);
    expect(updated.status).toBe(200);
    const widened = await call(`${DSS}/subscriptions/${ref.subscription_id}`, { token: uss1 });
    expect(Date.parse(widened.json.subscription.time_end.value)).toBeGreaterThan(
      Date.parse(sub.json.subscription.time_end.value),
    );
    // It may not be deleted while the intent depends on it.
    const version = widened.json.subscription.version;
    expect(
      (
        await call(`${DSS}/subscriptions/${ref.subscription_id}/${version}`, {
          method: "DELETE",
          token: uss1,
        })
      ).status,
    ).toBe(400);

    const ovn = updated.json.operational_intent_reference.ovn;
    await call(`${DSS}/operational_intent_references/${id}/${ovn}`, { method: "DELETE", token: uss1 });
    expect((await call(`${DSS}/subscriptions/${ref.subscription_id}`, { token: uss1 })).status).toBe(404);
  });

  it("refuses an explicit subscription that does not cover the intent (400)", async () => {
    const subId = uuid();
    expect(
      (
        await putSub(
          subId,
          { extents: volume(40.4, -100.4), uss_base_url: USS1, notify_for_operational_intents: true },
          uss1,
        )
      ).status,
    ).toBe(200);
    const outside = intentBody(40.4, -100.4, { subscription_id: subId, new_subscription: undefined });
    outside.extents = [volume(40.4, -100.4, { endMin: 120 })];
    const refused = await putIntent(uuid(), outside);
    expect(refused.status).toBe(400);
    expect(refused.json.message).toMatch(/ends before/);
  });

  it("bumps the notification index of each subscriber and answers them with the change", async () => {
    const subId = uuid();
    const sub = await putSub(subId, {
      extents: volume(40.5, -100.5, { halfDeg: 0.02, endMin: 60 }),
      uss_base_url: USS2,
      notify_for_operational_intents: true,
    });
    expect(sub.status).toBe(200);
    expect(sub.json.subscription.notification_index).toBe(0);

    const id = uuid();
    const created = await putIntent(id, intentBody(40.5, -100.5));
    const subscribers = created.json.subscribers as { uss_base_url: string; subscriptions: unknown[] }[];
    expect(subscribers.find((s) => s.uss_base_url === USS2)?.subscriptions).toEqual([
      { subscription_id: subId, notification_index: 1 },
    ]);
    // The writer's own implicit subscription is among them.
    expect(subscribers.map((s) => s.uss_base_url)).toContain(USS1);

    const ovn = created.json.operational_intent_reference.ovn;
    const deleted = await call(`${DSS}/operational_intent_references/${id}/${ovn}`, {
      method: "DELETE",
      token: uss1,
    });
    expect(
      deleted.json.subscribers.find((s: { uss_base_url: string }) => s.uss_base_url === USS2).subscriptions,
    ).toEqual([{ subscription_id: subId, notification_index: 2 }]);
    expect(
      (await call(`${DSS}/subscriptions/${subId}`, { token: uss2 })).json.subscription.notification_index,
    ).toBe(2);
  });

  it("checks ownership, the create state and the OVN request extension", async () => {
    const id = uuid();
    const created = await putIntent(id, intentBody(40.6, -100.6));
    const ovn = created.json.operational_intent_reference.ovn;
    expect((await putIntent(id, intentBody(40.6, -100.6, { key: [ovn] }), uss2, ovn)).status).toBe(403);
    expect(
      (await call(`${DSS}/operational_intent_references/${id}/${ovn}`, { method: "DELETE", token: uss2 }))
        .status,
    ).toBe(403);
    expect((await putIntent(uuid(), intentBody(41.6, -100.6, { state: "Activated" }))).status).toBe(400);
    expect((await putIntent(uuid(), intentBody(41.7, -100.6), uss1, "no-such-ovn-at-all")).status).toBe(400);

    const suffix = uuidV7(Date.now());
    const requested = await putIntent(
      id,
      intentBody(40.6, -100.6, { requested_ovn_suffix: suffix }),
      uss1,
      ovn,
    );
    expect(requested.status).toBe(200);
    expect(requested.json.operational_intent_reference.ovn).toBe(`${id}_${suffix}`);
    const old = uuidV7(Date.now() - 3600_000);
    const tooOld = await putIntent(
      id,
      intentBody(40.6, -100.6, { requested_ovn_suffix: old }),
      uss1,
      `${id}_${suffix}`,
    );
    expect(tooOld.status).toBe(400);
  });
});

/** A version 7 UUID for a time (the OVN request extension's suffix). */
function uuidV7(ms: number): string {
  const hex = `${ms.toString(16).padStart(12, "0")}7${crypto.randomUUID().replaceAll("-", "").slice(13, 32)}`;
  const h = `${hex.slice(0, 16)}8${hex.slice(17, 32)}`;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

describe("F3548-21 DSS: constraint references", () => {
  it("creates, queries, updates and deletes by OVN, notifying constraint subscribers", async () => {
    const subId = uuid();
    await putSub(subId, {
      extents: volume(40.7, -100.7, { halfDeg: 0.02, endMin: 60 }),
      uss_base_url: USS2,
      notify_for_constraints: true,
    });
    const id = uuid();
    const body = { extents: [volume(40.7, -100.7)], uss_base_url: "https://authority.example/utm" };
    const created = await call(`${DSS}/constraint_references/${id}`, { method: "PUT", token: manager, body });
    expect(created.status).toBe(201);
    const ref = created.json.constraint_reference;
    expect(ref).toMatchObject({ id, manager: "authority", version: 1 });
    expect(created.json.subscribers).toEqual([
      { uss_base_url: USS2, subscriptions: [{ subscription_id: subId, notification_index: 1 }] },
    ]);
    const query = await call(`${DSS}/constraint_references/query`, {
      method: "POST",
      token: manager,
      body: { area_of_interest: volume(40.7, -100.7) },
    });
    expect(query.json.constraint_references.map((r: { id: string }) => r.id)).toEqual([id]);
    expect(
      (await call(`${DSS}/constraint_references/${id}`, { method: "PUT", token: manager, body })).status,
    ).toBe(409);
    const updated = await call(`${DSS}/constraint_references/${id}/${ref.ovn}`, {
      method: "PUT",
      token: manager,
      body,
    });
    expect(updated.json.constraint_reference.version).toBe(2);
    // A USS without the constraint management scope may not write constraints.
    expect(
      (await call(`${DSS}/constraint_references/${uuid()}`, { method: "PUT", token: uss1, body })).status,
    ).toBe(403);

    // An intent whose subscription wants constraints must name the constraint in its key.
    const intent = intentBody(40.7, -100.7, {
      new_subscription: { uss_base_url: USS1, notify_for_constraints: true },
    });
    const refused = await putIntent(uuid(), intent);
    expect(refused.status).toBe(409);
    expect(refused.json.missing_constraints.map((c: { id: string; ovn: string }) => [c.id, c.ovn])).toEqual([
      [id, "Available from USS"],
    ]);

    const ovn = updated.json.constraint_reference.ovn;
    const deleted = await call(`${DSS}/constraint_references/${id}/${ovn}`, {
      method: "DELETE",
      token: manager,
    });
    expect(deleted.status).toBe(200);
    expect((await call(`${DSS}/constraint_references/${id}`, { token: manager })).status).toBe(404);
  });
});

describe("F3548-21 DSS: subscriptions", () => {
  it("creates, queries, updates and deletes by version; answers the intents it covers", async () => {
    const intentId = uuid();
    await putIntent(intentId, intentBody(40.8, -100.8));
    const id = uuid();
    const body = { extents: volume(40.8, -100.8), uss_base_url: USS2, notify_for_operational_intents: true };
    const created = await putSub(id, body);
    expect(created.status).toBe(200);
    const sub = created.json.subscription;
    expect(sub).toMatchObject({ id, notification_index: 0, implicit_subscription: false });
    expect(created.json.operational_intent_references.map((r: { id: string }) => r.id)).toContain(intentId);

    const mine = await call(`${DSS}/subscriptions/query`, {
      method: "POST",
      token: uss2,
      body: { area_of_interest: volume(40.8, -100.8) },
    });
    expect(mine.json.subscriptions.map((s: { id: string }) => s.id)).toContain(id);
    expect((await call(`${DSS}/subscriptions/${id}`, { token: uss1 })).status).toBe(403);
    expect((await putSub(id, body)).status).toBe(409);
    const updated = await putSub(id, body, uss2, sub.version);
    expect(updated.status).toBe(200);
    expect(updated.json.subscription.version).not.toBe(sub.version);
    expect(
      (await call(`${DSS}/subscriptions/${id}/${sub.version}`, { method: "DELETE", token: uss2 })).status,
    ).toBe(409);
    const version = updated.json.subscription.version;
    expect(
      (await call(`${DSS}/subscriptions/${id}/${version}`, { method: "DELETE", token: uss2 })).status,
    ).toBe(200);
    expect((await call(`${DSS}/subscriptions/${id}`, { token: uss2 })).status).toBe(404);
  });

  it("refuses a subscription longer than 24 h, one with no notifications, and a too large area", async () => {
    const long = {
      extents: volume(40.9, -100.9, { endMin: 25 * 60 }),
      uss_base_url: USS2,
      notify_for_constraints: true,
    };
    const refused = await putSub(uuid(), long);
    expect(refused.status).toBe(400);
    expect(refused.json.message).toMatch(/24 hours/);
    const none = { extents: volume(40.9, -100.9), uss_base_url: USS2 };
    expect((await putSub(uuid(), none)).status).toBe(400);
    const huge = {
      extents: volume(40.9, -100.9, { halfDeg: 1 }),
      uss_base_url: USS2,
      notify_for_constraints: true,
    };
    expect((await putSub(uuid(), huge)).status).toBe(400);
    const query = await call(`${DSS}/subscriptions/query`, {
      method: "POST",
      token: uss2,
      body: { area_of_interest: volume(40.9, -100.9, { halfDeg: 1 }) },
    });
    expect(query.status).toBe(413);
  });
});

describe("F3548-21 DSS: reports and USS availability", () => {
  it("keeps a report and answers it with an id", async () => {
    const exchange = {
      url: "https://uss2.example/utm/uss/v1/operational_intents/x",
      method: "GET",
      recorder_role: "Client",
      request_time: rfc3339(Date.now()),
      request_source: "uss1",
      problem: "timed out",
    };
    const made = await call(`${DSS}/reports`, { method: "POST", token: uss1, body: { exchange } });
    expect(made.status).toBe(201);
    expect(made.json.report_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(made.json.exchange.problem).toBe("timed out");
    expect((await call(`${DSS}/reports`, { method: "POST", token: uss1, body: {} })).status).toBe(400);
  });

  it("sets availability at its version; a Down USS may not accept intents (412)", async () => {
    const unknown = await call(`${DSS}/uss_availability/uss9`, { token: arbiter });
    expect(unknown.json).toEqual({ status: { uss: "uss9", availability: "Unknown" }, version: "" });
    const down = await call(`${DSS}/uss_availability/uss9`, {
      method: "PUT",
      token: arbiter,
      body: { old_version: "", availability: "Down" },
    });
    expect(down.status).toBe(200);
    expect(down.json.status.availability).toBe("Down");
    const stale = await call(`${DSS}/uss_availability/uss9`, {
      method: "PUT",
      token: arbiter,
      body: { old_version: "", availability: "Normal" },
    });
    expect(stale.status).toBe(409);
    const uss9 = await interussToken([SC], { sub: "uss9" });
    expect((await putIntent(uuid(), intentBody(39.1, -101.1), uss9)).status).toBe(412);
    // Only the arbitration scope sets availability.
    const bySc = await call(`${DSS}/uss_availability/uss9`, {
      method: "PUT",
      token: uss1,
      body: { old_version: down.json.version, availability: "Normal" },
    });
    expect(bySc.status).toBe(403);
    const normal = await call(`${DSS}/uss_availability/uss9`, {
      method: "PUT",
      token: arbiter,
      body: { old_version: down.json.version, availability: "Normal" },
    });
    expect(normal.status).toBe(200);
  });
});

describe("F3548-21 DSS: tokens and bad input", () => {
  it("answers 401 without a token and 403 without the endpoint's scope", async () => {
    const missing = await call(`${DSS}/operational_intent_references/${uuid()}`);
    expect(missing.status).toBe(401);
    expect(missing.json.message).toBeTypeOf("string");
    expect((await call(`${DSS}/operational_intent_references/${uuid()}`, { token: manager })).status).toBe(
      403,
    );
    expect(
      (await call(`${DSS}/uss_availability/uss1`, { method: "PUT", token: manager, body: {} })).status,
    ).toBe(403);
  });

  it("answers bad bodies, ids and areas with 400 and the field at fault", async () => {
    const badId = await call(`${DSS}/operational_intent_references/not-a-uuid`, { token: uss1 });
    expect(badId.status).toBe(400);
    const noState = await putIntent(uuid(), { extents: [volume(39.2, -101.2)], uss_base_url: USS1 });
    expect(noState.status).toBe(400);
    expect(noState.json.message).toMatch(/^state/);
    const noTimes = intentBody(39.2, -101.2);
    noTimes.extents = [{ ...volume(39.2, -101.2), time_end: undefined } as never];
    expect((await putIntent(uuid(), noTimes)).status).toBe(400);
    const past = intentBody(39.2, -101.2);
    past.extents = [volume(39.2, -101.2, { startMin: -120, endMin: -60 })];
    expect((await putIntent(uuid(), past)).status).toBe(400);
    const noArea = await call(`${DSS}/operational_intent_references/query`, {
      method: "POST",
      token: uss1,
      body: {},
    });
    expect(noArea.status).toBe(400);
    // The standard's clients send null for an absent member (InterUSS's qualifier does).
    const withNulls = await call(`${DSS}/operational_intent_references/query`, {
      method: "POST",
      token: uss1,
      body: {
        area_of_interest: {
          ...volume(39.2, -101.2),
          time_start: null,
          time_end: null,
          volume: { ...volume(39.2, -101.2).volume, outline_circle: null },
        },
      },
    });
    expect(withNulls.status).toBe(200);
    const deleteWithoutOvn = await call(`${DSS}/operational_intent_references/${uuid()}`, {
      method: "DELETE",
      token: uss1,
    });
    expect(deleteWithoutOvn.status).toBe(400);
  });
});

describe("F3548-21 DSS: expiry", () => {
  it("removes ended intents, their implicit subscriptions and ended constraints by the object's alarm", async () => {
    const id = uuid();
    const created = await putIntent(id, intentBody(39.3, -101.3));
    const subscriptionId = created.json.operational_intent_reference.subscription_id;
    const stub = scdDssOf(env);
    // As if it had ended two hours ago: the alarm keeps ended entities an hour (ENDED_KEPT_MS).
    await runInDurableObject(stub, (_, ctx) => {
      const ended = Date.now() - 2 * 3600_000;
      ctx.storage.sql.exec("UPDATE operational_intents SET end_ms = ? WHERE id = ?", ended, id);
      ctx.storage.sql.exec("UPDATE subscriptions SET end_ms = ? WHERE id = ?", ended, subscriptionId);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await call(`${DSS}/operational_intent_references/${id}`, { token: uss1 })).status).toBe(404);
    expect((await call(`${DSS}/subscriptions/${subscriptionId}`, { token: uss1 })).status).toBe(404);
    // The next alarm is set from the earliest end still kept.
    const alarm = await runInDurableObject(stub, (_, ctx) => ctx.storage.getAlarm());
    expect(alarm === null || alarm > Date.now()).toBe(true);
  });
});
