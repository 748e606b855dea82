import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SCD_SCOPES, scdDssOf } from "../../worker/dss/scdDss";
import { SCOPES } from "../../worker/interuss/auth";
import { volume4d } from "../../worker/interuss/volumes";
import {
  coordinate,
  intentIdOf,
  OWN_MANAGER,
  putPlanIntent,
  removePlanIntent,
} from "../../worker/services/operationalIntents";
import { dbFor } from "../../worker/store/db";
import { rfc3339, squareOutline } from "../geometries";
import { call, interussToken } from "./helpers";

/**
 * ASTM F3548-21 between USSs (`/uss/v1`), as other USSs and the qualifier's mock_uss use Windsock's
 * side: the details of its intents with the OVN its DSS holds, notifications of other USSs' intents
 * kept and used when planning (priorities, precise volumes, the key), the refusals the standard
 * names, reports; and, with a stand-in peer, the details fetched from a manager and the subscribers
 * notified of Windsock's own changes.
 */

const USS = "/uss/v1";
const PLAN = "/interuss/flight_planning/v1";
const HOUR = 3_600_000;
const { strategicCoordination: SC, conformanceMonitoring: CMSA } = SCD_SCOPES;
const scd = () => scdDssOf(env);
const db = dbFor(env.DB);

let planToken: string;
let planDirectToken: string;
let peerB: string;
let peerC: string;
let cmsaOnly: string;

beforeAll(async () => {
  planToken = await interussToken([SCOPES.flightPlanningPlan]);
  planDirectToken = await interussToken([SCOPES.flightPlanningDirect]);
  peerB = await interussToken([SC], { sub: "peer-b" });
  peerC = await interussToken([SC], { sub: "peer-c" });
  cmsaOnly = await interussToken([CMSA], { sub: "peer-b" });
});

/** A Volume4D over open ocean: a square of 0.005° around the point, between two altitudes (W84 m). */
const volumeAt = (lat: number, lng: number, lowerM: number, upperM: number, startMs: number) => ({
  volume: {
    outline_polygon: squareOutline(lat, lng, 0.005),
    altitude_lower: { value: lowerM, reference: "W84", units: "M" },
    altitude_upper: { value: upperM, reference: "W84", units: "M" },
  },
  time_start: rfc3339(startMs),
  time_end: rfc3339(startMs + HOUR),
});

const planBody = (volume: ReturnType<typeof volumeAt>, priority?: number) => ({
  flight_plan: {
    basic_information: { usage_state: "Planned", uas_state: "Nominal", area: [volume] },
    ...(priority === undefined ? {} : { astm_f3548_21: { priority } }),
  },
  execution_style: "IfAllowed",
  request_id: crypto.randomUUID(),
});

