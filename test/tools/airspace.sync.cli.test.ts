import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEED_URLS, type RecordedFeeds, recordedFeeds } from "./recordedFeeds";
import { runTool } from "./runTool";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FIXTURES = path.join(ROOT, "test/fixtures/airspace/feeds");
const stateDir = mkdtempSync(path.join(os.tmpdir(), "windsock-airspace-sync-"));

let feeds: RecordedFeeds;
let server: Server;
let base: string;

beforeAll(async () => {
  feeds = recordedFeeds((name) => readFileSync(path.join(FIXTURES, `recorded-from-docs_${name}`), "utf8"));
  server = createServer((request, response) => {
    const { status, body } = feeds.answer(new URL(request.url ?? "/", base));
    response.writeHead(status, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  rmSync(stateDir, { recursive: true, force: true });
});

function sync(vars: Record<string, string>, ...args: string[]) {
  const env = {
    ...process.env,
    STATE_DIR: stateDir,
    ...FEED_URLS(base),
    AIRSPACE_SYNC_PAGE_SIZE: "2",
    ...vars,
  };
  return runTool("tools/airspace/sync.ts", args, { env });
}

describe("npm run airspace:sync", () => {
  it("explains itself, and refuses an unknown feed before loading anything", async () => {
    const help = await sync({}, "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("faa_national_security_uas");
    const bad = await sync({}, "--source", "faa_bogus");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown feed "faa_bogus"');
  });

  it("syncs into the local state with progress and a per-feed summary; a failing feed exits 1, naming its URL", async () => {
    const ok = await sync({}, "--source", "faa_class_airspace", "--source", "faa_tfr");
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("[airspace:sync] faa_class_airspace: 2 records read");
    expect(ok.stdout).toMatch(/faa_class_airspace\s+updated, 3 records \(3 requests\)/);
    expect(ok.stdout).toContain("skipped 1: no polygon geometry (e.g. 104 (BROKEN CLASS D))");
    expect(ok.stdout).toMatch(/faa_tfr\s+updated, 2 records \(4 requests\)/);

    // The Special Use Airspace layer is not among the recorded answers: ArcGIS's error page.
    const failed = await sync({}, "--source", "faa_special_use_airspace", "--source", "faa_class_airspace");
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/faa_class_airspace\s+unchanged/);
    expect(failed.stdout).toContain(
      `faa_special_use_airspace    FAILED, loaded data kept: ArcGIS error 400 "Cannot perform query. Invalid query parameters."`,
    );
    expect(failed.stdout).toContain(`${base}/arcgis/Special_Use_Airspace/FeatureServer/0?f=json`);
    expect(failed.stderr).toContain("error: faa_special_use_airspace failed");
  }, 180_000);
});
