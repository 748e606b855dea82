import {
  FeedError,
  layerInfoUrl,
  pageOf,
  pageUrl,
  statisticsUrl,
  versionFromLayerInfo,
  versionFromStatistics,
} from "../domain/airspace/feeds/arcgis";
import type { SkippedRecords } from "../domain/airspace/feeds/freshness";
import {
  type ArcGisFeed,
  type ConfiguredFeed,
  FEEDS,
  type SyncSettings,
  type TfrFeed,
} from "../domain/airspace/feeds/sources";
import {
  tfrDetailTimes,
  tfrDetailUrl,
  tfrList,
  tfrListUrl,
  tfrShapesUrl,
} from "../domain/airspace/feeds/tfr";
import { parseTfr } from "../domain/airspace/formats/faaTfr";
import type { AirspaceRecord, FacilityMapRecord } from "../domain/airspace/formats/records";
import type { Parsed, SourceFeature } from "../domain/airspace/formats/source";
import {
  abandonRun,
  advanceRun,
  beginRun,
  confirmUnchanged,
  expireStatements,
  type FeedRun,
  feedRuns,
  type SqlRunner,
  setStagedTimes,
  stagedCount,
  stagedNotams,
  stageStatements,
  swapStatements,
} from "../store/airspaceFeeds";
import type { Statement } from "../store/statements";

/**
 * Keeps the FAA feeds' datasets current: the Cron Trigger (worker/index.ts) and `npm run
 * airspace:sync` (tools/airspace/sync.ts) both run `syncFeeds`. A run fetches a feed's new version
 * page by page into staging, carrying on across invocations when the request budget runs out, and
 * swaps it in with one batch once complete; any error drops the run and keeps the live version.
 */

export interface SyncContext {
  sql: SqlRunner;
  fetch: typeof fetch;
  settings: SyncSettings;
  now(): number;
  log(message: string): void;
}

export interface FeedOutcome {
  feed: string;
  url: string;
  /** `waiting`: due, but this invocation's requests were used up before it started. */
  outcome: "updated" | "unchanged" | "continuing" | "failed" | "not due" | "waiting";
  /** Records in the live version after an update. */
  records?: number;
  skipped: SkippedRecords[];
  error?: string;
  requests: number;
}

/** A failed feed is tried again after this long, or its own cycle if shorter. */
const RETRY_MS = 3_600_000;
/** How many skipped records of each reason are named. */
const EXAMPLES = 5;
/** An answer that does not come within this long counts as unreachable. */
const TIMEOUT_MS = 60_000;

class Budget {
  used = 0;
  constructor(readonly limit: number) {}
  get left() {
    return this.limit - this.used;
  }
}

export interface SyncOptions {
  /** Every feed now, due or not (the command). */
  all?: boolean;
  /** Every feed now, fetched in full even when its layer reports no change (`airspace:sync --full`). */
  force?: boolean;
  /** Only these feeds (of the configured ones). */
  only?: string[];
}

/**
 * One invocation: expires past TFRs, then works on each configured feed that has a run under way or
 * is due, within the settings' request budget.
 */
export async function syncFeeds(ctx: SyncContext, options: SyncOptions = {}): Promise<FeedOutcome[]> {
  const now = ctx.now();
  // Loaded TFRs expire even while their feed is switched off.
  for (const feed of FEEDS.filter((f) => f.kind === "tfr"))
    await ctx.sql.execute(expireStatements(feed.name, now));
  const runs = await feedRuns(ctx.sql);
  const budget = new Budget(ctx.settings.requestsPerRun);
  const outcomes: FeedOutcome[] = [];
  for (const feed of ctx.settings.feeds) {
    if (options.only && !options.only.includes(feed.name)) continue;
    const run = runs.get(feed.name);
    const inProgress = run?.runCursor != null;
    const sinceAttempt = now - (run?.lastAttemptAt ?? 0);
    const due =
      options.all ||
      options.force ||
      inProgress ||
      run?.lastAttemptAt == null ||
      sinceAttempt >= (run.lastError ? Math.min(RETRY_MS, feed.everyMs) : feed.everyMs);
    if (!due || budget.left <= 0) {
      const outcome = due ? "waiting" : "not due";
      outcomes.push({ feed: feed.name, url: feed.url, outcome, skipped: [], requests: 0 });
      continue;
    }
    const before = budget.used;
    let outcome: FeedOutcome;
    try {
      outcome = await syncFeed(ctx, feed, run, budget, options.force ?? false);
    } catch (error) {
      const message = error instanceof FeedError ? error.message : `${(error as Error).message ?? error}`;
      ctx.log(`${feed.name}: failed: ${message}; the loaded version is kept`);
      await ctx.sql.execute(abandonRun(feed.name, feed.url, message, ctx.now()));
      outcome = {
        feed: feed.name,
        url: feed.url,
        outcome: "failed",
        error: message,
        skipped: [],
        requests: 0,
      };
    }
    outcomes.push({ ...outcome, requests: budget.used - before });
  }
  return outcomes;
}

