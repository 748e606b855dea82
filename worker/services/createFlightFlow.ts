import {
  type AltitudePreset,
  altitudePresets,
  displayDistance,
  roundCentimeters,
  snapAltitude,
  toMeters,
  type Unit,
  unitForLocale,
} from "../domain/deeplink/altitude";
import { type Authorization, callbackProblem } from "../domain/deeplink/callbacks";
import { FIRST_PARTY_PUBLIC_ID, registerHint } from "../domain/deeplink/firstParty";
import {
  checkLinkFields,
  DEFAULT_BUFFER_METERS,
  type FlightLinkRequest,
  linkFieldsFromQuery,
  MAX_BUFFER_METERS,
} from "../domain/deeplink/link";
import { type MapView, mapFrame, mapView, takeoffPoint } from "../domain/deeplink/mapView";
import { completeSelection, type RulesetChoice } from "../domain/deeplink/rulesets";
import { flightArea } from "../domain/flightArea";
import type { Polygon } from "../domain/geojson";
import type { MapContext } from "../domain/map/layers";
import type { Db } from "../env";
import type { FieldError } from "../lib/jsend";
import { findLinkAccount } from "../store/callbacks";
import { findFirstPartyAccount, type LinkAccount } from "../store/firstPartyAccount";
import { mapContext } from "../store/mapContext";
import type { PageSignIn } from "./pageSignIn";

/** What the public API answers the page: its data, or its refusal in words and fields. */
export type ApiAnswer<T> =
  | { ok: true; data: T }
  | { ok: false; status: number; message: string; errors: FieldError[] };

/**
 * The public API as the page calls it, in-process and in the name of the link's account (pages/api's
 * `PageApi`): the page is a client like a mobile app, so it follows exactly the API's rules.
 */
export interface PageApiClient {
  post<T>(path: string, body: unknown, token?: string): Promise<ApiAnswer<T>>;
  get<T>(path: string, token?: string): Promise<ApiAnswer<T>>;
}

/** The advisory fields the page shows (spec 2.5). */
export interface PageAdvisory {
  id: string;
  name: string;
  type: string;
  color: string;
  latitude: number;
  longitude: number;
  /** `source` and `facility_map_source`: `synthetic` for generated data, which the page marks. */
  properties?: Record<string, unknown>;
}

/** Form field names: one radio group per jurisdiction's pick1 rulesets, one checkbox list of optional ones. */
export const PICK1_FIELD = "pick1-";
export const OPTIONAL_FIELD = "ruleset";

export const START_OFFSETS_MINUTES = [0, 15, 30, 60, 120, 240];
export const DURATIONS_MINUTES = [15, 30, 60, 120, 240];

export interface FormState {
  altitudeMeters: number;
  /** As typed, in the pilot's unit; only Path and Point flights have one. */
  buffer?: string;
  /** The buffer for the API, in meters: the typed one when usable, else the link's. */
  bufferMeters?: number;
  selected: string[];
  startOffset: number;
  duration: number;
}

export interface PageModel {
  appName: string;
  action: string;
  unit: Unit;
  otherUnitUrl: string;
  geometryType: "Polygon" | "LineString" | "Point";
  map: MapView;
  color?: string;
  advisories: PageAdvisory[];
  advisoryNote?: string;
  rulesets: RulesetChoice[];
  rulesetNote?: string;
  altitudePresets: AltitudePreset[];
  form: FormState;
  errors: FieldError[];
  returnTo?: string;
  /** Who creates the flight: a pilot signed in by a grant or the provider; never a typed id. */
  signIn: PageSignIn;
}

/** The result page: the flight, its authorizations and where the pilot goes next. */
export interface FlightCreatedModel {
  appName: string;
  flightId: string;
  authorizations: Authorization[];
  /** The live page and briefing, by ticket; absent when none could be issued. */
  pages?: FlightPages;
  /** The link's callback with the flight and its authorizations: back to the app. */
  returnUrl?: string;
}

