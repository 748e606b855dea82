import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { syncSettings } from "../../worker/domain/airspace/feeds/sources";
import { type SyncContext, syncFeeds } from "../../worker/services/airspaceSync";
import { FEED_URLS, type RecordedFeeds, recordedFeeds } from "./recordedFeeds";
import { SqliteTarget } from "./sqliteTarget";

const BASE = "http://feeds.test";
const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/airspace/feeds");
const readFixture = (name: string) => readFileSync(path.join(FIXTURES, `recorded-from-docs_${name}`), "utf8");
const NOW = Date.parse("2026-11-27T02:00:00Z");
const HOUR = 3_600_000;

let db: SqliteTarget;
let feeds: RecordedFeeds;
let now: number;
let lines: string[];

beforeEach(async () => {
  db = await SqliteTarget.open();
  feeds = recordedFeeds(readFixture);
  now = NOW;
  lines = [];
});
afterEach(() => db.close());

function context(only: string, vars: Record<string, string> = {}): SyncContext {
  const settings = syncSettings({
    ...FEED_URLS(BASE),
    AIRSPACE_FEEDS: only,
    AIRSPACE_SYNC_PAGE_SIZE: "2",
    ...vars,
  });
  if ("error" in settings) throw new Error(settings.error);
  return { sql: db, fetch: feeds.fetch, settings, now: () => now, log: (m) => lines.push(m) };
}

const rows = <T>(sql: string, params: unknown[] = []) => db.query<T>(sql, params);
const liveIds = async (dataset: string) =>
  (
    await rows<{ external_id: string }>(
      "SELECT external_id FROM airspace_features WHERE dataset = ? ORDER BY 1",
      [dataset],
    )
  ).map((r) => r.external_id);
const stagedRows = async () =>
  (await rows<{ n: number }>("SELECT COUNT(*) AS n FROM airspace_feed_staged_features"))[0]!.n +
  (await rows<{ n: number }>("SELECT COUNT(*) AS n FROM airspace_feed_staged_map_cells"))[0]!.n;
const state = async (name: string) =>
  (await rows<Record<string, unknown>>("SELECT * FROM airspace_feed_state WHERE name = ?", [name]))[0]!;

const CLASS_IDS = [
  "faa_class_airspace:SFO-B-A",
  "faa_class_airspace:TYS-C-SFC",
  "faa_class_airspace:TYS-C-SHELF",
];

