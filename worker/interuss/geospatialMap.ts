import type { Db } from "../env";
import { isObject } from "../lib/json";
import { unknownRulesetIds } from "../store/rulesets";
import { assessVolume, type Effect, type Finding, OWN_SOURCE, rulesetIdOf } from "./assessment";
import { parseEd269, RESTRICTIONS } from "./ed269";
import { type DataSource, deleteDataSource, findDataSource, listDataSources, putDataSource } from "./store";
import { InvalidInput, positionVolume, time, type Volume, volume4d } from "./volumes";

/** InterUSS geospatial_map/v1 (automated_testing_interfaces `geospatial_map/v1/geospatial_map.yaml`). */

export const GEOSPATIAL_MAP_STATUS = {
  status: "Ready",
  api_name: "Geospatial Map Provider Automated Testing Interface",
  // The interface's own text says this version must be reported (its document is 0.2.3).
  api_version: "v0.2.2",
} as const;

/** A data source's document may be this large. */
const MAX_SOURCE_BYTES = 5 * 1024 * 1024;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export type SourceStatusBody = { id: string; status: DataSource["status"]; message?: string };

const statusBody = (s: Pick<DataSource, "id" | "status" | "message">): SourceStatusBody => ({
  id: s.id,
  status: s.status,
  ...(s.message ? { message: s.message } : {}),
});

export class Conflict extends Error {}

/**
 * PUT: download the source, parse its ED-269 zones and keep them (Ready), or record why not
 * (Unsupported, Rejected, Error). The same id with another URL is a conflict. https only, except
 * in development where a loopback http server stands for a local file (workerd reads no files).
 */
export async function putSource(
  d1: D1Database,
  id: string,
  body: unknown,
  options: { development: boolean; fetcher?: typeof fetch; now: number },
): Promise<SourceStatusBody> {
  const source = isObject(body) ? body.https_source : undefined;
  if (!isObject(source) || typeof source.url !== "string")
    throw new InvalidInput("https_source.url", "required");
  const url = source.url;
  const existing = await findDataSource(d1, id);
  if (existing && existing.url !== url)
    throw new Conflict(`data source ${id} was loaded from ${existing.url}`);
  const record = (status: DataSource["status"], message: string | null, zones: DataSource["zones"] = []) =>
    ({ id, url, status, message, zones }) satisfies DataSource;
  let result: DataSource;
  if (source.format !== undefined && source.format !== "ED-269") {
    result = record("Unsupported", `format ${String(source.format)} is not supported; ED-269 is`);
  } else {
    result = await download(url, options).then(
      (json) => {
        let parsed: ReturnType<typeof parseEd269>;
        try {
          parsed = parseEd269(json);
        } catch (err) {
          return record("Rejected", (err as Error).message);
        }
        if (parsed.zones.length === 0)
          return record("Rejected", `no usable zone: ${parsed.problems.join("; ") || "the list is empty"}`);
        const note = parsed.problems.length > 0 ? `left out ${parsed.problems.join("; ")}` : null;
        return record("Ready", note, parsed.zones);
      },
      (err: Error) => record(err instanceof RefusedUrl ? "Rejected" : "Error", err.message),
    );
  }
  await putDataSource(d1, result, options.now);
  return statusBody(result);
}

class RefusedUrl extends Error {}

async function download(
  url: string,
  options: { development: boolean; fetcher?: typeof fetch },
): Promise<unknown> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RefusedUrl(`${url} is not a URL`);
  }
  const local = options.development && parsed.protocol === "http:" && LOOPBACK.has(parsed.hostname);
  if (parsed.protocol !== "https:" && !local)
    throw new RefusedUrl(
      options.development
        ? "only https URLs, or http on 127.0.0.1 in development"
        : "only https URLs are read",
    );
  const res = await (options.fetcher ?? fetch)(parsed.toString(), {
    headers: { Accept: "application/json" },
  });
  if (!res.ok) throw new Error(`Unable to download ${url}: HTTP ${res.status}`);
  const text = await res.text();
  if (text.length > MAX_SOURCE_BYTES) throw new RefusedUrl(`${url} is over ${MAX_SOURCE_BYTES} bytes`);
  try {
    return JSON.parse(text);
  } catch {
    throw new RefusedUrl(`${url} is not JSON`);
  }
}

export async function getSource(d1: D1Database, id: string): Promise<SourceStatusBody | null> {
  const found = await findDataSource(d1, id);
  return found ? statusBody(found) : null;
}

/** GET (list): the sources loaded through this interface and not deleted, in the order last loaded. */
export async function listSources(d1: D1Database): Promise<SourceStatusBody[]> {
  return (await listDataSources(d1)).map(statusBody);
}

/** DELETE deactivates at once; a later GET answers 404. */
export async function removeSource(d1: D1Database, id: string): Promise<SourceStatusBody> {
  await deleteDataSource(d1, id);
  return { id, status: "Deactivated" };
}

export type SelectionOutcome = "Present" | "Absent" | "UnsupportedFilter" | "Error";
export interface CheckResult {
  features_selection_outcome: SelectionOutcome;
  message?: string;
}

class Unsupported extends Error {}

interface FilterSet {
  volumes: Volume[];
  impact: Effect | "BlockOrAdvise" | undefined;
  source: string | undefined;
  /** The filter's operation_rule_set, as this service's ruleset id where it names one. */
  ruleSet: string | undefined;
  uSpaceClass: string | undefined;
  restrictions: string[] | undefined;
}

