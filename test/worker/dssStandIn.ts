/**
 * A stand-in for an F3411-22a DSS's ISA endpoints, its OAuth authority and one subscribing display
 * provider: keeps ISAs by id with versions (409 on a wrong one, 404 for an unknown one), records
 * every request, and can be taken down (503) and brought back.
 */

export const SUBSCRIPTION = "7a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3";
export const DSS_BASE = "https://dss.test/rid/v2";
export const TOKEN_URL = "https://auth.test/token";
export const DP_BASE = "https://dp.test/rid/v2";

export interface DssCall {
  method: string;
  url: string;
  auth: string | null;
  body: any;
}

export interface StoredIsa {
  version: number;
  extents: any;
  uss_base_url: string;
}

export function standInDss() {
  const calls: DssCall[] = [];
  const isas = new Map<string, StoredIsa>();
  const state = { down: false };
  const areaOf = (id: string, isa: StoredIsa) => ({
    id,
    owner: "windsock",
    version: `v${isa.version}`,
    uss_base_url: isa.uss_base_url,
    time_start: isa.extents?.time_start ?? { value: "2026-01-01T00:00:00Z", format: "RFC3339" },
    time_end: isa.extents?.time_end ?? { value: "2026-01-01T01:00:00Z", format: "RFC3339" },
  });
  const subscribers = [
    { url: DP_BASE, subscriptions: [{ subscription_id: SUBSCRIPTION, notification_index: 2 }] },
  ];
  const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const method = init?.method ?? "GET";
    const body =
      typeof init?.body === "string" && init.body.startsWith("{")
        ? JSON.parse(init.body)
        : init?.body
          ? String(init.body)
          : undefined;
    calls.push({ method, url, auth: new Headers(init?.headers).get("Authorization"), body });
    if (url === TOKEN_URL) return Response.json({ access_token: "tok", expires_in: 3600 });
    if (url.startsWith(`${DSS_BASE}/`)) {
      if (state.down) return Response.json({ message: "down" }, { status: 503 });
      const match = url
        .slice(DSS_BASE.length)
        .match(/^\/dss\/identification_service_areas\/([^/]+)(?:\/([^/]+))?$/);
      if (!match) return Response.json({ message: "no such path" }, { status: 404 });
      const [, id, version] = match as unknown as [string, string, string | undefined];
      const isa = isas.get(id);
      if (method === "GET")
        return isa
          ? Response.json({ service_area: areaOf(id, isa) })
          : Response.json({ message: "not found" }, { status: 404 });
      if (method === "PUT" && version === undefined) {
        if (isa) return Response.json({ message: "exists" }, { status: 409 });
        const made = { version: 1, extents: body.extents, uss_base_url: body.uss_base_url };
        isas.set(id, made);
        return Response.json({ service_area: areaOf(id, made), subscribers });
      }
      if (!isa) return Response.json({ message: "not found" }, { status: 404 });
      if (version !== `v${isa.version}`) return Response.json({ message: "version" }, { status: 409 });
      if (method === "PUT") {
        const updated = { version: isa.version + 1, extents: body.extents, uss_base_url: body.uss_base_url };
        isas.set(id, updated);
        return Response.json({ service_area: areaOf(id, updated), subscribers });
      }
      if (method === "DELETE") {
        isas.delete(id);
        return Response.json({ service_area: areaOf(id, isa), subscribers });
      }
      return Response.json({ message: "method" }, { status: 405 });
    }
    if (url.startsWith(`${DP_BASE}/`)) return new Response(null, { status: 204 });
    return new Response("no", { status: 404 });
  }) as typeof fetch;
  return { calls, isas, state, fetcher };
}
