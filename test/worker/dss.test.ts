import { beforeAll, describe, expect, it } from "vitest";
import { RID_SCOPES } from "../../worker/rid/constants";
import { dssVolume, rfc3339 } from "../geometries";
import { call, interussToken } from "./helpers";

/**
 * The F3411-22a DSS (`/rid/v2/dss/…`) as USSs use it: a display provider subscribes over an area,
 * a service provider writes ISAs there and is told whom to notify (with each subscription's index
 * bumped), versions guard every update and delete, and the standard's errors come back as
 * `{"message"}`: 400, 403, 404, 409, 413, 429.
 */

const DSS = "/rid/v2/dss";
let sp: string;
let dp: string;
let otherSp: string;
let otherDp: string;

beforeAll(async () => {
  sp = await interussToken([RID_SCOPES.serviceProvider], { sub: "uss1" });
  dp = await interussToken([RID_SCOPES.displayProvider], { sub: "uss2" });
  otherSp = await interussToken([RID_SCOPES.serviceProvider], { sub: "uss3" });
  otherDp = await interussToken([RID_SCOPES.displayProvider], { sub: "uss4" });
});

const uuid = () => crypto.randomUUID();

/** A square of `halfDeg` around a point, as the standard's Volume4D for the next `minutes`. */
function extents(lat: number, lng: number, halfDeg = 0.005, minutes = 30) {
  const now = Date.now();
  return dssVolume(lat, lng, halfDeg, now, now + minutes * 60_000);
}
const area = (lat: number, lng: number, d = 0.01) =>
  [lat - d, lng - d, lat - d, lng + d, lat + d, lng + d, lat + d, lng - d].join(",");

const putIsa = (id: string, body: unknown, token = sp, version?: string) =>
  call(`${DSS}/identification_service_areas/${id}${version ? `/${version}` : ""}`, {
    method: "PUT",
    token,
    body,
  });
const putSub = (id: string, body: unknown, token = dp, version?: string) =>
  call(`${DSS}/subscriptions/${id}${version ? `/${version}` : ""}`, { method: "PUT", token, body });

describe("F3411-22a DSS: identification service areas", () => {
  it("creates, finds, gets, updates and deletes an ISA, version by version", async () => {
    const id = uuid();
    const created = await putIsa(id, {
      extents: extents(47.1, 8.1),
      uss_base_url: "https://sp.example/rid/v2",
    });
    expect(created.status).toBe(200);
    const isa = created.json.service_area;
    expect(isa).toMatchObject({ id, owner: "uss1", uss_base_url: "https://sp.example/rid/v2" });
    expect(isa.time_end.format).toBe("RFC3339");

    const found = await call(`${DSS}/identification_service_areas?area=${area(47.1, 8.1)}`, { token: dp });
    expect(found.status).toBe(200);
    expect(found.json.service_areas.map((a: { id: string }) => a.id)).toContain(id);
    const elsewhere = await call(`${DSS}/identification_service_areas?area=${area(47.5, 8.5)}`, {
      token: dp,
    });
    expect(elsewhere.json.service_areas.map((a: { id: string }) => a.id)).not.toContain(id);

    const got = await call(`${DSS}/identification_service_areas/${id}`, { token: dp });
    expect(got.json.service_area).toEqual(isa);

    const again = await putIsa(id, {
      extents: extents(47.1, 8.1),
      uss_base_url: "https://sp.example/rid/v2",
    });
    expect(again.status).toBe(409);

    const stale = await putIsa(
      id,
      { extents: extents(47.1, 8.1), uss_base_url: "https://x.example" },
      sp,
      "0000000000000001",
    );
    expect(stale.status).toBe(409);
    expect(stale.json.message).toMatch(/version/);

    const updated = await putIsa(
      id,
      { extents: extents(47.1, 8.1), uss_base_url: "https://x.example" },
      sp,
      isa.version,
    );
    expect(updated.status).toBe(200);
    expect(updated.json.service_area.version).not.toBe(isa.version);

    const oldVersion = await call(`${DSS}/identification_service_areas/${id}/${isa.version}`, {
      method: "DELETE",
      token: sp,
    });
    expect(oldVersion.status).toBe(409);
    const notOwner = await call(
      `${DSS}/identification_service_areas/${id}/${updated.json.service_area.version}`,
      {
        method: "DELETE",
        token: otherSp,
      },
    );
    expect(notOwner.status).toBe(403);
    const deleted = await call(
      `${DSS}/identification_service_areas/${id}/${updated.json.service_area.version}`,
      {
        method: "DELETE",
        token: sp,
      },
    );
    expect(deleted.status).toBe(200);
    expect(deleted.json.service_area.id).toBe(id);
    expect((await call(`${DSS}/identification_service_areas/${id}`, { token: dp })).status).toBe(404);
  });

  it("refuses a missing scope (403), no token (401), a bad body (400) and too large an area", async () => {
    const body = { extents: extents(47.2, 8.2), uss_base_url: "https://sp.example" };
    expect((await putIsa(uuid(), body, dp)).status).toBe(403);
    expect((await call(`${DSS}/identification_service_areas?area=${area(1, 1)}`, { token: sp })).status).toBe(
      403,
    );
    expect(
      (await call(`${DSS}/identification_service_areas/${uuid()}`, { method: "PUT", body })).status,
    ).toBe(401);
    expect((await putIsa("not-a-uuid", body)).status).toBe(400);
    expect((await putIsa(uuid(), { extents: extents(47.2, 8.2) })).status).toBe(400);
    const noEnd = { ...extents(47.2, 8.2), time_end: undefined };
    expect((await putIsa(uuid(), { ...body, extents: noEnd })).status).toBe(400);

    const huge = await putIsa(uuid(), { ...body, extents: extents(47.2, 8.2, 0.5) });
    expect(huge.status).toBe(400);
    expect(huge.json.message).toMatch(/2500 km²/);
    const hugeSearch = await call(`${DSS}/identification_service_areas?area=${area(47.2, 8.2, 0.5)}`, {
      token: dp,
    });
    expect(hugeSearch.status).toBe(413);
    expect((await call(`${DSS}/identification_service_areas?area=1,2,3`, { token: dp })).status).toBe(400);
    const loop = `${area(47.2, 8.2)},${area(47.2, 8.2).split(",").slice(0, 2).join(",")}`;
    expect((await call(`${DSS}/identification_service_areas?area=${loop}`, { token: dp })).status).toBe(400);
  });
});

