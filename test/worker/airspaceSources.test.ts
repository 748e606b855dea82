import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Bindings } from "../../worker/env";
import worker from "../../worker/index";
import classLayer from "../fixtures/airspace/feeds/recorded-from-docs_arcgis_class_airspace_layer.json?raw";
import classPage0 from "../fixtures/airspace/feeds/recorded-from-docs_arcgis_class_airspace_page0.geojson?raw";
import classPage1 from "../fixtures/airspace/feeds/recorded-from-docs_arcgis_class_airspace_page1.geojson?raw";
import errorPage from "../fixtures/airspace/feeds/recorded-from-docs_arcgis_error_page.json?raw";
import mapPage0 from "../fixtures/airspace/feeds/recorded-from-docs_arcgis_facility_map_page0.geojson?raw";
import mapStatistics from "../fixtures/airspace/feeds/recorded-from-docs_arcgis_facility_map_statistics.json?raw";
import detail1234 from "../fixtures/airspace/feeds/recorded-from-docs_tfr_detail_6_1234.xml?raw";
import detail2345 from "../fixtures/airspace/feeds/recorded-from-docs_tfr_detail_6_2345.xml?raw";
import tfrList from "../fixtures/airspace/feeds/recorded-from-docs_tfr_list.json?raw";
import tfrShapes from "../fixtures/airspace/feeds/recorded-from-docs_tfr_shapes.geojson?raw";
import { FEED_URLS, recordedFeeds } from "../tools/recordedFeeds";
import { BASE, call, createAccount, type TestAccount } from "./helpers";

const FIXTURES: Record<string, string> = {
  "arcgis_class_airspace_layer.json": classLayer,
  "arcgis_class_airspace_page0.geojson": classPage0,
  "arcgis_class_airspace_page1.geojson": classPage1,
  "arcgis_error_page.json": errorPage,
  "arcgis_facility_map_page0.geojson": mapPage0,
  "arcgis_facility_map_statistics.json": mapStatistics,
  "tfr_detail_6_1234.xml": detail1234,
  "tfr_detail_6_2345.xml": detail2345,
  "tfr_list.json": tfrList,
  "tfr_shapes.geojson": tfrShapes,
};
const FEEDS_BASE = "http://feeds.test";
const NOW = Date.parse("2026-11-27T02:00:00Z");

let account: TestAccount;
/**
 * The key's calls, from an address of this file's own: under the fake clock the key's liveness has
 * lapsed, so each call first counts as keyless, and the worker files share one isolate's per-address
 * buckets (a concurrent file's keyless requests at a frozen clock would empty the shared one).
 */
const keyed = () => ({ apiKey: account.apiKey, headers: { "cf-connecting-ip": "192.0.2.80" } });
beforeAll(async () => {
  account = await createAccount();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const settings = (vars: Partial<Bindings> = {}): Bindings => ({
  ...env,
  ...FEED_URLS(FEEDS_BASE),
  AIRSPACE_FEEDS: "faa_class_airspace,faa_tfr",
  AIRSPACE_SYNC_PAGE_SIZE: "2",
  ...vars,
});

async function tick(bindings: Bindings) {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ cron: "*/10 * * * *", scheduledTime: Date.now() }),
    bindings,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

async function sources(bindings: Bindings) {
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    new Request(`${BASE}/airspace/v2/sources`, { headers: { "X-API-Key": account.apiKey } }),
    bindings,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: response.status, json: (await response.json()) as any };
}

const liveCount = async (dataset: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM airspace_features WHERE dataset = ?")
    .bind(dataset)
    .first<{ n: number }>())!.n;

