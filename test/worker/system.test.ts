import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { overallLevel } from "../../worker/domain/systemStatus";
import type { Bindings } from "../../worker/env";
import worker from "../../worker/index";
import { BASE, call, createAccount, type TestAccount } from "./helpers";

let account: TestAccount;
beforeAll(async () => {
  account = await createAccount();
});

const LEVELS = ["degraded", "failed", "maintenance", "normal", "unknown"];
const byId = (components: any[], id: string): any => {
  for (const c of components) {
    if (c.id === id) return c;
    const inChild = byId(c.children, id);
    if (inChild) return inChild;
  }
  return undefined;
};

async function withSettings(settings: Partial<Bindings>, path: string, init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(`${BASE}${path}`, init), { ...env, ...settings }, ctx);
  await waitOnExecutionContext(ctx);
  return { status: response.status, json: (await response.json()) as any };
}

describe("GET /system/v1/status", () => {
  it("reports each part from a real check, in the Kotlin SDK's shape", async () => {
    const res = await call("/system/v1/status", { apiKey: account.apiKey });
    expect(res.status).toBe(200);
    const { level, components } = res.json.data;
    const check = (c: any) => {
      expect(Object.keys(c).sort()).toEqual(["children", "id", "level", "name", "updated_at"]);
      expect(LEVELS).toContain(c.level);
      c.children.forEach(check);
    };
    components.forEach(check);
    expect(byId(components, "database").level).toBe("normal");
    // Nothing loaded in this test database: no airspace datasets, no elevation manifest, no weather.
    expect(byId(components, "airspace_data").level).toBe("degraded");
    expect(byId(components, "elevation").level).toBe("degraded");
    expect(byId(components, "weather")).toMatchObject({
      level: "degraded",
      name: expect.stringContaining("WEATHER_PROVIDER"),
    });
    expect(byId(components, "telemetry:session_keys").level).toBe("normal");
    expect(level).toBe("degraded");
  });

  it("sees loaded airspace and elevation data, a configured provider and the relay once it calls", async () => {
    await env.DB.prepare(
      "INSERT INTO airspace_datasets (name, format, version, records, loaded_at) VALUES ('test-set', 'geojson', '1', 3, ?)",
    )
      .bind(Date.parse("2026-11-01T00:00:00Z"))
      .run();
    await env.ELEVATION.put("elevation/v1/manifest.json", JSON.stringify({ tiles: {} }));
    // A refused relay call does not count as the relay being up; an accepted post does.
    const refused = await call("/internal/v1/telemetry", {
      method: "POST",
      body: { sessions: [] },
      headers: { Authorization: "Bearer not-the-secret" },
    });
    expect(refused.status).toBe(401);
    const refusedSeen = await withSettings({}, "/system/v1/status", {
      headers: { "X-API-Key": account.apiKey },
    });
    expect(byId(refusedSeen.json.data.components, "telemetry:relay").level).toBe("unknown");
    const relay = await call("/internal/v1/telemetry", {
      method: "POST",
      body: { sessions: [] },
      headers: { Authorization: `Bearer ${env.RELAY_SECRET}` },
    });
    expect(relay.status, relay.text).toBe(200);
    const res = await withSettings(
      { WEATHER_PROVIDER: "openweathermap", WEATHER_API_KEY: "k" },
      "/system/v1/status",
      { headers: { "X-API-Key": account.apiKey } },
    );
    const { components, level } = res.json.data;
    expect(byId(components, "airspace_data")).toMatchObject({
      level: "normal",
      updated_at: "2026-11-01T00:00:00.000Z",
    });
    expect(byId(components, "airspace_data:test-set")).toEqual({
      id: "airspace_data:test-set",
      name: "test-set: 3 records from airspace:import (geojson)",
      level: "normal",
      children: [],
      updated_at: "2026-11-01T00:00:00.000Z",
    });
    // The FAA feeds wrangler.toml switches on, not synced yet in this database: unknown, not alarming.
    expect(byId(components, "airspace_data:faa_tfr")).toMatchObject({
      level: "unknown",
      name: "FAA temporary flight restrictions (tfr.faa.gov): 0 records from https://tfr.faa.gov, not synced yet",
      updated_at: null,
    });
    expect(byId(components, "elevation").level).toBe("normal");
    expect(byId(components, "elevation").updated_at).toEqual(expect.any(String));
    expect(byId(components, "weather")).toMatchObject({ level: "normal", name: "Weather (openweathermap)" });
    expect(byId(components, "telemetry:relay")).toMatchObject({
      level: "normal",
      updated_at: expect.any(String),
    });
    expect(level).toBe("normal");
    await env.ELEVATION.delete("elevation/v1/manifest.json");
  });

  it("fails the parts whose secrets are missing", async () => {
    const res = await withSettings(
      { TELEMETRY_MASTER_KEY: undefined, RELAY_SECRET: "" },
      "/system/v1/status",
      {
        headers: { "X-API-Key": account.apiKey },
      },
    );
    const { components, level } = res.json.data;
    expect(byId(components, "telemetry:session_keys").level).toBe("failed");
    expect(byId(components, "telemetry:relay_credential").level).toBe("failed");
    expect(byId(components, "telemetry").level).toBe("failed");
    expect(level).toBe("failed");
  });

  it("needs an API key", async () => {
    expect((await call("/system/v1/status")).status).toBe(401);
  });
});

describe("overallLevel", () => {
  const c = (level: any, children: any[] = []) => ({ id: "x", name: "x", level, children, updated_at: null });
  it("is the worst known level, children included; unknown only when nothing is known", () => {
    expect(overallLevel([])).toBe("unknown");
    expect(overallLevel([c("unknown")])).toBe("unknown");
    expect(overallLevel([c("unknown"), c("normal")])).toBe("normal");
    expect(overallLevel([c("normal"), c("maintenance")])).toBe("maintenance");
    expect(overallLevel([c("maintenance"), c("degraded")])).toBe("degraded");
    expect(overallLevel([c("normal", [c("failed")]), c("degraded")])).toBe("failed");
  });
});