describe("ArcGIS feeds (Class Airspace, recorded-from-docs pages)", () => {
  it("pages across exceededTransferLimit, swaps the whole version in, names the record it skipped", async () => {
    const [outcome] = await syncFeeds(context("faa_class_airspace"), { force: true });
    expect(outcome).toMatchObject({
      feed: "faa_class_airspace",
      outcome: "updated",
      records: 3,
      requests: 3,
    });
    expect(outcome!.skipped).toEqual([
      { reason: "no polygon geometry", count: 1, examples: ["104 (BROKEN CLASS D)"] },
    ]);
    const pages = feeds.asked.filter((u) => u.includes("/query")).map((u) => new URL(u).searchParams);
    expect(pages.map((p) => [p.get("resultOffset"), p.get("resultRecordCount"), p.get("f")])).toEqual([
      ["0", "2", "geojson"],
      ["2", "2", "geojson"],
    ]);
    expect(await liveIds("faa_class_airspace")).toEqual(CLASS_IDS);
    const [tys] = await rows<{
      properties: string;
      floor_m: number;
      floor_code: string;
      floor_agl_m: number | null;
      name: string;
    }>("SELECT * FROM airspace_features WHERE external_id = 'faa_class_airspace:TYS-C-SFC'");
    expect(JSON.parse(tys!.properties)).toMatchObject({ airspace_classification: "C", source: "faa" });
    // Its floor as a height above the ground too, as a dataset's load writes it: the surface is 0.
    expect(tys!.floor_agl_m).toBe(0);
    // Every live record is indexed: the spatial reads find it.
    const [unindexed] = await rows<{ n: number }>(
      `SELECT COUNT(*) AS n FROM airspace_features f WHERE dataset = 'faa_class_airspace'
       AND NOT EXISTS (SELECT 1 FROM airspace_feature_cells c WHERE c.feature_id = f.id)`,
    );
    expect(unindexed!.n).toBe(0);
    expect(await stagedRows()).toBe(0);
    const [note] = await rows<Record<string, unknown>>(
      "SELECT * FROM airspace_datasets WHERE name = 'faa_class_airspace'",
    );
    expect(note).toMatchObject({
      records: 3,
      version: "edited:1778716800000",
      origin: `${BASE}/arcgis/Class_Airspace/FeatureServer/0`,
    });
    expect(JSON.parse((await state("faa_class_airspace")).skipped as string)[0].count).toBe(1);
  });

  it("asks only whether the layer changed when its edit date is the loaded one", async () => {
    await syncFeeds(context("faa_class_airspace"), { force: true });
    feeds.asked.length = 0;
    now += 25 * HOUR;
    const [outcome] = await syncFeeds(context("faa_class_airspace"));
    expect(outcome).toMatchObject({ outcome: "unchanged", requests: 1 });
    expect(feeds.asked).toEqual([`${BASE}/arcgis/Class_Airspace/FeatureServer/0?f=json`]);
    expect((await state("faa_class_airspace")).last_success_at).toBe(now);
  });

  it("an error page mid-run (HTTP 200 with error) drops the partial version and keeps the loaded one", async () => {
    await syncFeeds(context("faa_class_airspace"), { force: true });
    const layer = JSON.parse(readFixture("arcgis_class_airspace_layer.json"));
    layer.editingInfo.lastEditDate = layer.editingInfo.dataLastEditDate = 1782000000000;
    feeds.override.set("/arcgis/Class_Airspace/FeatureServer/0", {
      status: 200,
      body: JSON.stringify(layer),
    });
    feeds.override.set("/arcgis/Class_Airspace/FeatureServer/0/query@2", {
      status: 200,
      body: readFixture("arcgis_error_page.json"),
    });
    now += 25 * HOUR;
    const [outcome] = await syncFeeds(context("faa_class_airspace"));
    expect(outcome!.outcome).toBe("failed");
    expect(outcome!.error).toContain('ArcGIS error 400 "Cannot perform query. Invalid query parameters."');
    expect(outcome!.error).toContain(`${BASE}/arcgis/Class_Airspace/FeatureServer/0/query?`);
    expect(outcome!.error).toContain("resultOffset=2");
    expect(await liveIds("faa_class_airspace")).toEqual(CLASS_IDS);
    expect(await stagedRows()).toBe(0);
    const s = await state("faa_class_airspace");
    expect(s).toMatchObject({ version: "edited:1778716800000", run_cursor: null, last_error_at: now });
    expect(s.last_error).toContain("Cannot perform query");
  });

  it("carries a run on across invocations when the request budget runs out, reads seeing the old version until the swap", async () => {
    await syncFeeds(context("faa_class_airspace"), { force: true });
    feeds.override.set("/arcgis/Class_Airspace/FeatureServer/0/query@2", {
      status: 200,
      body: JSON.stringify({ type: "FeatureCollection", features: [] }),
    });
    const oneRequest = context("faa_class_airspace", { AIRSPACE_SYNC_REQUESTS_PER_RUN: "1" });
    const outcomes = [];
    outcomes.push((await syncFeeds(oneRequest, { force: true }))[0]!.outcome);
    expect(await liveIds("faa_class_airspace")).toEqual(CLASS_IDS);
    for (let i = 0; i < 2; i++) {
      now += 10 * 60_000;
      outcomes.push((await syncFeeds(oneRequest))[0]!.outcome);
      if (i === 0) {
        expect(await liveIds("faa_class_airspace")).toEqual(CLASS_IDS);
        expect(await stagedRows()).toBe(2);
      }
    }
    expect(outcomes).toEqual(["continuing", "continuing", "updated"]);
    // The second page is empty now: SFO's record left the layer, and the swap took it away.
    expect(await liveIds("faa_class_airspace")).toEqual(CLASS_IDS.slice(1));
  });

  it("a due feed that finds the requests used up waits for the next invocation", async () => {
    const oneRequest = context("faa_class_airspace,faa_uas_facility_map", {
      AIRSPACE_SYNC_REQUESTS_PER_RUN: "1",
    });
    const outcomes = await syncFeeds(oneRequest);
    expect(outcomes.map((o) => [o.feed, o.outcome, o.requests])).toEqual([
      ["faa_uas_facility_map", "continuing", 1],
      ["faa_class_airspace", "waiting", 0],
    ]);
    const later = await syncFeeds(oneRequest, { only: ["faa_class_airspace"] });
    expect(later.map((o) => [o.feed, o.outcome])).toEqual([["faa_class_airspace", "continuing"]]);
  });

  it("offline: names the feed and URL, keeps the data, and tries again only after an hour", async () => {
    await syncFeeds(context("faa_class_airspace"), { force: true });
    const offline: SyncContext = {
      ...context("faa_class_airspace"),
      fetch: async () => {
        throw new TypeError("fetch failed");
      },
    };
    now += 25 * HOUR;
    const [outcome] = await syncFeeds(offline);
    expect(outcome).toMatchObject({ outcome: "failed" });
    expect(outcome!.error).toBe(
      `unreachable: fetch failed (${BASE}/arcgis/Class_Airspace/FeatureServer/0?f=json)`,
    );
    expect(await liveIds("faa_class_airspace")).toEqual(CLASS_IDS);
    now += 30 * 60_000;
    expect((await syncFeeds(offline))[0]!.outcome).toBe("not due");
    now += 31 * 60_000;
    expect((await syncFeeds(offline))[0]!.outcome).toBe("failed");
  });

  it("refuses a version with no usable record rather than emptying the source", async () => {
    await syncFeeds(context("faa_class_airspace"), { force: true });
    feeds.override.set("/arcgis/Class_Airspace/FeatureServer/0/query@0", {
      status: 200,
      body: JSON.stringify({ type: "FeatureCollection", features: [] }),
    });
    const [outcome] = await syncFeeds(context("faa_class_airspace"), { force: true });
    expect(outcome!.outcome).toBe("failed");
    expect(outcome!.error).toContain("refusing to empty the source");
    expect(await liveIds("faa_class_airspace")).toEqual(CLASS_IDS);
  });
});

