import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DssUnavailable, deleteIsa, registerIsa, removeIsa } from "../../worker/services/ridDss";
import { DSS_BASE, SUBSCRIPTION, standInDss as standIn, TOKEN_URL } from "./dssStandIn";
import { F3411, requestErrors } from "./ridSchema";

/** Registration in an F3411-22a DSS (worker/services/ridDss.ts) against a stand-in DSS, authority and subscriber. */

const ISA = "0d4c5f0e-2b1a-4c3d-8e9f-001122334455";

const configured = {
  ...env,
  RID_DSS_BASE_URL: DSS_BASE,
  RID_AUTH_TOKEN_URL: TOKEN_URL,
} as typeof env;

describe("DSS registration", () => {
  it("registers nothing without a DSS", async () => {
    const { calls, fetcher } = standIn();
    expect(
      await registerIsa(env, ISA, [{ lat: 1, lng: 2, alt: 3 }], 0, 1000, "https://w/rid/v2", fetcher),
    ).toBeNull();
    expect(calls).toEqual([]);
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