describe("F3411-22a DSS: times, expiry and paths", () => {
  it("answers the times sent to the microsecond", async () => {
    const body = { extents: extents(43.1, 4.1), uss_base_url: "https://sp.example" };
    body.extents.time_end = { value: "2099-01-01T00:00:00.123456Z", format: "RFC3339" };
    const created = await putIsa(uuid(), body);
    expect(created.json.service_area.time_end.value).toBe("2099-01-01T00:00:00.123456Z");
  });

  it("keeps an ended ISA readable by id, but finds it no more", async () => {
    const id = uuid();
    const body = { extents: extents(43.2, 4.2), uss_base_url: "https://sp.example" };
    body.extents.time_end = rfc3339(Date.now() + 1000);
    expect((await putIsa(id, body)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await call(`${DSS}/identification_service_areas/${id}`, { token: dp })).status).toBe(200);
    const found = await call(`${DSS}/identification_service_areas?area=${area(43.2, 4.2)}`, { token: dp });
    expect(found.json.service_areas).toEqual([]);
    const version = (await call(`${DSS}/identification_service_areas/${id}`, { token: dp })).json.service_area
      .version;
    const deleted = await call(`${DSS}/identification_service_areas/${id}/${version}`, {
      method: "DELETE",
      token: sp,
    });
    expect(deleted.status).toBe(200);
  });

  it("refuses a delete without a version with 400", async () => {
    const isa = await call(`${DSS}/identification_service_areas/${uuid()}`, { method: "DELETE", token: sp });
    expect(isa.status).toBe(400);
    const sub = await call(`${DSS}/subscriptions/${uuid()}`, { method: "DELETE", token: dp });
    expect(sub.status).toBe(400);
  });

  it("answers bad extents with 400 before a conflicting id", async () => {
    const id = uuid();
    const body = { extents: extents(43.3, 4.3), uss_base_url: "https://dp.example" };
    expect((await putSub(id, body)).status).toBe(200);
    expect((await putSub(id, { ...body, extents: extents(43.3, 4.3, 0.005, 25 * 60) })).status).toBe(400);
  });
});