describe("UAS Facility Map feed: incremental by LAST_EDIT", () => {
  it("loads the cells, skips and names the one that is no grid cell, then fetches again only when LAST_EDIT moves", async () => {
    const [first] = await syncFeeds(context("faa_uas_facility_map"), { force: true });
    expect(first).toMatchObject({ outcome: "updated", records: 2 });
    expect(first!.skipped).toEqual([
      { reason: "not a 30″ grid cell polygon", count: 1, examples: ["3 (MC GHEE TYSON)"] },
    ]);
    const cells = await rows<{ ceiling_ft: number; airport_id: string; dataset: string }>(
      `SELECT c.ceiling_ft, m.airport_id, m.dataset FROM facility_map_cells c JOIN facility_maps m ON m.id = c.facility_map_id
       ORDER BY c.ceiling_ft`,
    );
    expect(cells).toEqual([
      { ceiling_ft: 0, airport_id: "TYS", dataset: "faa_uas_facility_map" },
      { ceiling_ft: 100, airport_id: "TYS", dataset: "faa_uas_facility_map" },
    ]);
    expect((await state("faa_uas_facility_map")).version).toBe("3:1778716800000");

    now += 25 * HOUR;
    feeds.asked.length = 0;
    expect((await syncFeeds(context("faa_uas_facility_map")))[0]!.outcome).toBe("unchanged");
    expect(feeds.asked).toHaveLength(1);
    expect(new URL(feeds.asked[0]!).searchParams.get("outStatistics")).toContain(
      '"onStatisticField":"LAST_EDIT"',
    );

    now += 25 * HOUR;
    feeds.override.set("/arcgis/FAA_UAS_FacilityMap_Data/FeatureServer/0/query@null", {
      status: 200,
      body: JSON.stringify({ features: [{ attributes: { record_count: 3, last_edit: 1782000000000 } }] }),
    });
    expect((await syncFeeds(context("faa_uas_facility_map")))[0]!.outcome).toBe("updated");
    expect((await state("faa_uas_facility_map")).version).toBe("3:1782000000000");
  });
});