/** The flight's own pages, opened by one ticket (as POST /flight/v2/{id}/ticket issues it) until `expiresAt`. */
export interface FlightPages {
  liveUrl: string;
  briefingUrl: string;
  expiresAt: string;
}

export interface OpenedLink {
  account: LinkAccount;
  request: FlightLinkRequest;
  unit: Unit;
}

/** Reads and checks the link: its application, its fields and its callback; every problem named. */
export async function openLink(
  db: Db,
  query: URLSearchParams,
  acceptLanguage: string | undefined,
  development: boolean,
): Promise<{ ok: true; link: OpenedLink } | { ok: false; problems: FieldError[] }> {
  const problems: FieldError[] = [];
  // Spec 4.7's own link names no application: it opens for the service's first-party one.
  const clientId = query.get("client_id") || FIRST_PARTY_PUBLIC_ID;
  const account =
    clientId === FIRST_PARTY_PUBLIC_ID
      ? await findFirstPartyAccount(db)
      : await findLinkAccount(db, clientId);
  if (!account)
    problems.push({
      name: "client_id",
      message:
        clientId === FIRST_PARTY_PUBLIC_ID
          ? "none given, and this service's own application is not set up (apply the D1 migrations)"
          : "names no active application of this service",
    });
  const check = checkLinkFields(linkFieldsFromQuery(query), "ignore");
  if (!check.ok) problems.push(...check.problems.map((p) => ({ name: p.field, message: p.message })));
  if (check.ok && account && check.value.callbackUrl !== undefined) {
    const problem = callbackProblem(
      check.value.callbackUrl,
      account.callbackPrefixes,
      development,
      registerHint(account.publicId),
    );
    if (problem) problems.push({ name: "callback_url", message: problem });
  }
  if (!account || !check.ok || problems.length > 0) return { ok: false, problems };
  const units = query.get("units");
  const unit = units === "metric" || units === "imperial" ? units : unitForLocale(acceptLanguage);
  return { ok: true, link: { account, request: check.value, unit } };
}

const hasBuffer = (request: FlightLinkRequest) => request.geometry.type !== "Polygon";
const linkBuffer = (request: FlightLinkRequest) => request.buffer ?? DEFAULT_BUFFER_METERS;

/** The form as the link pre-fills it. */
export function initialForm(link: OpenedLink): Omit<FormState, "selected"> {
  const { request, unit } = link;
  return {
    altitudeMeters: snapAltitude(request.altitude, unit).meters,
    buffer: hasBuffer(request) ? String(displayDistance(linkBuffer(request), unit)) : undefined,
    bufferMeters: hasBuffer(request) ? linkBuffer(request) : undefined,
    startOffset: 0,
    duration: 60,
  };
}

export type FormBody = Record<string, string | File | (string | File)[]>;

