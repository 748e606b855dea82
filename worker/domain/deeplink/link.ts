import { geometryProblem } from "../flightArea";
import { type LineString, type Point, type Polygon, unwrapGeometry } from "../geojson";
import type { Checked, Problem } from "../problem";

export type FlightGeometry = Polygon | LineString | Point;

/** What a flight-creation link carries (spec 4.7), validated; distances in meters. */
export interface FlightLinkRequest {
  geometry: FlightGeometry;
  callbackUrl?: string;
  altitude?: number;
  buffer?: number;
  /** Absent: the page applies the default rulesets. */
  rulesetIds?: string[];
}

/** The buffer a Point or path gets when the link names none (the same default as point flights). */
export const DEFAULT_BUFFER_METERS = 100;
export const MAX_ALTITUDE_METERS = 10_000;
export const MAX_BUFFER_METERS = 20_000;
const MAX_RULESETS = 50;
const RULESET_ID = /^[a-z0-9]+(?:_[a-z0-9]+)+$/;

/** The request, or every problem with its fields (a geometry of too many positions is `tooLarge`). */
export type LinkCheck = Checked<FlightLinkRequest>;

/** The link fields as they arrive: JSON values from the builder, or strings from the page's query. */
export interface RawLinkFields {
  geometry: unknown;
  callback_url?: unknown;
  altitude?: unknown;
  buffer?: unknown;
  ruleset_ids?: unknown;
}

/**
 * Validates the fields of a flight-creation link, naming every bad one. `bufferOnPolygon` says
 * what to do with a buffer on a Polygon: the builder refuses it, the page ignores it.
 */
export function checkLinkFields(raw: RawLinkFields, bufferOnPolygon: "refuse" | "ignore"): LinkCheck {
  const errors: Problem[] = [];
  const altitude = optionalNumber(raw.altitude, "altitude", MAX_ALTITUDE_METERS, errors);
  let buffer = optionalNumber(raw.buffer, "buffer", MAX_BUFFER_METERS, errors);
  const geometry = raw.geometry as FlightGeometry;
  const problem = geometryProblem(raw.geometry, buffer ?? DEFAULT_BUFFER_METERS);
  if (problem) {
    errors.push(problem);
  } else if (geometry.type === "Polygon" && buffer !== undefined) {
    if (bufferOnPolygon === "refuse") {
      errors.push({ field: "buffer", message: "applies only to LineString and Point geometries" });
    }
    buffer = undefined;
  }
  let callbackUrl: string | undefined;
  if (raw.callback_url !== undefined && raw.callback_url !== "") {
    if (typeof raw.callback_url === "string") callbackUrl = raw.callback_url;
    else errors.push({ field: "callback_url", message: "must be a URL string" });
  }
  const rulesetIds = readRulesetIds(raw.ruleset_ids, errors);
  if (errors.length > 0) return { ok: false, problems: errors };
  return { ok: true, value: { geometry, callbackUrl, altitude, buffer, rulesetIds } };
}

/** The page's query: `geometry` is the JSON text `{"geometry": <GeoJSON geometry>}` (a bare geometry is accepted too). */
export function linkFieldsFromQuery(query: URLSearchParams): RawLinkFields {
  return {
    geometry: geometryFromText(query.get("geometry")),
    callback_url: query.get("callback_url") ?? undefined,
    altitude: query.get("altitude") ?? undefined,
    buffer: query.get("buffer") ?? undefined,
    ruleset_ids: query.get("ruleset_ids") ?? undefined,
  };
}

function geometryFromText(text: string | null): unknown {
  if (text === null || text === "") return undefined;
  try {
    return unwrapGeometry(JSON.parse(text));
  } catch {
    return text;
  }
}

function optionalNumber(value: unknown, name: string, max: number, errors: Problem[]): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const number = typeof value === "string" ? Number(value) : value;
  if (typeof number !== "number" || !Number.isFinite(number) || number <= 0 || number > max) {
    errors.push({ field: name, message: `must be a number of meters greater than 0 and at most ${max}` });
    return undefined;
  }
  return number;
}