describe("F3411-22a DSS: subscriptions", () => {
  it("bumps the notification index of subscriptions an ISA change touches and returns their subscribers", async () => {
    const subId = uuid();
    const sub = await putSub(subId, {
      extents: extents(46.5, 7.5, 0.01),
      uss_base_url: "https://dp.example/rid/v2",
    });
    expect(sub.status).toBe(200);
    expect(sub.json.subscription).toMatchObject({ id: subId, owner: "uss2", notification_index: 0 });
    expect(sub.json.service_areas).toEqual([]);
    const farId = uuid();
    await putSub(farId, { extents: extents(45.5, 6.5), uss_base_url: "https://far.example" });

    const isaId = uuid();
    const created = await putIsa(isaId, { extents: extents(46.5, 7.5), uss_base_url: "https://sp.example" });
    expect(created.json.subscribers).toEqual([
      {
        url: "https://dp.example/rid/v2",
        subscriptions: [{ subscription_id: subId, notification_index: 1 }],
      },
    ]);
    const version = created.json.service_area.version;
    const updated = await putIsa(
      isaId,
      { extents: extents(46.5, 7.5), uss_base_url: "https://sp.example" },
      sp,
      version,
    );
    expect(updated.json.subscribers[0].subscriptions[0].notification_index).toBe(2);
    const deleted = await call(
      `${DSS}/identification_service_areas/${isaId}/${updated.json.service_area.version}`,
      {
        method: "DELETE",
        token: sp,
      },
    );
    expect(deleted.json.subscribers[0].subscriptions[0]).toEqual({
      subscription_id: subId,
      notification_index: 3,
    });

    const got = await call(`${DSS}/subscriptions/${subId}`, { token: dp });
    expect(got.json.subscription.notification_index).toBe(3);
    const far = await call(`${DSS}/subscriptions/${farId}`, { token: dp });
    expect(far.json.subscription.notification_index).toBe(0);
  });

  it("answers the ISAs a new subscription covers, searches and guards by owner and version", async () => {
    const isaId = uuid();
    await putIsa(isaId, { extents: extents(45.1, 6.1), uss_base_url: "https://sp.example" });
    const subId = uuid();
    const sub = await putSub(subId, { extents: extents(45.1, 6.1), uss_base_url: "https://dp.example" });
    expect(sub.json.service_areas.map((a: { id: string }) => a.id)).toEqual([isaId]);
    const version = sub.json.subscription.version;

    const mine = await call(`${DSS}/subscriptions?area=${area(45.1, 6.1)}`, { token: dp });
    expect(mine.json.subscriptions.map((s: { id: string }) => s.id)).toEqual([subId]);
    const theirs = await call(`${DSS}/subscriptions?area=${area(45.1, 6.1)}`, { token: otherDp });
    expect(theirs.json.subscriptions).toEqual([]);
    expect((await call(`${DSS}/subscriptions/${subId}`, { token: otherDp })).status).toBe(403);

    expect(
      (await putSub(subId, { extents: extents(45.1, 6.1), uss_base_url: "https://dp.example" })).status,
    ).toBe(409);
    const stale = await putSub(
      subId,
      { extents: extents(45.1, 6.1), uss_base_url: "https://dp.example" },
      dp,
      "0000000000000001",
    );
    expect(stale.status).toBe(409);
    const malformed = await call(`${DSS}/subscriptions/${subId}/notacorrectversion`, {
      method: "DELETE",
      token: dp,
    });
    expect(malformed.status).toBe(400);
    const updated = await putSub(
      subId,
      { extents: extents(45.1, 6.1), uss_base_url: "https://dp2.example" },
      dp,
      version,
    );
    expect(updated.status).toBe(200);
    expect(updated.json.subscription.uss_base_url).toBe("https://dp2.example");
    const path = `${DSS}/subscriptions/${subId}/${updated.json.subscription.version}`;
    expect((await call(path, { method: "DELETE", token: otherDp })).status).toBe(403);
    expect((await call(path, { method: "DELETE", token: dp })).status).toBe(200);
    expect((await call(`${DSS}/subscriptions/${subId}`, { token: dp })).status).toBe(404);
    expect(
      (await putSub(uuid(), { extents: extents(45.1, 6.1), uss_base_url: "https://dp.example" }, sp)).status,
    ).toBe(403);
  });

  it("refuses subscriptions over 24 hours, too large ones, and an 11th over the same cells", async () => {
    const body = (minutes: number, half = 0.005) => ({
      extents: extents(44.1, 5.1, half, minutes),
      uss_base_url: "https://dp.example",
    });
    const long = await putSub(uuid(), body(25 * 60));
    expect(long.status).toBe(400);
    expect(long.json.message).toMatch(/24 hours/);
    expect((await putSub(uuid(), body(30, 0.5))).status).toBe(400);
    for (let i = 0; i < 10; i++) expect((await putSub(uuid(), body(30))).status).toBe(200);
    expect((await putSub(uuid(), body(30))).status).toBe(429);
    expect((await putSub(uuid(), body(30), otherDp)).status).toBe(200);
  });
});
