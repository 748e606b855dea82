import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cronWarningLines, isOidcDevelopmentNotice, startLog } from "../../tools/lib/startLog";

/** A quiet start (issue 38): what a user cannot act on goes to $STATE_DIR/start.log. */

describe("the start log", () => {
  it("takes wrangler's cron warning block as wrangler prints it, and nothing around it", () => {
    // wrangler 4's output, colors and all.
    const lines = [
      "\u001b[33m▲ \u001b[43;33m[\u001b[43;30mWARNING\u001b[43;33m]\u001b[0m \u001b[1mScheduled Workers are not automatically triggered during local development.\u001b[0m",
      "",
      "  To manually trigger a scheduled event, run:",
      '    curl "http://127.0.0.1:8870/cdn-cgi/local/scheduled"',
      "  For more details, see \u001b[4mhttps://developers.cloudflare.com/workers/configuration/cron-triggers/#test-cron-triggers-locally\u001b[0m",
      "[wrangler:info] Ready on http://127.0.0.1:8870",
    ];
    const quiet = cronWarningLines();
    expect(lines.map(quiet)).toEqual([true, true, true, true, true, false]);
  });

  it("knows oidc-provider's development notices, and appends to $STATE_DIR/start.log", () => {
    expect(
      isOidcDevelopmentNotice(
        "oidc-provider WARNING: a quick start development-only in-memory adapter is used, you MUST change it",
      ),
    ).toBe(true);
    expect(isOidcDevelopmentNotice("[start] worker exited")).toBe(false);
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), "windsock-log-")), "state");
    const log = startLog(dir);
    log.write("first");
    log.write("second\n");
    expect(log.file).toBe(path.join(dir, "start.log"));
    expect(readFileSync(log.file, "utf8")).toMatch(/^\S+Z first\n\S+Z second\n$/);
  });
});
