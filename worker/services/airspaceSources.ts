import { datasetFreshness, feedFreshness, type SourceFreshness } from "../domain/airspace/feeds/freshness";
import { FEEDS, syncSettings } from "../domain/airspace/feeds/sources";
import type { Bindings } from "../env";
import { d1Runner, datasetNotes, feedRuns, type SqlRunner } from "../store/airspaceFeeds";
import { type SyncContext, syncFeeds } from "./airspaceSync";

/**
 * Every source of airspace data with its freshness: the FAA feeds (whether switched on or not, once
 * configured or loaded), then every other loaded dataset (the embedded default's parts, imports).
 */
export async function airspaceSources(
  sql: SqlRunner,
  env: Partial<Bindings>,
  now: number,
): Promise<SourceFreshness[]> {
  const [runs, notes] = await Promise.all([feedRuns(sql), datasetNotes(sql)]);
  const settings = syncSettings(env);
  const configured = "error" in settings ? [] : settings.feeds;
  const byName = new Map(notes.map((n) => [n.name, n]));
  const feeds = FEEDS.flatMap((feed) => {
    const on = configured.find((f) => f.name === feed.name);
    const run = runs.get(feed.name);
    const note = byName.get(feed.name);
    if (!on && !run && !note) return [];
    return [
      feedFreshness(feed, { enabled: on !== undefined, url: on?.url ?? feed.defaultUrl }, run, note, now),
    ];
  });
  const feedNames = new Set(FEEDS.map((f) => f.name));
  return [...feeds, ...notes.filter((n) => !feedNames.has(n.name)).map((n) => datasetFreshness(n, now))];
}

/** The sources of this deployment's D1 (`GET /airspace/v2/sources`). */
export function deployedAirspaceSources(env: Bindings, now: number): Promise<SourceFreshness[]> {
  return airspaceSources(d1Runner(env.DB), env, now);
}

/** The Cron Trigger's work: one invocation of the feed sync, each outcome one log line. */
export async function scheduledAirspaceSync(env: Bindings): Promise<void> {
  const settings = syncSettings(env);
  if ("error" in settings) {
    console.error(JSON.stringify({ level: "error", message: `airspace sync: ${settings.error}` }));
    return;
  }
  const context: SyncContext = {
    sql: d1Runner(env.DB),
    fetch: (input, init) => fetch(input, init),
    settings,
    now: Date.now,
    log: (message) => console.log(JSON.stringify({ level: "info", message: `airspace sync: ${message}` })),
  };
  for (const outcome of await syncFeeds(context)) {
    if (outcome.outcome === "not due") continue;
    const level = outcome.outcome === "failed" ? "error" : "info";
    console.log(JSON.stringify({ level, message: "airspace sync", ...outcome }));
  }
}
