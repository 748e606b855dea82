import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { registerIsa, removeIsa } from "../../worker/services/ridDss";
import { F3411, requestErrors } from "./ridSchema";

/** Registration in an F3411-22a DSS (worker/services/ridDss.ts) against a stand-in DSS, authority and subscriber. */

const ISA = "0d4c5f0e-2b1a-4c3d-8e9f-001122334455";
const SUBSCRIPTION = "7a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3";

function standIn() {
  const calls: { method: string; url: string; auth: string | null; body: any }[] = [];
  const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const method = init?.method ?? "GET";
    const body =
      typeof init?.body === "string" ? JSON.parse(init.body) : init?.body ? String(init.body) : undefined;
    calls.push({ method, url, auth: new Headers(init?.headers).get("Authorization"), body });
    if (url === "https://auth.test/token") return Response.json({ access_token: "tok", expires_in: 3600 });
    const area = {
      id: ISA,
      owner: "windsock",
      version: "v1",
      uss_base_url: "https://windsock.test/rid/v2",
      time_start: { value: "2026-01-01T00:00:00Z", format: "RFC3339" },
      time_end: { value: "2026-01-01T01:00:00Z", format: "RFC3339" },
    };
    const subscribers = [
      {
        url: "https://dp.test/rid/v2",
        subscriptions: [{ subscription_id: SUBSCRIPTION, notification_index: 2 }],
      },
    ];
    if (url.startsWith("https://dss.test/")) return Response.json({ service_area: area, subscribers });
    if (url.startsWith("https://dp.test/")) return new Response(null, { status: 204 });
    return new Response("no", { status: 404 });
  }) as typeof fetch;
  return { calls, fetcher };
}

const configured = {
  ...env,
  RID_DSS_BASE_URL: "https://dss.test/rid/v2",
  RID_AUTH_TOKEN_URL: "https://auth.test/token",
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
});