async function plan(id: string, volume: ReturnType<typeof volumeAt>, priority?: number) {
  const res = await call(`${PLAN}/flight_plans/${id}`, {
    method: "PUT",
    token: planToken,
    body: planBody(volume, priority),
  });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

/** Another USS's intent, written in Windsock's DSS as that USS would. */
async function peerIntent(sub: string, id: string, volume: ReturnType<typeof volumeAt>, ussBaseUrl: string) {
  const made = (await scd().putOperationalIntent({ sub, scopes: [SC] }, id, undefined, {
    extents: [volume],
    key: [],
    state: "Accepted",
    uss_base_url: ussBaseUrl,
  })) as any;
  expect(made.ok, JSON.stringify(made)).toBe(true);
  return made.value.operational_intent_reference;
}

async function userNotifications(after: string) {
  const res = await call(`${PLAN}/user_notifications?after=${after}`, { token: planToken });
  expect(res.status, res.text).toBe(200);
  return res.json.user_notifications as any[];
}

const notify = (token: string, body: unknown) =>
  call(`${USS}/operational_intents`, { method: "POST", token, body });
const subscriptions = [{ subscription_id: crypto.randomUUID(), notification_index: 1 }];

describe("F3548-21 USS: Windsock's operational intents as others read them", () => {
  it("answers an intent's reference (the OVN its DSS holds) and details, and forgets it with its plan", async () => {
    const start = Date.now() + HOUR;
    const id = crypto.randomUUID();
    expect((await plan(id, volumeAt(21.3, -155.1, 0, 90, start), 3)).flight_plan_status).toBe("Planned");
    const intentId = await intentIdOf(id);
    const held = ((await scd().getOperationalIntent(OWN_MANAGER, intentId)) as any).value
      .operational_intent_reference;

    const res = await call(`${USS}/operational_intents/${intentId}`, { token: peerB });
    expect(res.status, res.text).toBe(200);
    const { reference, details } = res.json.operational_intent;
    expect(reference).toMatchObject({ id: intentId, manager: "windsock", state: "Accepted", ovn: held.ovn });
    expect(reference.version).toBe(held.version);
    expect(details.priority).toBe(3);
    expect(details.off_nominal_volumes).toEqual([]);
    expect(details.volumes).toHaveLength(1);
    expect(details.volumes[0].volume.altitude_lower).toEqual({ value: 0, reference: "W84", units: "M" });
    expect(details.volumes[0].volume.altitude_upper).toEqual({ value: 90, reference: "W84", units: "M" });
    expect(Date.parse(details.volumes[0].time_start.value)).toBe(start);
    expect(details.volumes[0].volume.outline_polygon.vertices).toEqual(
      squareOutline(21.3, -155.1, 0.005).vertices,
    );

    // Telemetry is only for off-nominal intents.
    const telemetry = await call(`${USS}/operational_intents/${intentId}/telemetry`, {
      token: await interussToken([CMSA], { sub: "peer-b" }),
    });
    expect(telemetry.status).toBe(409);
    expect(telemetry.json.message).toContain("Accepted");

    expect(
      (await call(`${PLAN}/flight_plans/${id}`, { method: "DELETE", token: planDirectToken })).status,
    ).toBe(200);
    const gone = await call(`${USS}/operational_intents/${intentId}`, { token: peerB });
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ message: expect.any(String) });
  });

  it("refuses a bad id (400), no token (401) and another scope (403), in the standard's {message}", async () => {
    const id = crypto.randomUUID();
    expect((await call(`${USS}/operational_intents/${id}`, { token: peerB })).status).toBe(404);
    const bad = await call(`${USS}/operational_intents/not-an-id`, { token: peerB });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain("entityid");
    const anonymous = await call(`${USS}/operational_intents/${id}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toEqual({ message: expect.any(String) });
    expect((await call(`${USS}/operational_intents/${id}`, { token: cmsaOnly })).status).toBe(403);
    expect((await call(`${USS}/operational_intents/${id}/telemetry`, { token: cmsaOnly })).status).toBe(404);
    expect((await call(`${USS}/operational_intents/${id}/telemetry`, { token: peerB })).status).toBe(403);
  });
});

describe("F3548-21 USS: other USSs' intents, notified and planned around", () => {
  const HERE = [21.6, -155.4] as const;
  const start = Date.now() + 2 * HOUR;
  const theirs = crypto.randomUUID();
  const theirVolume = volumeAt(...HERE, 0, 50, start);
  let theirReference: any;
  const notification = (priority: number, reference = theirReference) => ({
    operational_intent_id: theirs,
    operational_intent: {
      reference,
      details: { volumes: [theirVolume], off_nominal_volumes: [], priority },
    },
    subscriptions,
  });

  beforeAll(async () => {
    const reference = await peerIntent("peer-b", theirs, theirVolume, "https://peer-b.invalid");
    const held = (await scd().getOperationalIntent("peer-b", theirs)) as any;
    theirReference = { ...reference, ovn: held.value.operational_intent_reference.ovn };
  });

  it("keeps a notified intent and plans beside it with its OVN in the key, asking its USS nothing", async () => {
    expect((await notify(peerB, notification(2))).status).toBe(204);
    // Beside them, 55 m to the north in the same DSS cells: no conflict, but the DSS wants their OVN in
    // the key (else the write is refused). Their USS is unreachable (peer-b.invalid, and no token
    // endpoint here): only the notification can have told either.
    const beside = await plan(crypto.randomUUID(), volumeAt(HERE[0] + 0.0105, HERE[1], 0, 120, start));
    expect(beside.planning_result, beside.notes).toBe("Completed");
    expect(beside.flight_plan_status).toBe("Planned");
  });

  it("refuses a plan that meets it at equal or lower priority, naming it, and plans one of higher priority", async () => {
    const lower = await plan(crypto.randomUUID(), volumeAt(...HERE, 0, 120, start));
    expect(lower.planning_result).toBe("Rejected");
    expect(lower.notes).toContain(theirs);
    expect(lower.notes).toContain("priority 2");
    expect((await plan(crypto.randomUUID(), volumeAt(...HERE, 0, 120, start), 2)).planning_result).toBe(
      "Rejected",
    );
    const before = new Date(Date.now() - 1000).toISOString();
    const higher = await plan(crypto.randomUUID(), volumeAt(...HERE, 0, 120, start), 3);
    expect(higher.planning_result, higher.notes).toBe("Completed");
    // SCD0090: the user is told its plan now conflicts with a lower-priority intent.
    const told = await userNotifications(before);
    expect(told).toEqual([
      {
        observed_at: { value: expect.any(String), format: "RFC3339" },
        conflicts: "Single",
        message: expect.stringContaining(theirs),
      },
    ]);
  });

  it("refuses notifications from another manager (403), of older versions (409) and of bad details (400)", async () => {
    const other = await notify(peerC, notification(2));
    expect(other.status).toBe(403);
    expect(other.json.message).toContain("managed by another USS");
    const older = await notify(
      peerB,
      notification(2, { ...theirReference, version: theirReference.version - 1 }),
    );
    expect(older.status).toBe(409);
    const changed = await notify(peerB, notification(5));
    expect(changed.status).toBe(409);
    expect(changed.json.message).toContain("other content");
    const bad = await notify(peerB, {
      ...notification(2),
      operational_intent: { reference: theirReference, details: { volumes: [{ volume: {} }], priority: 2 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain("operational_intent.details.volumes.0");
    const empty = await notify(peerB, { ...notification(2), subscriptions: [] });
    expect(empty.status).toBe(400);
    expect(empty.json.message).toContain("subscriptions");
    const broken = await call(`${USS}/operational_intents`, {
      method: "POST",
      token: peerB,
      body: "{not json",
    });
    expect(broken.status).toBe(400);
    expect(broken.json).toEqual({ message: expect.any(String) });
    const huge = await notify(peerB, {
      ...notification(2),
      operational_intent: {
        reference: theirReference,
        details: { volumes: [theirVolume], off_nominal_volumes: [], priority: 1e300 },
      },
    });
    expect(huge.status).toBe(409); // same version, other content
    const flood = Array.from({ length: 101 }, () => ({
      subscription_id: crypto.randomUUID(),
      notification_index: 1,
    }));
    expect((await notify(peerB, { ...notification(2), subscriptions: flood })).status).toBe(400);
  });

  it("forgets a removed intent; one whose USS cannot be asked is then refused, whatever the priority", async () => {
    expect((await notify(peerB, { operational_intent_id: theirs, subscriptions })).status).toBe(204);
    const refused = await plan(crypto.randomUUID(), volumeAt(...HERE, 0, 120, start), 9);
    expect(refused.planning_result).toBe("Rejected");
    expect(refused.notes).toContain("could not be asked");
  });
});

describe("F3548-21 USS: intents of a USS marked Down", () => {
  it("plans over its Accepted intent (lowest priority, SCD0005) but not over its Activated one", async () => {
    const HERE = [24.3, -158.3] as const;
    const start = Date.now() + HOUR;
    const down = { sub: "peer-down", scopes: [SC] };
    const accepted = crypto.randomUUID();
    await peerIntent("peer-down", accepted, volumeAt(...HERE, 0, 50, start), "https://peer-down.invalid");
    const activated = crypto.randomUUID();
    const there = volumeAt(HERE[0] + 0.1, HERE[1], 0, 50, Date.now());
    const made = (await scd().putOperationalIntent(down, activated, undefined, {
      extents: [there],
      key: [],
      state: "Accepted",
      uss_base_url: "https://peer-down.invalid",
      new_subscription: { uss_base_url: "https://peer-down.invalid" },
    })) as any;
    const ovn = ((await scd().getOperationalIntent("peer-down", activated)) as any).value
      .operational_intent_reference.ovn;
    const moved = (await scd().putOperationalIntent(down, activated, ovn, {
      extents: [there],
      key: [],
      state: "Activated",
      uss_base_url: "https://peer-down.invalid",
      subscription_id: made.value.operational_intent_reference.subscription_id,
    })) as any;
    expect(moved.ok, JSON.stringify(moved)).toBe(true);
    const availability = scd().getAvailability("peer-down") as any;
    await scd().setAvailability("peer-down", (await availability).version, "Down");

    const over = await plan(crypto.randomUUID(), volumeAt(...HERE, 0, 120, start));
    expect(over.planning_result, over.notes).toBe("Completed");
    const overActive = await plan(crypto.randomUUID(), volumeAt(HERE[0] + 0.1, HERE[1], 0, 120, Date.now()));
    expect(overActive.planning_result).toBe("Rejected");
    expect(overActive.notes).toContain("its USS is marked Down");
  });
});

describe("F3548-21 USS: the planning rules on Windsock's own plans", () => {
  /**
   * The qualifier's valid_flight triangle (about 60 m across, 0–30 m): its apex at the point, opening
   * north (`dir` 1) or south (-1).
   */
  const triangle = (lat: number, lng: number, dir: 1 | -1, startMs: number) => ({
    volume: {
      outline_polygon: {
        vertices: [
          { lat, lng },
          { lat: lat + dir * 0.00042, lng: lng - 0.0003 },
          { lat: lat + dir * 0.00042, lng: lng + 0.0003 },
        ],
      },
      altitude_lower: { value: 0, reference: "W84", units: "M" },
      altitude_upper: { value: 30, reference: "W84", units: "M" },
    },
    time_start: rfc3339(startMs),
    time_end: rfc3339(startMs + HOUR),
  });

  it("refuses a plan that meets its own by a centimetre (GEN0500), naming it", async () => {
    const start = Date.now() + HOUR;
    // valid_flight opens north from its apex; the tiny overlap opens south from 1.1 cm north of it.
    const first = await plan(crypto.randomUUID(), triangle(23.2, -157.3, 1, start) as any);
    expect(first.planning_result, first.notes).toBe("Completed");
    const overlap = await plan(crypto.randomUUID(), triangle(23.2 + 0.0000001, -157.3, -1, start) as any);
    expect(overlap.planning_result).toBe("Rejected");
    expect(overlap.notes).toContain("(windsock, Accepted: priority 0, not below this plan's 0)");
    // With its apex 1.1 cm south of the other's, it no longer meets: planned.
    const apart = triangle(23.2 - 0.0000001, -157.3, -1, start);
    expect((await plan(crypto.randomUUID(), apart as any)).planning_result).toBe("Completed");
  });

  it("refuses a plan starting more than 30 days ahead (OPIN0030) or already ended", async () => {
    const far = await plan(crypto.randomUUID(), volumeAt(23.5, -157.5, 0, 30, Date.now() + 32 * 24 * HOUR));
    expect(far.planning_result).toBe("Rejected");
    expect(far.notes).toContain("more than 30 days ahead");
    const ended = volumeAt(23.5, -157.5, 0, 30, Date.now() - HOUR - 5000);
    const past = await plan(crypto.randomUUID(), ended);
    expect(past.planning_result).toBe("Rejected");
    expect(past.notes).toContain("in the past");
  });

  it("keeps an Activated plan's earlier conflict through a change (SCD0030), tells its user (SCD0095), goes off-nominal over it", async () => {
    const HERE = [23.8, -157.8] as const;
    const start = Date.now() - 60_000;
    const id = crypto.randomUUID();
    const inUse = (volume: ReturnType<typeof volumeAt>, uasState = "Nominal") => ({
      ...planBody(volume),
      flight_plan: { basic_information: { usage_state: "InUse", uas_state: uasState, area: [volume] } },
    });
    const put = async (body: unknown) => {
      const res = await call(`${PLAN}/flight_plans/${id}`, { method: "PUT", token: planToken, body });
      expect(res.status, res.text).toBe(200);
      return res.json;
    };
    const activated = await put(inUse(volumeAt(...HERE, 0, 50, start)));
    expect(activated.flight_plan_status, activated.notes).toBe("OkToFly");
    const ours = (await call(`${USS}/operational_intents/${await intentIdOf(id)}`, { token: peerB })).json
      .operational_intent;

    // Another USS activates a higher-priority intent over it, naming its OVN, and notifies its subscription.
    const after = new Date(Date.now() - 1000).toISOString();
    const theirs = crypto.randomUUID();
    const theirVolume = volumeAt(...HERE, 0, 80, start);
    const peer = { sub: "peer-e", scopes: [SC] };
    const theirParams = {
      extents: [theirVolume],
      key: [ours.reference.ovn],
      state: "Accepted",
      uss_base_url: "https://peer-e.invalid",
      new_subscription: { uss_base_url: "https://peer-e.invalid" },
    };
    const accepted = (await scd().putOperationalIntent(peer, theirs, undefined, theirParams)) as any;
    expect(accepted.ok, JSON.stringify(accepted)).toBe(true);
    const acceptedOvn = ((await scd().getOperationalIntent("peer-e", theirs)) as any).value
      .operational_intent_reference.ovn;
    const made = (await scd().putOperationalIntent(peer, theirs, acceptedOvn, {
      ...theirParams,
      state: "Activated",
      new_subscription: undefined,
      subscription_id: accepted.value.operational_intent_reference.subscription_id,
    })) as any;
    expect(made.ok, JSON.stringify(made)).toBe(true);
    const reference = {
      ...made.value.operational_intent_reference,
      ovn: ((await scd().getOperationalIntent("peer-e", theirs)) as any).value.operational_intent_reference
        .ovn,
    };
    const peerE = await interussToken([SC], { sub: "peer-e" });
    const notified = await notify(peerE, {
      operational_intent_id: theirs,
      operational_intent: {
        reference,
        details: { volumes: [theirVolume], off_nominal_volumes: [], priority: 5 },
      },
      subscriptions: [{ subscription_id: ours.reference.subscription_id, notification_index: 2 }],
    });
    expect(notified.status).toBe(204);
    expect(await userNotifications(after)).toContainEqual(
      expect.objectContaining({ conflicts: "Single", message: expect.stringContaining(theirs) }),
    );

    // Changed while still meeting it: the conflict was there before, so the change stands.
    const changed = await put(inUse(volumeAt(...HERE, 0, 60, start)));
    expect(changed.planning_result, changed.notes).toBe("Completed");
    // A new flight there would gain that conflict: refused.
    const fresh = await call(`${PLAN}/flight_plans/${crypto.randomUUID()}`, {
      method: "PUT",
      token: planToken,
      body: inUse(volumeAt(...HERE, 0, 60, start)),
    });
    expect(fresh.json.planning_result).toBe("Rejected");
    // Off-nominal over it: shared as Nonconforming, not deconflicted.
    const offNominal = await put(inUse(volumeAt(...HERE, 0, 60, start), "OffNominal"));
    expect(offNominal).toMatchObject({ planning_result: "Completed", flight_plan_status: "OffNominal" });
    const shared = (await call(`${USS}/operational_intents/${await intentIdOf(id)}`, { token: peerB })).json
      .operational_intent;
    expect(shared.reference.state).toBe("Nonconforming");
    expect(shared.details.off_nominal_volumes).toHaveLength(1);
    const telemetry = await call(`${USS}/operational_intents/${await intentIdOf(id)}/telemetry`, {
      token: await interussToken([CMSA], { sub: "peer-e" }),
    });
    expect(telemetry.status).toBe(412);
  });
});

describe("F3548-21 USS: reports", () => {
  it("keeps another USS's report (201, with its id)", async () => {
    const report = {
      exchange: {
        url: "https://windsock.test/uss/v1/operational_intents/x",
        method: "GET",
        recorder_role: "Client",
        request_time: rfc3339(Date.now()),
        response_code: 500,
        problem: "the details did not parse",
      },
    };
    const res = await call(`${USS}/reports`, { method: "POST", token: peerB, body: report });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject(report);
    expect(res.json.report_id).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await env.DB.prepare("SELECT reporter FROM uss_reports WHERE id = ?")
      .bind(res.json.report_id)
      .first();
    expect(kept).toEqual({ reporter: "peer-b" });
    expect((await call(`${USS}/reports`, { method: "POST", token: peerB, body: {} })).status).toBe(400);
  });
});

describe("F3548-21 USS: Windsock asks other USSs and tells its subscribers (stand-in peer)", () => {
  const PEER = "https://peer-d.test";
  const TOKEN_URL = "https://auth.test/token";
  const config = { ...env, USS_AUTH_TOKEN_URL: TOKEN_URL } as typeof env;

  /** The authority and one peer USS serving its intent's details; every request recorded. */
  function standInPeer(details: () => unknown) {
    const calls: { method: string; url: string; auth: string | null; body: any }[] = [];
    const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      const body = typeof init?.body === "string" ? init.body : init?.body ? String(init.body) : null;
      calls.push({
        method: init?.method ?? "GET",
        url,
        auth: new Headers(init?.headers).get("Authorization"),
        body: body && url !== TOKEN_URL ? JSON.parse(body) : body,
      });
      if (url === TOKEN_URL) return Response.json({ access_token: "peer-token", expires_in: 3600 });
      if (url.startsWith(`${PEER}/uss/v1/operational_intents/`)) return Response.json(details());
      if (url === `${PEER}/uss/v1/operational_intents`) return new Response(null, { status: 204 });
      return new Response("not found", { status: 404 });
    }) as typeof fetch;
    return { calls, fetcher };
  }

  it("fetches the details of an intent it was not told of, plans around it, and notifies the peer's subscription", async () => {
    const here = [22.1, -156.2] as const;
    const start = Date.now() + 3 * HOUR;
    const now = Date.now();
    const volume = volumeAt(...here, 0, 50, start);
    const id = crypto.randomUUID();
    const reference = await peerIntent("peer-d", id, volume, PEER);
    const ovn = ((await scd().getOperationalIntent("peer-d", id)) as any).value.operational_intent_reference
      .ovn;
    const subscription = (await scd().putSubscription("peer-d", crypto.randomUUID(), undefined, {
      extents: volumeAt(...here, 0, 1000, start),
      uss_base_url: PEER,
      notify_for_operational_intents: true,
    })) as any;
    expect(subscription.ok, JSON.stringify(subscription)).toBe(true);
    const peer = standInPeer(() => ({
      operational_intent: {
        reference: { ...reference, ovn },
        details: { volumes: [volume], off_nominal_volumes: [], priority: 0 },
      },
    }));

    const meeting = volume4d(volumeAt(...here, 0, 120, start), "v");
    const refused = await coordinate(
      db,
      config,
      { flightPlanId: null, volumes: [meeting], priority: 0, inUse: false },
      now,
      peer.fetcher,
    );
    expect(refused.conflicts.map((c) => c.reference.id)).toEqual([id]);
    const asked = peer.calls.find((c) => c.url === `${PEER}/uss/v1/operational_intents/${id}`)!;
    expect(asked.auth).toBe("Bearer peer-token");
    const tokenRequest = peer.calls.find((c) => c.url === TOKEN_URL)!;
    expect(tokenRequest.body).toContain("scope=utm.strategic_coordination");
    expect(tokenRequest.body).toContain("intended_audience=peer-d.test");

    // Beside theirs, 55 m to the north in the same DSS cells.
    const beside = volumeAt(here[0] + 0.0105, here[1], 0, 120, start);
    const above = volume4d(beside, "v");
    const planId = crypto.randomUUID();
    const clear = await coordinate(
      db,
      config,
      { flightPlanId: planId, volumes: [above], priority: 0, inUse: false },
      now,
      peer.fetcher,
    );
    expect(clear.conflicts).toEqual([]);
    expect(clear.key).toContain(ovn);
    // Known at this version now: not asked again.
    expect(peer.calls.filter((c) => c.url.endsWith(id))).toHaveLength(1);

    const written = await putPlanIntent(
      db,
      config,
      planId,
      { volumes: [above], priority: 0, state: "Accepted", key: clear.key },
      "https://windsock.test",
      now,
      peer.fetcher,
    );
    const told = peer.calls.filter(
      (c) => c.method === "POST" && c.url === `${PEER}/uss/v1/operational_intents`,
    );
    expect(told).toHaveLength(1);
    expect(told[0]!.body.operational_intent_id).toBe(written.id);
    expect(told[0]!.body.operational_intent.reference).toMatchObject({
      id: written.id,
      ovn: written.ovn,
      manager: "windsock",
    });
    expect(told[0]!.body.operational_intent.details.volumes[0].volume.outline_polygon).toEqual(
      beside.volume.outline_polygon,
    );
    expect(told[0]!.body.subscriptions).toEqual([
      { subscription_id: subscription.value.subscription.id, notification_index: expect.any(Number) },
    ]);

    // A USS whose address is no public https host is never called (its intent then counts as a conflict).
    const metadata = crypto.randomUUID();
    await peerIntent(
      "peer-f",
      metadata,
      volumeAt(here[0] - 0.05, here[1], 0, 50, start),
      "http://169.254.169.254",
    );
    const south = volume4d(volumeAt(here[0] - 0.05, here[1], 0, 120, start), "v");
    const guarded = await coordinate(
      db,
      config,
      { flightPlanId: null, volumes: [south], priority: 0, inUse: false },
      now,
      peer.fetcher,
    );
    expect(guarded.conflicts.find((c) => c.reference.id === metadata)?.reason).toContain("must use https");
    expect(peer.calls.some((c) => c.url.includes("169.254"))).toBe(false);

    await removePlanIntent(db, config, planId, peer.fetcher);
    const removal = peer.calls.filter((c) => c.method === "POST").at(-1)!;
    expect(removal.body.operational_intent_id).toBe(written.id);
    expect(removal.body.operational_intent).toBeUndefined();
    expect((await call(`${USS}/operational_intents/${written.id}`, { token: peerB })).status).toBe(404);
  });
});
