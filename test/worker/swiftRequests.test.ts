import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { flightAt } from "./flightFixtures";
import { BASE, call, createAccount, type TestAccount, tokenFor } from "./helpers";

/**
 * The Swift SDK's requests exactly as it sends them (airmap/AirMapSDK-Swift 0fbabab, Alamofire 4.9),
 * refused or misread before (issue #35 item 7), and what its mappings read from the answers.
 */

let account: TestAccount;
let pilot: { token: string; pilotId: string };
beforeAll(async () => {
  account = await createAccount("swift requests");
  pilot = await tokenFor(account, "swift-pilot");
});

/**
 * Alamofire 4.9 URLEncoding.queryString (ParameterEncoding.swift `queryComponents`): top-level keys
 * sorted, a dictionary's keys as `key[nested]`, arrays as `key[]`, each key and value escaped with
 * `[` and `]` percent-encoded.
 */
function alamofireQuery(params: Record<string, unknown>): string {
  const escaped = (s: string) =>
    encodeURIComponent(s).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  const components: [string, string][] = [];
  const add = (key: string, value: unknown) => {
    if (Array.isArray(value)) for (const item of value) add(`${key}[]`, item);
    else if (typeof value === "object" && value !== null)
      for (const [nested, item] of Object.entries(value)) add(`${key}[${nested}]`, item);
    else components.push([escaped(key), escaped(String(value))]);
  };
  for (const key of Object.keys(params).sort()) add(key, params[key]);
  return components.map(([k, v]) => `${k}=${v}`).join("&");
}

describe("Swift SDK requests", () => {
  it("FlightClient.list(within:) (FlightClient.swift 60–78) filters by the bracket-encoded polygon", async () => {
    const inside = await flightAt(account, pilot.token, { latitude: 47.37, longitude: 8.54 });
    const outside = await flightAt(account, pilot.token, { latitude: 34.015, longitude: -118.485 });
    // AirMapPolygon.params() (AirMapPolygon.swift 34–58): type and [[[lon, lat]]], the ring as given.
    const within = {
      type: "Polygon",
      coordinates: [
        [
          [8.5, 47.3],
          [8.6, 47.3],
          [8.6, 47.4],
          [8.5, 47.4],
        ],
      ],
    };
    const query = alamofireQuery({ enhance: "true", geometry: within, pilot_id: pilot.pilotId });
    expect(query).toContain("geometry%5Bcoordinates%5D%5B%5D%5B%5D%5B%5D=8.5");
    const res = await call(`/flight/v2/?${query}`, { apiKey: account.apiKey, token: pilot.token });
    expect(res.status, res.text).toBe(200);
    // keyPath "data.results" (FlightClient.swift 78): AirMapFlight reads id, latitude, longitude…
    const ids = res.json.data.results.map((f: any) => f.id);
    expect(ids).toContain(inside.id);
    expect(ids).not.toContain(outside.id);

    const point = alamofireQuery({ geometry: { type: "Point", coordinates: [-118.485, 34.015] } });
    const atPoint = await call(`/flight/v2/?${point}`, { apiKey: account.apiKey, token: pilot.token });
    expect(atPoint.status, atPoint.text).toBe(200);
    expect(atPoint.json.data.results.map((f: any) => f.id)).toEqual([outside.id]);

    const odd = await call(
      `/flight/v2/?${alamofireQuery({ geometry: { type: "Polygon", coordinates: [[[8.5]]] } })}`,
      {
        apiKey: account.apiKey,
        token: pilot.token,
      },
    );
    expect(odd.status).toBe(400);
    expect(odd.json.data.errors[0].name).toBe("geometry");
  });

  it("PilotClient.update (PilotClient.swift 49–54) sends app_metadata, even {} (AirMapPilot.swift 73–78): accepted", async () => {
    const res = await call(`/pilot/v2/${encodeURIComponent(pilot.pilotId)}`, {
      method: "PATCH",
      apiKey: account.apiKey,
      token: pilot.token,
      body: {
        first_name: "Swift",
        last_name: null,
        user_metadata: {},
        app_metadata: {},
        phone: "+13105551212",
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.first_name).toBe("Swift");
    expect(res.json.data.phone).toBe("+13105551212");
    expect(res.json.data.app_metadata).toEqual({});
  });

  it("SystemStatusClient (SystemStatusClient.swift 26–35) opens /system/v1/status/monitor as a WebSocket and reads {level, message}", async () => {
    const res = await SELF.fetch(`${BASE}/system/v1/status/monitor`, {
      headers: {
        Upgrade: "websocket",
        "X-API-Key": account.apiKey,
        "Accept-Language": "en-US",
        Authorization: `Bearer ${pilot.token}`,
      },
    });
    expect(res.status).toBe(101);
    const socket = res.webSocket!;
    const first = new Promise<string>((resolve) =>
      socket.addEventListener("message", (event) => resolve(String(event.data)), { once: true }),
    );
    socket.accept();
    // AirMapSystemStatus.swift 49–52: level (normal, maintenance, degraded, failed, unknown), message.
    const status = JSON.parse(await first);
    expect(["normal", "maintenance", "degraded", "failed", "unknown"]).toContain(status.level);
    expect(status).toHaveProperty("message");
    socket.close(1000, "done");

    const plain = await call("/system/v1/status/monitor", { apiKey: account.apiKey });
    expect(plain.status).toBe(426);
    const keyless = await SELF.fetch(`${BASE}/system/v1/status/monitor`, {
      headers: { Upgrade: "websocket" },
    });
    expect(keyless.status).toBe(401);
    await keyless.text();
  });
});