describe("the Cron Trigger and GET /airspace/v2/sources", () => {
  it("carries runs on across invocations within the request budget, then shows each source's freshness", async () => {
    vi.useFakeTimers({ now: NOW, toFake: ["Date"] });
    const feeds = recordedFeeds((name) => FIXTURES[name]!);
    vi.spyOn(globalThis, "fetch").mockImplementation(feeds.fetch);
    const bindings = settings({ AIRSPACE_SYNC_REQUESTS_PER_RUN: "2" });

    await tick(bindings);
    // Two requests: the TFR list and shapes; nothing is live before a run ends.
    expect(feeds.asked).toHaveLength(2);
    expect(await liveCount("faa_tfr")).toBe(0);
    for (let i = 0; i < 4; i++) {
      vi.setSystemTime(Date.now() + 10 * 60_000);
      await tick(bindings);
    }
    expect(await liveCount("faa_tfr")).toBe(2);
    expect(await liveCount("faa_class_airspace")).toBe(3);
    // The swapped-in records are indexed: the spatial reads find them.
    const point = encodeURIComponent(JSON.stringify({ type: "Point", coordinates: [-83.99, 35.8] }));
    const search = await call(`/airspace/v2/search?geometry=${point}`, keyed());
    expect(search.status, search.text).toBe(200);
    expect(search.json.data.map((r: any) => r.id)).toEqual(
      expect.arrayContaining(["faa_class_airspace:TYS-C-SFC", "faa_class_airspace:TYS-C-SHELF"]),
    );
    const asked = feeds.asked.length;
    vi.setSystemTime(Date.now() + 10 * 60_000);
    await tick(bindings);
    expect(feeds.asked).toHaveLength(asked);

    const res = await sources(bindings);
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("success");
    const byId = Object.fromEntries(res.json.data.map((s: any) => [s.id, s]));
    expect(byId.faa_class_airspace).toMatchObject({
      kind: "feed",
      origin: `${FEEDS_BASE}/arcgis/Class_Airspace/FeatureServer/0`,
      version: "edited:1778716800000",
      cycle: "every 1 d",
      records: 3,
      last_error: null,
      enabled: true,
      level: "normal",
      skipped: [{ reason: "no polygon geometry", count: 1, examples: ["104 (BROKEN CLASS D)"] }],
    });
    expect(byId.faa_tfr).toMatchObject({ records: 2, cycle: "every 1 h", level: "normal" });
    // Switched off and never loaded: not listed.
    expect(byId.faa_uas_facility_map).toBeUndefined();

    // Past a TFR's cycle with the feed failing: degraded, the error names the URL, the data stays.
    vi.spyOn(globalThis, "fetch").mockImplementation(
      async () => new Response("<html>502</html>", { status: 502 }),
    );
    vi.setSystemTime(NOW + 3 * 3_600_000);
    await tick(bindings);
    const later = Object.fromEntries((await sources(bindings)).json.data.map((s: any) => [s.id, s]));
    expect(later.faa_tfr).toMatchObject({
      level: "degraded",
      last_error: `answered HTTP 502 (${FEEDS_BASE}/tfr/tfrapi/getTfrList)`,
    });
    // The Knoxville TFR ended at 03:00 and is gone by its own time; the San Francisco one stays.
    expect(later.faa_tfr.records).toBe(1);
    const tfr = await call("/airspace/v2/faa_tfr:6/1234-1-FDC-F", keyed());
    expect(tfr.status).toBe(404);
    expect(later.faa_class_airspace.level).toBe("normal");

    const ctx = createExecutionContext();
    const status = await worker.fetch(
      new Request(`${BASE}/system/v1/status`, { headers: { "X-API-Key": account.apiKey } }),
      bindings,
      ctx,
    );
    const components = ((await status.json()) as any).data.components;
    const airspace = components.find((c: any) => c.id === "airspace_data");
    const tfrComponent = airspace.children.find((c: any) => c.id === "airspace_data:faa_tfr");
    expect(tfrComponent.level).toBe("degraded");
    expect(tfrComponent.name).toContain("last error: answered HTTP 502");
  });

  it("lists loaded datasets with their origin and cycle; a dataset past its cycle is degraded", async () => {
    await env.DB.prepare(
      `INSERT INTO airspace_datasets (name, format, version, records, loaded_at, origin, valid_until)
       VALUES ('faa-nasr', 'faa-class-primitives', '2026-05-14', 1286, ?, 'FAA NASR cycle 2026-05-14', ?)`,
    )
      .bind(Date.parse("2026-11-01T00:00:00Z"), Date.parse("2026-07-09T00:00:00Z"))
      .run();
    // A new key: the first test's clock ran ahead, which the isolate's rate-limit bucket remembers.
    account = await createAccount();
    const res = await sources(settings({ AIRSPACE_FEEDS: "none" }));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const nasr = res.json.data.find((s: any) => s.id === "faa-nasr");
    expect(nasr).toMatchObject({
      kind: "dataset",
      origin: "FAA NASR cycle 2026-05-14",
      records: 1286,
      valid_until: "2026-07-09T00:00:00.000Z",
      level: "degraded",
    });
  });

  it("needs an API key", async () => {
    expect((await call("/airspace/v2/sources")).status).toBe(401);
  });
});