async function syncFeed(
  ctx: SyncContext,
  feed: ConfiguredFeed,
  run: FeedRun | undefined,
  budget: Budget,
  force: boolean,
): Promise<FeedOutcome> {
  let cursor: number;
  let skipped = new Map<string, SkippedRecords>(
    (JSON.parse(run?.runSkipped ?? "[]") as SkippedRecords[]).map((s) => [s.reason, s]),
  );
  if (run?.runCursor != null) cursor = run.runCursor;
  else {
    // A new run. ArcGIS layers are asked first whether anything changed since the loaded version.
    const version = feed.kind === "arcgis" ? await layerVersion(ctx, feed, budget) : `list@${ctx.now()}`;
    if (feed.kind === "arcgis" && !force && version === run?.version && run.lastSuccessAt != null) {
      await ctx.sql.execute([confirmUnchanged(feed.name, ctx.now())]);
      ctx.log(`${feed.name}: unchanged (${version})`);
      return { feed: feed.name, url: feed.url, outcome: "unchanged", skipped: [], requests: 0 };
    }
    await ctx.sql.execute(beginRun(feed.name, feed.url, version, ctx.now()));
    ctx.log(`${feed.name}: fetching version ${version} from ${feed.url}`);
    cursor = 0;
    skipped = new Map();
  }
  const step = feed.kind === "arcgis" ? arcGisStep : tfrStep;
  for (;;) {
    const next: Step =
      budget.left > 0 || cursor < 0 ? await step(ctx, feed as never, cursor, budget, skipped) : "wait";
    if (next === "wait") {
      ctx.log(`${feed.name}: request budget used up; the next invocation carries on from ${cursor}`);
      return {
        feed: feed.name,
        url: feed.url,
        outcome: "continuing",
        skipped: [...skipped.values()],
        requests: 0,
      };
    }
    if (next === "done") break;
    cursor = next.cursor;
    await ctx.sql.execute([
      ...next.statements,
      advanceRun(feed.name, cursor, JSON.stringify([...skipped.values()]), next.version),
    ]);
  }
  const records = await stagedCount(ctx.sql, feed.name);
  if (records === 0)
    throw new FeedError("answered no usable records: refusing to empty the source", feed.url);
  await ctx.sql.execute(swapStatements({ ...feed, format: formatOf(feed) }, ctx.now()));
  const list = [...skipped.values()];
  ctx.log(
    `${feed.name}: switched to the new version, ${records} records` +
      (list.length > 0 ? `, skipped ${list.reduce((n, s) => n + s.count, 0)}` : ""),
  );
  return { feed: feed.name, url: feed.url, outcome: "updated", records, skipped: list, requests: 0 };
}

/** What a step did: staged a part (and where the run goes on), finished, or needs more requests than are left. */
type Step = { cursor: number; statements: Statement[]; version?: string } | "done" | "wait";

const formatOf = (feed: ConfiguredFeed) => (feed.kind === "arcgis" ? "arcgis-geojson" : "faa-tfr");

async function layerVersion(ctx: SyncContext, feed: ArcGisFeed & { url: string }, budget: Budget) {
  if (feed.editField) {
    const url = statisticsUrl(feed.url, feed.editField);
    return versionFromStatistics(await getJson(ctx, url, budget), url);
  }
  const url = layerInfoUrl(feed.url);
  return versionFromLayerInfo(await getJson(ctx, url, budget), url);
}

/** One page of an ArcGIS layer, staged; done once the layer says no more remain. */
async function arcGisStep(
  ctx: SyncContext,
  feed: ArcGisFeed & { url: string },
  cursor: number,
  budget: Budget,
  skipped: Map<string, SkippedRecords>,
): Promise<Step> {
  if (cursor < 0) return "done";
  const url = pageUrl(feed.url, cursor, ctx.settings.pageSize);
  const page = pageOf(await getJson(ctx, url, budget), url);
  const { features, maps } = parseEach(feed.parse, page.features, skipped);
  ctx.log(`${feed.name}: ${cursor + page.features.length} records read`);
  return {
    // −1: the last page is in; the next step swaps.
    cursor: page.more ? cursor + page.features.length : -1,
    statements: stageStatements(feed.name, features, maps),
  };
}

/**
 * TFRs: step 0 reads the list and the shapes and stages the listed ones; each later step reads the
 * details of the next staged TFRs for their times.
 */