/** The pilot's submitted form, with a message for every field that cannot be used. */
export function readForm(link: OpenedLink, body: FormBody): { form: FormState; errors: FieldError[] } {
  const one = (name: string) => {
    const value = body[name];
    const first = Array.isArray(value) ? value[0] : value;
    return typeof first === "string" ? first.trim() : "";
  };
  const all = (name: string) => {
    const value = body[name];
    return (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(
      (v): v is string => typeof v === "string",
    );
  };
  const errors: FieldError[] = [];
  const defaults = initialForm(link);
  const altitude = Number(one("altitude"));
  const preset = altitudePresets(link.unit).find((p) => p.meters === altitude);
  if (!preset) errors.push({ name: "altitude", message: "choose one of the listed altitudes" });
  const startOffset = Number(one("start"));
  if (!START_OFFSETS_MINUTES.includes(startOffset))
    errors.push({ name: "start", message: "choose one of the listed start times" });
  const duration = Number(one("duration"));
  if (!DURATIONS_MINUTES.includes(duration))
    errors.push({ name: "duration", message: "choose one of the listed durations" });
  let buffer: string | undefined;
  let bufferMeters: number | undefined;
  if (hasBuffer(link.request)) {
    buffer = one("buffer");
    const meters = roundCentimeters(toMeters(Number(buffer), link.unit));
    if (buffer !== "" && Number.isFinite(meters) && meters > 0 && meters <= MAX_BUFFER_METERS) {
      bufferMeters = meters;
    } else {
      const max = displayDistance(MAX_BUFFER_METERS, link.unit);
      errors.push({ name: "buffer", message: `enter a distance greater than 0 and at most ${max}` });
      bufferMeters = linkBuffer(link.request);
    }
  }
  return {
    form: {
      altitudeMeters: preset?.meters ?? defaults.altitudeMeters,
      buffer,
      bufferMeters,
      selected: Object.keys(body)
        .filter((name) => name.startsWith(PICK1_FIELD) || name === OPTIONAL_FIELD)
        .flatMap(all),
      startOffset: errors.some((e) => e.name === "start") ? defaults.startOffset : startOffset,
      duration: errors.some((e) => e.name === "duration") ? defaults.duration : duration,
    },
    errors,
  };
}

/** The flight area: the Polygon, or the path or point with the form's buffer. */
export function areaOf(link: OpenedLink, form: Omit<FormState, "selected">): Polygon {
  const { geometry } = link.request;
  return geometry.type === "Polygon" ? geometry : flightArea(geometry, form.bufferMeters!);
}

export interface Airspace {
  /** False when the rules API refused: no flight may be created without its rulesets. */
  rulesetsLoaded: boolean;
  rulesets: RulesetChoice[];
  rulesetNote?: string;
  color?: string;
  advisories: PageAdvisory[];
  advisoryNote?: string;
}

/** Rulesets that apply to the area, then the advisories under the chosen ones, from the public API. */
export async function loadAirspace(
  api: PageApiClient,
  area: Polygon,
  chosen: (rulesets: RulesetChoice[]) => string[],
): Promise<Airspace & { selected: string[] }> {
  const rules = await api.post<RulesetChoice[]>("/rules/v1/", { geometry: area });
  if (!rules.ok) {
    return {
      rulesetsLoaded: false,
      rulesets: [],
      selected: [],
      rulesetNote: `Rulesets could not be loaded: ${rules.message}`,
      advisories: [],
      advisoryNote: "Advisories could not be loaded without rulesets.",
    };
  }
  const rulesets = rules.data;
  const selected = chosen(rulesets);
  const rulesetNote = rulesets.length === 0 ? "No rulesets apply to this area." : undefined;
  const advisoryRulesets = completeSelection(rulesets, selected);
  // Without advisories: the rulesets as loaded, and why the list is empty.
  const withoutAdvisories = (advisoryNote: string) => ({
    rulesetsLoaded: true,
    rulesets,
    selected,
    rulesetNote,
    advisories: [],
    advisoryNote,
  });
  if (advisoryRulesets.length === 0)
    return withoutAdvisories("Choose rulesets to see the advisories that apply.");
  const answer = await api.post<{ color: string; advisories: PageAdvisory[] }>("/advisory/v2/airspace", {
    geometry: area,
    rulesets: advisoryRulesets.join(","),
  });
  if (!answer.ok) return withoutAdvisories(`Advisories could not be loaded: ${answer.message}`);
  return {
    rulesetsLoaded: true,
    rulesets,
    selected,
    rulesetNote,
    color: answer.data.color,
    advisories: answer.data.advisories,
  };
}

/**
 * What the map draws around the area: boundaries, airports and airspace of the embedded data in
 * the map's frame, time-bound airspace as it stands over the flight's window.
 */
export function loadMapContext(
  db: Db,
  area: Polygon,
  form: Omit<FormState, "selected">,
  now = Date.now(),
): Promise<MapContext> {
  const start = now + form.startOffset * 60_000;
  return mapContext(db, mapFrame(area).box, start, start + form.duration * 60_000);
}

/** Everything the page draws. */
export function pageModel(
  link: OpenedLink,
  form: Omit<FormState, "selected">,
  airspace: Airspace & { selected: string[] },
  area: Polygon,
  requestUrl: URL,
  errors: FieldError[],
  signIn: PageSignIn,
  context?: MapContext,
): PageModel {
  const otherUnit = new URL(requestUrl);
  otherUnit.searchParams.set("units", link.unit === "imperial" ? "metric" : "imperial");
  return {
    appName: link.account.name,
    action: `${requestUrl.pathname}${requestUrl.search}`,
    unit: link.unit,
    otherUnitUrl: `${otherUnit.pathname}${otherUnit.search}`,
    geometryType: link.request.geometry.type,
    map: mapView(area, link.request.geometry, airspace.advisories, { context, unit: link.unit }),
    color: airspace.color,
    advisories: airspace.advisories,
    advisoryNote: airspace.advisoryNote,
    rulesets: airspace.rulesets,
    rulesetNote: airspace.rulesetNote,
    altitudePresets: altitudePresets(link.unit),
    form: { ...form, selected: airspace.selected },
    errors,
    returnTo: link.request.callbackUrl ? new URL(link.request.callbackUrl).host : undefined,
    signIn,
  };
}

/** API field names as the page's fields, so an API refusal lands next to the control that caused it. */
const PAGE_FIELD: Record<string, string> = {
  max_altitude_agl: "altitude",
  buffer: "buffer",
  rulesets: "rulesets",
  start_time: "start",
  end_time: "duration",
};

function pageErrors(answer: { message: string; errors: FieldError[] }): FieldError[] {
  if (answer.errors.length === 0) return [{ name: "form", message: answer.message }];
  return answer.errors.map((e) =>
    PAGE_FIELD[e.name]
      ? { name: PAGE_FIELD[e.name]!, message: e.message }
      : { name: "form", message: `${e.name}: ${e.message}` },
  );
}

/**
 * Creates and submits the plan through the API as the signed-in pilot (`token`, from the link's
 * grant), and reads back the flight's authorizations and a ticket to its live page and briefing
 * (none when the ticket is refused: the flight stands all the same).
 */
export async function createFlight(
  api: PageApiClient,
  link: OpenedLink,
  form: FormState,
  rulesets: string[],
  token: string,
  now = Date.now(),
): Promise<
  | { ok: true; flightId: string; authorizations: Authorization[]; pages?: FlightPages }
  | { ok: false; errors: FieldError[] }
> {
  const { geometry } = link.request;
  const [longitude, latitude] = takeoffPoint(geometry);
  const start = now + form.startOffset * 60_000;
  const plan = await api.post<{ id: string }>(
    "/flight/v2/plan",
    {
      takeoff_latitude: latitude,
      takeoff_longitude: longitude,
      start_time: form.startOffset === 0 ? "now" : new Date(start).toISOString(),
      end_time: new Date(start + form.duration * 60_000).toISOString(),
      max_altitude_agl: form.altitudeMeters,
      buffer: form.bufferMeters,
      geometry,
      rulesets,
    },
    token,
  );
  if (!plan.ok) return { ok: false, errors: pageErrors(plan) };
  const submitted = await api.post<{ flight_id: string }>(
    `/flight/v2/plan/${encodeURIComponent(plan.data.id)}/submit`,
    {},
    token,
  );
  if (!submitted.ok) return { ok: false, errors: pageErrors(submitted) };
  const flightId = submitted.data.flight_id;
  const flight = await api.get<{ authorizations?: Authorization[] }>(
    `/flight/v2/${encodeURIComponent(flightId)}`,
    token,
  );
  if (!flight.ok) return { ok: false, errors: pageErrors(flight) };
  const ticket = await api.post<{ live_url: string; briefing_url: string; expires_at: string }>(
    `/flight/v2/${encodeURIComponent(flightId)}/ticket`,
    {},
    token,
  );
  const pages = ticket.ok
    ? {
        liveUrl: ticket.data.live_url,
        briefingUrl: ticket.data.briefing_url,
        expiresAt: ticket.data.expires_at,
      }
    : undefined;
  return { ok: true, flightId, authorizations: flight.data.authorizations ?? [], pages };
}