function readRulesetIds(value: unknown, errors: Problem[]): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = typeof value === "string" ? value.split(",") : value;
  if (!Array.isArray(list) || !list.every((id) => typeof id === "string")) {
    errors.push({ field: "ruleset_ids", message: "must be comma-separated ruleset ids or an array of them" });
    return undefined;
  }
  const ids = [...new Set(list.map((id) => id.trim()).filter((id) => id !== ""))];
  const bad = ids.filter((id) => !RULESET_ID.test(id));
  if (bad.length > 0) {
    errors.push({
      field: "ruleset_ids",
      message: `not ruleset ids (lowercase <country>_<name>): ${bad.join(", ")}`,
    });
  } else if (ids.length > MAX_RULESETS) {
    errors.push({ field: "ruleset_ids", message: `at most ${MAX_RULESETS} rulesets` });
  }
  return ids;
}

/** `{appLinkBase}/create_flight/v1/?geometry=…` with every field of the request and the account's `client_id`. */
export function creationLink(
  appLinkBase: string,
  clientId: string,
  request: FlightLinkRequest,
  /** A single-use sign-in for one pilot (services/pageSignIn.ts), when the builder had their token. */
  grant?: string,
): string {
  const params: [string, string | undefined][] = [
    ["geometry", JSON.stringify({ geometry: request.geometry })],
    ["callback_url", request.callbackUrl],
    ["altitude", request.altitude?.toString()],
    ["buffer", request.buffer?.toString()],
    ["ruleset_ids", request.rulesetIds?.join(",")],
    ["client_id", clientId],
    ["grant", grant],
  ];
  return `${appLinkBase.replace(/\/+$/, "")}/create_flight/v1/?${queryString(params)}`;
}

/**
 * The longest URL the front that serves the page accepts: Cloudflare's edge refuses URLs over 16 KB
 * (414), and the local front of `npm start` about 64 KB (measured; docs/security.md). The link is refused rather than stored and linked by a short
 * id: the creation link carries the request itself (spec 4.7), which the apps read from the URL.
 */
export const MAX_LINK_BYTES = 16 * 1024;

/** Why a built link cannot be opened (over MAX_LINK_BYTES), naming the geometry, or null. */
export function linkLengthProblem(link: string, label: string): Problem | null {
  if (link.length <= MAX_LINK_BYTES) return null;
  return {
    field: "geometry",
    message: `the ${label} would be ${link.length} bytes, over the ${MAX_LINK_BYTES} a browser can open through the front (it answers 414): send fewer positions`,
    tooLarge: true,
  };
}

/** The operator's dynamic-link service and app identities (wrangler.toml `[vars]`), passed on verbatim. */
export interface DynamicLinkConfig {
  baseUrl: string;
  apn: string;
  isi: string;
  ibi: string;
  /** Empty: left out, and the served outer link sends desktops to the creation page. */
  ofl: string;
  pt: string;
}

/**
 * The outer dynamic link (spec 4.7): the URI-encoded creation link, the campaign parameters, the
 * iOS analytics pair (`ct`, `mt`, which other platforms ignore) and the operator's fixed parameters.
 */
export function dynamicLink(config: DynamicLinkConfig, creation: string, storeId: string): string {
  const params: [string, string | undefined][] = [
    ["link", creation],
    // An app the operator has not configured is left out: the phone then opens the web page.
    ["apn", config.apn || undefined],
    ["isi", config.isi || undefined],
    ["ibi", config.ibi || undefined],
    ["ofl", config.ofl || undefined],
    ["pt", config.pt],
    ["efr", "1"],
    ["utm_source", "partner"],
    ["utm_medium", "deeplink"],
    ["utm_campaign", "laanc"],
    ["utm_content", storeId],
    ["ct", "laanc"],
    ["mt", "8"],
  ];
  const separator = config.baseUrl.includes("?") ? "&" : "?";
  return `${config.baseUrl}${separator}${queryString(params)}`;
}

function queryString(params: [string, string | undefined][]): string {
  return params
    .filter((pair): pair is [string, string] => pair[1] !== undefined)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join("&");
}