describe("TFR feed (list, WFS shapes, XNOTAM details)", () => {
  it("stages listed TFRs with their detail's times; names shapes not listed and listed TFRs without a shape", async () => {
    const [outcome] = await syncFeeds(context("faa_tfr"), { force: true });
    expect(outcome).toMatchObject({ outcome: "updated", records: 2, requests: 4 });
    expect(outcome!.skipped).toEqual([
      { reason: "shape of a TFR not on the list (cancelled or expired)", count: 1, examples: ["5/9999"] },
      { reason: "on the TFR list without a shape in TFR:V_TFR_LOC", count: 1, examples: ["6/3456"] },
    ]);
    const tfrs = await rows<{ external_id: string; effective_start: number; effective_end: number }>(
      "SELECT external_id, effective_start, effective_end FROM airspace_features WHERE dataset = 'faa_tfr' ORDER BY 1",
    );
    expect(tfrs).toEqual([
      {
        external_id: "faa_tfr:6/1234-1-FDC-F",
        effective_start: Date.parse("2026-11-26T12:00:00Z"),
        effective_end: Date.parse("2026-11-27T03:00:00Z"),
      },
      {
        external_id: "faa_tfr:6/2345-1-FDC-F",
        effective_start: Date.parse("2026-11-27T00:00:00Z"),
        effective_end: Date.parse("2026-11-30T23:59:00Z"),
      },
    ]);
  });

  it("expires a TFR by its own end time while the feed cannot be reached", async () => {
    await syncFeeds(context("faa_tfr"), { force: true });
    const offline: SyncContext = {
      ...context("faa_tfr"),
      fetch: async () => {
        throw new TypeError("getaddrinfo ENOTFOUND tfr.faa.gov");
      },
    };
    now = Date.parse("2026-11-27T03:30:00Z");
    const [outcome] = await syncFeeds(offline);
    expect(outcome!.outcome).toBe("failed");
    expect(outcome!.error).toContain(`${BASE}/tfr/tfrapi/getTfrList`);
    expect(await liveIds("faa_tfr")).toEqual(["faa_tfr:6/2345-1-FDC-F"]);
    const [note] = await rows<{ records: number }>(
      "SELECT records FROM airspace_datasets WHERE name = 'faa_tfr'",
    );
    expect(note!.records).toBe(1);
    const [cells] = await rows<{ n: number }>(
      "SELECT COUNT(*) AS n FROM airspace_feature_cells WHERE feature_id NOT IN (SELECT id FROM airspace_features)",
    );
    expect(cells!.n).toBe(0);
  });
});

describe("settings", () => {
  it("switches feeds off and refuses unknown names and bad URLs by their var", () => {
    expect(syncSettings({ AIRSPACE_FEEDS: "none" })).toMatchObject({ feeds: [] });
    expect(syncSettings({ AIRSPACE_FEEDS: "faa_tfr,faa_bogus" })).toEqual({
      error: expect.stringContaining("AIRSPACE_FEEDS names unknown feeds (faa_bogus)"),
    });
    expect(syncSettings({ AIRSPACE_FEED_URL_FAA_TFR: "ftp://x" })).toEqual({
      error: 'AIRSPACE_FEED_URL_FAA_TFR must be an http(s) URL, not "ftp://x"',
    });
    const all = syncSettings({});
    expect("feeds" in all && all.feeds.map((f) => f.url)).toContain("https://tfr.faa.gov");
  });
});
