import { FEED_NAMES, FEEDS, syncSettings } from "../../worker/domain/airspace/feeds/sources";
import { fail, parseCommandLine, runCommand, usageError } from "../lib/cli";

const HELP = `Fetches current airspace from the FAA's public feeds into the local state (or with --remote the
deployed D1 database): the same sync the worker's Cron Trigger runs, to its end in one go.

Usage: npm run airspace:sync -- [options]

Feeds (each one dataset, named as the feed):
${FEEDS.map((f) => `  ${f.name.padEnd(27)} ${f.title}`).join("\n")}

Options:
  --source <feed>   only this feed (repeat for several); default every feed in AIRSPACE_FEEDS
  --full            fetch every layer in full, even one whose edit date says it has not changed
  --local           write to the local state that npm start serves (the default)
  --remote          write to the deployed database (run the D1 migrations there first)
  --help            this text

Settings come from the environment, as the worker's come from wrangler.toml [vars]:
  AIRSPACE_FEEDS                     the feeds that run (comma list, or none)
  AIRSPACE_FEED_URL_<FEED>           a feed's base URL, e.g. AIRSPACE_FEED_URL_FAA_TFR
  AIRSPACE_SYNC_PAGE_SIZE            resultRecordCount per ArcGIS page (default 1000, at most 2000)

A feed's new version replaces the loaded one only once all of it has arrived; a feed that fails
keeps what was loaded. Exit 0 when every feed is current, 1 when any failed.

Examples:
  npm run airspace:sync
  npm run airspace:sync -- --source faa_tfr --remote`;

const OPTIONS = {
  source: { type: "string", multiple: true },
  full: { type: "boolean" },
  local: { type: "boolean" },
  remote: { type: "boolean" },
} as const;

async function main() {
  const { values } = parseCommandLine({ help: HELP, options: OPTIONS });
  if (values.local && values.remote) usageError("--local and --remote exclude each other");
  const only = values.source ?? [];
  for (const name of only)
    if (!FEED_NAMES.includes(name)) usageError(`unknown feed "${name}": use one of ${FEED_NAMES.join(", ")}`);
  const [{ syncFeeds }, { openMigratedLocalTarget, openTarget }] = await Promise.all([
    import("../../worker/services/airspaceSync"),
    import("../lib/target"),
  ]);
  const settings = syncSettings({
    ...process.env,
    ...(only.length > 0 ? { AIRSPACE_FEEDS: only.join(",") } : {}),
  });
  if ("error" in settings) fail(settings.error);
  if (settings.feeds.length === 0) fail("no feed to sync: AIRSPACE_FEEDS lists none");
  const remote = values.remote ?? false;
  const log = (message: string) => console.log(`[airspace:sync] ${message}`);
  const target = remote ? await openTarget({ remote }) : await openMigratedLocalTarget(log);
  // Rounds of up to 200 requests, each saving where its runs stand as the Cron Trigger's do, until every run ends.
  const context = {
    sql: target,
    fetch: globalThis.fetch,
    settings: { ...settings, requestsPerRun: 200 },
    now: Date.now,
    log,
  };
  const final = new Map<string, Awaited<ReturnType<typeof syncFeeds>>[number]>();
  try {
    let pending: string[] | undefined;
    do {
      const outcomes = await syncFeeds(context, { all: true, force: values.full, only: pending });
      for (const o of outcomes) {
        const requests = o.requests + (final.get(o.feed)?.requests ?? 0);
        final.set(o.feed, { ...o, requests });
      }
      // Runs cut short by this invocation's requests, and feeds that had none left, go on.
      pending = outcomes
        .filter((o) => o.outcome === "continuing" || o.outcome === "waiting")
        .map((o) => o.feed);
    } while (pending.length > 0);
  } finally {
    await target.close();
  }
  console.log(`\nSummary (${remote ? "deployed" : "local"} database):`);
  for (const o of final.values()) {
    const what =
      o.outcome === "updated"
        ? `updated, ${o.records} records`
        : o.outcome === "failed"
          ? `FAILED, loaded data kept: ${o.error}`
          : o.outcome;
    console.log(`  ${o.feed.padEnd(27)} ${what} (${o.requests} requests)`);
    for (const s of o.skipped)
      console.log(`    skipped ${s.count}: ${s.reason} (e.g. ${s.examples.join(", ")})`);
  }
  const failed = [...final.values()].filter((o) => o.outcome === "failed");
  if (failed.length > 0) fail(`${failed.map((o) => o.feed).join(", ")} failed (see above)`);
}

runCommand(main);