async function tfrStep(
  ctx: SyncContext,
  feed: TfrFeed & { url: string },
  cursor: number,
  budget: Budget,
  skipped: Map<string, SkippedRecords>,
): Promise<Step> {
  if (cursor === 0) {
    if (budget.left < 2) return "wait";
    const listUrl = tfrListUrl(feed.url);
    const listed = tfrList(await getJson(ctx, listUrl, budget), listUrl);
    const shapesUrl = tfrShapesUrl(feed.url);
    const shapes = await getJson(ctx, shapesUrl, budget);
    if (
      typeof shapes !== "object" ||
      shapes === null ||
      (shapes as { type?: unknown }).type !== "FeatureCollection"
    )
      throw new FeedError("not a GeoJSON FeatureCollection of TFR shapes", shapesUrl);
    const byNotam = new Map(listed.map((t) => [t.notam, t]));
    const { features } = parseEach(parseTfr, (shapes as { features: SourceFeature[] }).features, skipped);
    const current = features.filter((record) => {
      const notam = record.properties.notam as string | undefined;
      if (notam && byNotam.has(notam)) return true;
      note(skipped, "shape of a TFR not on the list (cancelled or expired)", notam ?? record.sourceId);
      return false;
    });
    const shaped = new Set(current.map((r) => r.properties.notam));
    for (const t of listed)
      if (!shaped.has(t.notam)) note(skipped, "on the TFR list without a shape in TFR:V_TFR_LOC", t.notam);
    ctx.log(`${feed.name}: ${listed.length} TFRs listed, ${current.length} shapes`);
    return {
      cursor: 1,
      statements: stageStatements(feed.name, current, []),
      version: `${listed.length} TFRs, list of ${new Date(ctx.now()).toISOString()}`,
    };
  }
  const notams = await stagedNotams(ctx.sql, feed.name, cursor - 1, Math.max(1, budget.left));
  if (notams.length === 0) return "done";
  const statements: Statement[] = [];
  let read = 0;
  for (const notam of notams) {
    if (budget.left <= 0) break;
    read += 1;
    const url = tfrDetailUrl(feed.url, notam);
    const xml = await getText(ctx, url, budget);
    try {
      const times = tfrDetailTimes(xml, url);
      statements.push(setStagedTimes(feed.name, notam, times.start, times.end));
    } catch (error) {
      // Kept without times rather than dropped: an unreadable detail must not hide a restriction.
      note(skipped, `detail unreadable, kept without times (${(error as Error).message})`, notam);
    }
  }
  ctx.log(`${feed.name}: details of ${cursor - 1 + read} TFRs read`);
  return { cursor: cursor + read, statements };
}

/**
 * Each feature through the format's reader on its own, so a skipped one can be named (OBJECTID and
 * name) as well as counted; the rest are kept.
 */
function parseEach(
  parse: (collection: object) => Parsed,
  features: SourceFeature[],
  skipped: Map<string, SkippedRecords>,
): { features: AirspaceRecord[]; maps: FacilityMapRecord[] } {
  const records: AirspaceRecord[] = [];
  const maps = new Map<string, FacilityMapRecord>();
  for (const feature of features) {
    let parsed: Parsed;
    try {
      parsed = parse({ type: "FeatureCollection", features: [feature] });
    } catch (error) {
      note(skipped, `unreadable (${(error as Error).message})`, nameOf(feature));
      continue;
    }
    for (const [reason] of parsed.skipped) note(skipped, reason, nameOf(feature));
    records.push(...parsed.features);
    for (const map of parsed.facilityMaps) {
      const known = maps.get(map.airportId);
      if (known) known.cells.push(...map.cells);
      else maps.set(map.airportId, map);
    }
  }
  return { features: records, maps: [...maps.values()] };
}

function nameOf(feature: SourceFeature): string {
  const p = feature.properties ?? {};
  const id = p.OBJECTID ?? p.NOTAM_KEY ?? feature.id ?? "?";
  const name = p.NAME ?? p.TITLE ?? p.APT1_NAME;
  return typeof name === "string" && name.trim() ? `${id} (${name.trim()})` : String(id);
}

function note(skipped: Map<string, SkippedRecords>, reason: string, name: string) {
  const entry = skipped.get(reason) ?? { reason, count: 0, examples: [] };
  entry.count += 1;
  if (entry.examples.length < EXAMPLES) entry.examples.push(name);
  skipped.set(reason, entry);
}

async function getText(ctx: SyncContext, url: string, budget: Budget): Promise<string> {
  budget.used += 1;
  let response: Response;
  try {
    response = await ctx.fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    throw new FeedError(`unreachable: ${(error as Error).message}`, url);
  }
  if (!response.ok) throw new FeedError(`answered HTTP ${response.status}`, url);
  return response.text();
}

async function getJson(ctx: SyncContext, url: string, budget: Budget): Promise<unknown> {
  const text = await getText(ctx, url, budget);
  try {
    return JSON.parse(text);
  } catch {
    throw new FeedError(`answered something that is not JSON (${JSON.stringify(text.slice(0, 60))}…)`, url);
  }
}