/** POST /map/queries: each check is Present when any of its filter sets selects a feature. */
export async function queryMap(
  db: Db,
  d1: D1Database,
  body: unknown,
  now: number,
): Promise<{ results: CheckResult[] }> {
  if (!isObject(body) || !Array.isArray(body.checks)) throw new InvalidInput("checks", "required (an array)");
  const checks = body.checks.map((check, i) => {
    if (!isObject(check)) throw new InvalidInput(`checks.${i}`, "must be an object");
    // The document requires `filterSets` but names the property `filter_sets`: either is read.
    const sets = check.filter_sets ?? check.filterSets;
    if (!Array.isArray(sets)) throw new InvalidInput(`checks.${i}.filter_sets`, "required (an array)");
    return sets.map((set, j) => filterSetOf(set, `checks.${i}.filter_sets.${j}`, now));
  });
  const results: CheckResult[] = [];
  for (const sets of checks) {
    try {
      let present = false;
      for (const set of sets) {
        if (await selects(db, d1, set, now)) {
          present = true;
          break;
        }
      }
      results.push({ features_selection_outcome: present ? "Present" : "Absent" });
    } catch (err) {
      if (err instanceof Unsupported)
        results.push({ features_selection_outcome: "UnsupportedFilter", message: err.message });
      else throw err;
    }
  }
  return { results };
}

function filterSetOf(set: unknown, field: string, now: number): FilterSet {
  if (!isObject(set)) throw new InvalidInput(field, "must be an object");
  const after = time(set.after, `${field}.after`);
  const before = time(set.before, `${field}.before`);
  const window = (v: Volume): Volume => ({
    ...v,
    start: v.start ?? after ?? before ?? now,
    end: v.end ?? before ?? after ?? now,
  });
  const volumes: Volume[] = [];
  if (set.position !== undefined) volumes.push(window(positionVolume(set.position, `${field}.position`)));
  if (set.volumes4d !== undefined) {
    if (!Array.isArray(set.volumes4d)) throw new InvalidInput(`${field}.volumes4d`, "must be an array");
    set.volumes4d.forEach((v, k) => {
      volumes.push(window(volume4d(v, `${field}.volumes4d.${k}`)));
    });
  }
  const impact = set.resulting_operational_impact;
  if (impact !== undefined && impact !== "Block" && impact !== "Advise" && impact !== "BlockOrAdvise")
    throw new InvalidInput(`${field}.resulting_operational_impact`, "must be Block, Advise or BlockOrAdvise");
  const ed269 = isObject(set.ed269) ? set.ed269 : {};
  const restrictions = Array.isArray(ed269.acceptable_restrictions)
    ? ed269.acceptable_restrictions
    : undefined;
  for (const r of restrictions ?? [])
    if (!(RESTRICTIONS as readonly unknown[]).includes(r))
      throw new InvalidInput(
        `${field}.ed269.acceptable_restrictions`,
        `must be among ${RESTRICTIONS.join(", ")}`,
      );
  return {
    volumes,
    impact: impact as FilterSet["impact"],
    source: typeof set.restriction_source === "string" ? set.restriction_source : undefined,
    ruleSet: typeof set.operation_rule_set === "string" ? rulesetIdOf(set.operation_rule_set) : undefined,
    uSpaceClass: typeof ed269.u_space_class === "string" ? ed269.u_space_class : undefined,
    restrictions: restrictions && restrictions.length > 0 ? (restrictions as string[]) : undefined,
  };
}

/**
 * The interface leaves the values of `operation_rule_set` and `restriction_source` to the test
 * designers ("will be established by the test designers and will generally correspond to sets of
 * rules under which the system under test plans operations"; "to limit responses to only the
 * intended datasets under test"). InterUSS's own tables say `Rules1` and `ThisRegulator`. So a rule
 * set that is one of this service's rulesets is planned under alone; any other name is the
 * designers' name for the rules this service plans under where the volume is (its default
 * selection there). A source that is `windsock` or a loaded data source's id selects that one; any
 * other name selects the data loaded through the interface, the datasets under test.
 */
async function selects(db: Db, d1: D1Database, set: FilterSet, now: number): Promise<boolean> {
  // Features are found by where they are: without a position or volume there is nothing to look at.
  if (set.volumes.length === 0) throw new Unsupported("a position or volumes4d filter is required");
  const ownRuleset = set.ruleSet !== undefined && (await unknownRulesetIds(db, [set.ruleSet])).length === 0;
  const rulesetIds = ownRuleset ? [set.ruleSet!] : undefined;
  const fromSource = await sourceFilter(d1, set.source);
  for (const volume of set.volumes) {
    const findings = await assessVolume(db, d1, volume, { rulesetIds, now });
    if (findings.some((f) => fromSource(f.source) && matches(f, set))) return true;
  }
  return false;
}

async function sourceFilter(d1: D1Database, name: string | undefined): Promise<(source: string) => boolean> {
  if (name === undefined) return () => true;
  if (name === OWN_SOURCE || (await findDataSource(d1, name))) return (source) => source === name;
  return (source) => source !== OWN_SOURCE;
}

function matches(f: Finding, set: FilterSet): boolean {
  if (set.impact === "Block" && f.effect !== "Block") return false;
  if (set.impact === "Advise" && f.effect !== "Advise") return false;
  if (set.uSpaceClass !== undefined && f.ed269?.uSpaceClass !== set.uSpaceClass) return false;
  if (set.restrictions !== undefined && (!f.ed269 || !set.restrictions.includes(f.ed269.restriction)))
    return false;
  return true;
}
