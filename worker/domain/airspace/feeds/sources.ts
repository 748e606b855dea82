import { parseClassAirspace } from "../formats/faaClassAirspace";
import { parseFacilityMap } from "../formats/faaFacilityMap";
import { parseNationalSecurity } from "../formats/faaNationalSecurity";
import { parseSpecialUseAirspace } from "../formats/faaSpecialUse";
import type { Parsed } from "../formats/source";

/**
 * The FAA's public feeds the airspace sync keeps current: four ArcGIS FeatureServer layers and the
 * TFR list. Each is one dataset, named as the feed; its URL and whether it runs come from settings.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface FeedBase {
  name: string;
  title: string;
  /** How often a current copy is fetched; a copy older than this is `degraded`. */
  everyMs: number;
  /** The wrangler var that overrides `defaultUrl`. */
  urlVar: UrlVar;
  defaultUrl: string;
}

export interface ArcGisFeed extends FeedBase {
  kind: "arcgis";
  parse(collection: object): Parsed;
  /** The field whose maximum changes with every edit (LAST_EDIT); else the layer's own edit date. */
  editField?: string;
}

export interface TfrFeed extends FeedBase {
  kind: "tfr";
}

export type Feed = ArcGisFeed | TfrFeed;

const FAA_ARCGIS = "https://services6.arcgis.com/ssFJjBXIUyZDrSYZ/arcgis/rest/services";

export const FEEDS: Feed[] = [
  {
    kind: "tfr",
    name: "faa_tfr",
    title: "FAA temporary flight restrictions (tfr.faa.gov)",
    everyMs: HOUR,
    urlVar: "AIRSPACE_FEED_URL_FAA_TFR",
    defaultUrl: "https://tfr.faa.gov",
  },
  {
    kind: "arcgis",
    name: "faa_uas_facility_map",
    title: "FAA UAS Facility Map data",
    everyMs: DAY,
    urlVar: "AIRSPACE_FEED_URL_FAA_UAS_FACILITY_MAP",
    defaultUrl: `${FAA_ARCGIS}/FAA_UAS_FacilityMap_Data/FeatureServer/0`,
    parse: parseFacilityMap,
    editField: "LAST_EDIT",
  },
  {
    kind: "arcgis",
    name: "faa_class_airspace",
    title: "FAA Class Airspace",
    everyMs: DAY,
    urlVar: "AIRSPACE_FEED_URL_FAA_CLASS_AIRSPACE",
    defaultUrl: `${FAA_ARCGIS}/Class_Airspace/FeatureServer/0`,
    parse: parseClassAirspace,
  },
  {
    kind: "arcgis",
    name: "faa_special_use_airspace",
    title: "FAA Special Use Airspace",
    everyMs: DAY,
    urlVar: "AIRSPACE_FEED_URL_FAA_SPECIAL_USE_AIRSPACE",
    defaultUrl: `${FAA_ARCGIS}/Special_Use_Airspace/FeatureServer/0`,
    parse: parseSpecialUseAirspace,
  },
  {
    kind: "arcgis",
    name: "faa_national_security_uas",
    title: "FAA National Security UAS Flight Restrictions",
    everyMs: DAY,
    urlVar: "AIRSPACE_FEED_URL_FAA_NATIONAL_SECURITY_UAS",
    defaultUrl: `${FAA_ARCGIS}/National_Security_UAS_Flight_Restrictions/FeatureServer/0`,
    parse: parseNationalSecurity,
    editField: "LAST_EDIT",
  },
];

export const FEED_NAMES = FEEDS.map((f) => f.name);

/** A feed with the URL it is fetched from. */
export type ConfiguredFeed = Feed & { url: string };

export interface SyncSettings {
  feeds: ConfiguredFeed[];
  /** Outbound requests one invocation may make (Workers count subrequests); the rest waits for the next. */
  requestsPerRun: number;
  /** `resultRecordCount`: the FAA layers answer at most 2,000 per page. */
  pageSize: number;
}

type UrlVar =
  | "AIRSPACE_FEED_URL_FAA_TFR"
  | "AIRSPACE_FEED_URL_FAA_UAS_FACILITY_MAP"
  | "AIRSPACE_FEED_URL_FAA_CLASS_AIRSPACE"
  | "AIRSPACE_FEED_URL_FAA_SPECIAL_USE_AIRSPACE"
  | "AIRSPACE_FEED_URL_FAA_NATIONAL_SECURITY_UAS";

/** The vars the sync reads: the worker's bindings, or the command's environment. */
export type SyncVars = {
  [K in UrlVar | "AIRSPACE_FEEDS" | "AIRSPACE_SYNC_REQUESTS_PER_RUN" | "AIRSPACE_SYNC_PAGE_SIZE"]?: string;
};

/**
 * Settings from the wrangler vars (or the command's environment): AIRSPACE_FEEDS lists the feeds
 * that run (`none` for none), each feed's URL var overrides its default. A bad value is an error
 * that says which var to fix.
 */
export function syncSettings(vars: SyncVars): SyncSettings | { error: string } {
  const listed = (vars.AIRSPACE_FEEDS ?? FEED_NAMES.join(","))
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s && s !== "none");
  const unknown = listed.filter((name) => !FEED_NAMES.includes(name));
  if (unknown.length > 0)
    return {
      error: `AIRSPACE_FEEDS names unknown feeds (${unknown.join(", ")}): use ${FEED_NAMES.join(", ")}`,
    };
  const feeds: ConfiguredFeed[] = [];
  for (const feed of FEEDS.filter((f) => listed.includes(f.name))) {
    const url = vars[feed.urlVar]?.trim() || feed.defaultUrl;
    if (!/^https?:\/\//.test(url)) return { error: `${feed.urlVar} must be an http(s) URL, not "${url}"` };
    feeds.push({ ...feed, url });
  }
  const requestsPerRun = positive(vars.AIRSPACE_SYNC_REQUESTS_PER_RUN, 40);
  const pageSize = positive(vars.AIRSPACE_SYNC_PAGE_SIZE, 1000);
  if (requestsPerRun === undefined)
    return { error: "AIRSPACE_SYNC_REQUESTS_PER_RUN must be a positive integer" };
  if (pageSize === undefined || pageSize > 2000)
    return { error: "AIRSPACE_SYNC_PAGE_SIZE must be an integer from 1 to 2000" };
  return { feeds, requestsPerRun, pageSize };
}

function positive(value: string | undefined, fallback: number): number | undefined {
  if (value === undefined || value.trim() === "") return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
