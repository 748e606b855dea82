import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ridDssOf } from "../../worker/dss/ridDss";
import {
  DssUnavailable,
  deleteIsa,
  OWN_ISA_OWNER,
  registerIsa,
  removeIsa,
} from "../../worker/services/ridDss";
import { DP_BASE, DSS_BASE, SUBSCRIPTION, standInDss as standIn, TOKEN_URL } from "./dssStandIn";
import { F3411, requestErrors } from "./ridSchema";

/**
 * Registration in an F3411-22a DSS (worker/services/ridDss.ts): this service's own by default (the
 * real RidDss object), or another one, here a stand-in DSS, authority and subscriber.
 */

const ISA = "0d4c5f0e-2b1a-4c3d-8e9f-001122334455";

const configured = {
  ...env,
  RID_DSS_BASE_URL: DSS_BASE,
  USS_AUTH_TOKEN_URL: TOKEN_URL,
} as typeof env;

describe("DSS registration", () => {
  it("registers nothing when RID_DSS_BASE_URL is none", async () => {
    const { calls, fetcher } = standIn();
    const none = { ...env, RID_DSS_BASE_URL: "none" } as typeof env;
    expect(
      await registerIsa(none, ISA, [{ lat: 1, lng: 2, alt: 3 }], 0, 1000, "https://w/rid/v2", fetcher),
    ).toBeNull();
    expect(calls).toEqual([]);
  });

  it("registers in this service's own DSS by default, notifies the subscribers it names, and deletes there", async () => {
    const { calls, fetcher } = standIn();
    const own = { ...env, USS_AUTH_TOKEN_URL: TOKEN_URL } as typeof env;
    const dss = ridDssOf(env);
    const now = Date.now();
    const square = (lat: number, lng: number, d: number) => [
      { lat: lat - d, lng: lng - d },
      { lat: lat - d, lng: lng + d },
      { lat: lat + d, lng: lng + d },
      { lat: lat + d, lng: lng - d },
    ];
    const subscription = crypto.randomUUID();
    const subscribed = await dss.putSubscription("a-display-provider", subscription, undefined, {
      extents: {
        volume: { outline_polygon: { vertices: square(46.5, 6.6, 0.05) } },
        time_start: { value: new Date(now).toISOString() },
        time_end: { value: new Date(now + 3600_000).toISOString() },
      },
      uss_base_url: DP_BASE,
    });
    expect(subscribed.ok).toBe(true);

    const id = crypto.randomUUID();
    const isa = await registerIsa(
      own,
      id,
      [{ lat: 46.5, lng: 6.6, alt: 500 }],
      now,
      now + 120_000,
      "https://windsock.test/rid/v2",
      fetcher,
    );
    expect(isa?.version).toMatch(/^[0-9a-f]{16}$/);
    const kept = await dss.getIsa(id);
    expect(kept).toMatchObject({
      ok: true,
      value: {
        service_area: {
          owner: OWN_ISA_OWNER,
          uss_base_url: "https://windsock.test/rid/v2",
          version: isa!.version,
        },
      },
    });
    // No other DSS was asked; the subscriber was told, with a token for its own host.
    expect(calls.filter((c) => c.url.startsWith(DSS_BASE))).toEqual([]);
    expect(calls.find((c) => c.url === TOKEN_URL)!.body).toContain("intended_audience=dp.test");
    const notified = calls.filter((c) => c.url.startsWith(DP_BASE));
    expect(notified.map((c) => c.url)).toEqual([`${DP_BASE}/uss/identification_service_areas/${id}`]);
    expect(notified[0]!.body.subscriptions).toEqual([
      { subscription_id: subscription, notification_index: 1 },
    ]);
    expect(requestErrors(F3411, "/uss/identification_service_areas/{id}", "post", notified[0]!.body)).toEqual(
      [],
    );

    calls.length = 0;
    await deleteIsa(own, isa!, fetcher);
    expect(await dss.getIsa(id)).toMatchObject({ ok: false, status: 404 });
    const deletion = calls.filter((c) => c.url.startsWith(DP_BASE));
    expect(deletion).toHaveLength(1);
    expect(deletion[0]!.body.service_area).toBeUndefined();
    expect(deletion[0]!.body.subscriptions).toEqual([
      { subscription_id: subscription, notification_index: 2 },
    ]);
    // Deleting again: the DSS no longer has it, which counts as deleted.
    await expect(deleteIsa(own, isa!, fetcher)).resolves.toBeUndefined();
  });

  it("reports the own DSS's refusal with its status (a stale version is 409)", async () => {
    const now = Date.now();
    const id = crypto.randomUUID();
    const { fetcher } = standIn();
    const isa = await registerIsa(
      env,
      id,
      [{ lat: 46.6, lng: 6.7, alt: 500 }],
      now,
      now + 60_000,
      "https://w/rid/v2",
      fetcher,
    );
    const stale = await deleteIsa(env, { id, version: "0000000000000001" }, fetcher).catch((e) => e);
    expect(stale).toBeInstanceOf(DssUnavailable);
    expect(stale.status).toBe(409);
    await deleteIsa(env, isa!, fetcher);
  });

  it("creates the ISA with a token for the DSS, notifies its subscribers, and deletes it at its version", async () => {
    const { calls, fetcher } = standIn();
    const start = Date.parse("2026-01-01T00:00:00Z");
    const isa = await registerIsa(
      configured,
      ISA,
      [
        { lat: 47.37, lng: 8.54, alt: 500 },
        { lat: 47.38, lng: 8.55, alt: 520 },
      ],
      start,
      start + 120_000,
      "https://windsock.test/rid/v2",
      fetcher,
    );
    expect(isa).toEqual({ id: ISA, version: "v1" });
    const token = calls.find((c) => c.url === "https://auth.test/token")!;
    expect(token.body).toContain("scope=rid.service_provider");
    expect(token.body).toContain("intended_audience=dss.test");
    const put = calls.find((c) => c.method === "PUT")!;
    expect(put.url).toBe(`https://dss.test/rid/v2/dss/identification_service_areas/${ISA}`);
    expect(put.auth).toBe("Bearer tok");
    expect(put.body.uss_base_url).toBe("https://windsock.test/rid/v2");
    expect(put.body.extents.time_end.value).toBe("2026-01-01T00:03:00.000Z");
    const vertices = put.body.extents.volume.outline_polygon.vertices;
    expect(Math.min(...vertices.map((v: { lat: number }) => v.lat))).toBeLessThan(47.37);
    const notified = calls.find((c) => c.url.startsWith("https://dp.test/"))!;
    expect(notified.url).toBe(`https://dp.test/rid/v2/uss/identification_service_areas/${ISA}`);
    expect(requestErrors(F3411, "/uss/identification_service_areas/{id}", "post", notified.body)).toEqual([]);
    expect(notified.body.subscriptions).toEqual([{ subscription_id: SUBSCRIPTION, notification_index: 2 }]);

    calls.length = 0;
    await removeIsa(configured, isa!, fetcher);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      `DELETE https://dss.test/rid/v2/dss/identification_service_areas/${ISA}/v1`,
      `POST https://dp.test/rid/v2/uss/identification_service_areas/${ISA}`,
    ]);
    const deletion = calls[1]!.body;
    expect(deletion.service_area).toBeUndefined();
    expect(requestErrors(F3411, "/uss/identification_service_areas/{id}", "post", deletion)).toEqual([]);
  });

  it("counts an ISA the DSS no longer has as deleted, and reports a DSS that is down", async () => {
    const dss = standIn();
    await deleteIsa(configured, { id: ISA, version: "v1" }, dss.fetcher);
    expect(dss.calls.filter((c) => c.url.startsWith("https://dp.test/"))).toEqual([]);
    dss.state.down = true;
    const failure = await deleteIsa(configured, { id: ISA, version: "v1" }, dss.fetcher).catch((e) => e);
    expect(failure).toBeInstanceOf(DssUnavailable);
    expect(failure.status).toBe(503);
    // removeIsa (injected tests) logs it instead.
    await expect(removeIsa(configured, { id: ISA, version: "v1" }, dss.fetcher)).resolves.toBeUndefined();
  });
});
