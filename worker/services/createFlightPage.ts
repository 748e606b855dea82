import { callbackRedirect } from "../domain/deeplink/callbacks";
import { mapFrame } from "../domain/deeplink/mapView";
import { completeSelection, initialSelection, selectionProblem } from "../domain/deeplink/rulesets";
import type { Polygon } from "../domain/geojson";
import type { Account, Bindings, Db } from "../env";
import type { FieldError } from "../lib/jsend";
import { basemapConfig, mapStreets } from "./basemap";
import {
  areaOf,
  createFlight,
  type FlightCreatedModel,
  type FormBody,
  type FormState,
  initialForm,
  loadAirspace,
  loadMapContext,
  type OpenedLink,
  openLink,
  type PageApiClient,
  type PageModel,
  pageModel,
  readForm,
} from "./createFlightFlow";
import { pageKeyId } from "./liveAccess";
import { mapBasemap, mapImageSources, mapTerrain } from "./mapTerrain";
import {
  type BrowserBinding,
  finishProviderSignIn,
  issueLinkGrant,
  type PageSignIn,
  pageSignIn,
  redeemForToken,
  signInCookieName,
  startProviderSignIn,
} from "./pageSignIn";

/**
 * The web flight-creation page (spec 4.7) decided: the link opened, the pilot signed in, the form
 * checked and the flight created through the public API. The route turns each answer into HTTP.
 */

/** What the page's Content-Security-Policy must allow for its map. */
export interface PageSources {
  /** The vector basemap is drawn: its code and tiles are allowed. */
  vectorBasemap: boolean;
  /** The img-src of the basemap's raster tiles. */
  imageSources: string;
}

export type CreateFlightPageAnswer =
  /** The form, again with its errors when there are any (the route answers 400 then). */
  | { kind: "form"; model: PageModel; sources: PageSources }
  /** The flight exists: the result page, or straight to `result.returnUrl` for a client that asks for no page. */
  | { kind: "created"; result: FlightCreatedModel; sources: PageSources }
  /** The link cannot be used (400). */
  | { kind: "problem"; problems: FieldError[]; sources: PageSources };

export type PageSignInAnswer =
  /** `browser`: the cookie binding a sign-in that starts to this browser. */
  | { kind: "redirect"; location: string; browser?: BrowserBinding }
  | { kind: "problem"; problems: FieldError[]; sources: PageSources };

export interface PageRequest {
  url: URL;
  acceptLanguage: string | undefined;
  /** The public API in the account's name; the caller counts the page against the account's limit first. */
  apiFor: (account: Account) => PageApiClient;
  /** Keeps background work (the elevation cache) alive after the answer. */
  waitUntil: (work: Promise<unknown>) => void;
  /**
   * Runs the opened page in its account's share of expensive work (1 page at once), so a flood of
   * one account's pages queues behind that account instead of in front of the others.
   */
  withinShare: <T>(accountId: string, work: () => Promise<T>) => Promise<T>;
}

const isDevelopment = (env: Bindings) => env.ENVIRONMENT === "development";

function pageSources(env: Bindings): PageSources {
  return {
    vectorBasemap: basemapConfig(env) !== undefined,
    imageSources: mapImageSources(mapBasemap(env)),
  };
}

/** The link opened, the API reached in its account's name, and who may create the flight. */
async function openPage(env: Bindings, db: Db, request: PageRequest) {
  const { url, acceptLanguage } = request;
  const opened = await openLink(db, url.searchParams, acceptLanguage, isDevelopment(env));
  if (!opened.ok) return opened;
  const { link } = opened;
  const api = request.apiFor(actingAccount(link));
  const signIn = await pageSignIn(env, db, link.account.id, url.searchParams);
  return { ok: true as const, link, api, signIn };
}

/** The form as the link pre-fills it, with the airspace of its area. */
export async function showCreateFlightPage(
  env: Bindings,
  db: Db,
  request: PageRequest,
): Promise<CreateFlightPageAnswer> {
  const opened = await openPage(env, db, request);
  if (!opened.ok) return { kind: "problem", problems: opened.problems, sources: pageSources(env) };
  return request.withinShare(opened.link.account.id, () => showOpenedPage(env, db, request, opened));
}

type OpenedPage = Extract<Awaited<ReturnType<typeof openPage>>, { ok: true }>;

async function showOpenedPage(
  env: Bindings,
  db: Db,
  request: PageRequest,
  { link, api, signIn }: OpenedPage,
): Promise<CreateFlightPageAnswer> {
  const form = initialForm(link);
  const area = areaOf(link, form);
  const [airspace, context] = await Promise.all([
    loadAirspace(api, area, (rulesets) => initialSelection(rulesets, link.request.rulesetIds)),
    mapContextWithGround(env, db, area, form, request.waitUntil),
  ]);
  const model = pageModel(link, form, airspace, area, request.url, [], signIn, context);
  return { kind: "form", model, sources: pageSources(env) };
}

/**
 * The posted form: previewed, or the flight created for the pilot the link's grant names. `readBody`
 * is read only once the link opened.
 */
export async function submitCreateFlightPage(
  env: Bindings,
  db: Db,
  request: PageRequest,
  readBody: () => Promise<FormBody>,
): Promise<CreateFlightPageAnswer> {
  const opened = await openPage(env, db, request);
  if (!opened.ok) return { kind: "problem", problems: opened.problems, sources: pageSources(env) };
  return request.withinShare(opened.link.account.id, () =>
    submitOpenedPage(env, db, request, readBody, opened),
  );
}

async function submitOpenedPage(
  env: Bindings,
  db: Db,
  request: PageRequest,
  readBody: () => Promise<FormBody>,
  opened: OpenedPage,
): Promise<CreateFlightPageAnswer> {
  const { link, api } = opened;
  let { signIn } = opened;
  const { url } = request;
  const body = await readBody();
  const { form, errors } = readForm(link, body);
  const area = areaOf(link, form);
  const airspace = await loadAirspace(api, area, () => form.selected);
  let pageUrl = url;
  if (body.action !== "preview") {
    // A typed user id never names the pilot: only the link's grant (from the builder or a sign-in).
    if (signIn.kind !== "grant") errors.unshift({ name: "sign_in", message: signInProblem(signIn) });
    if (!airspace.rulesetsLoaded) {
      errors.push({
        name: "form",
        message: "The flight cannot be created while the rulesets cannot be loaded; try again",
      });
    }
    const problem = selectionProblem(airspace.rulesets, form.selected);
    if (problem) errors.push({ name: "rulesets", message: problem });
    if (errors.length === 0) {
      const redeemed = await redeemForToken(env, db, link.account.id, url.searchParams.get("grant")!);
      if (!redeemed) {
        signIn = await pageSignIn(env, db, link.account.id, url.searchParams);
        errors.push({ name: "sign_in", message: signInProblem(signIn) });
      } else {
        const created = await createFlight(
          api,
          link,
          form,
          completeSelection(airspace.rulesets, form.selected),
          redeemed.token,
        );
        if (created.ok) {
          // The pilot reads what happens next, then returns to the app through the callback.
          const callback = link.request.callbackUrl;
          const result = {
            appName: link.account.name,
            flightId: created.flightId,
            authorizations: created.authorizations,
            pages: created.pages,
            returnUrl: callback && callbackRedirect(callback, created.flightId, created.authorizations),
          };
          return { kind: "created", result, sources: pageSources(env) };
        }
        errors.push(...created.errors);
        // The grant is spent: the pilot corrects the form under a fresh one for the same pilot.
        const { grant } = await issueLinkGrant(db, link.account.id, redeemed.pilotId);
        pageUrl = new URL(url);
        pageUrl.searchParams.set("grant", grant);
      }
    }
  }
  const context = await mapContextWithGround(env, db, area, form, request.waitUntil);
  const model = pageModel(link, form, airspace, area, pageUrl, errors, signIn, context);
  return { kind: "form", model, sources: pageSources(env) };
}

function signInProblem(signIn: PageSignIn): string {
  if (signIn.kind === "provider") return "sign in first: the flight is created only for a signed-in pilot";
  if (signIn.kind === "grantUsed") return "this link's sign-in has been used or has expired";
  return "this application has not set up pilot sign-in: no flight can be created here";
}

/** Sends the pilot to the account's provider (authorization code + PKCE). */
export async function startPageSignIn(
  env: Bindings,
  db: Db,
  url: URL,
  origin: string,
  acceptLanguage: string | undefined,
): Promise<PageSignInAnswer> {
  const opened = await openLink(db, url.searchParams, acceptLanguage, isDevelopment(env));
  if (!opened.ok) return { kind: "problem", problems: opened.problems, sources: pageSources(env) };
  const started = await startProviderSignIn(env, db, opened.link.account.id, url.searchParams, origin);
  if (!started.ok) return signInRefused(env, started.problem);
  return { kind: "redirect", location: started.redirect, browser: started.browser };
}

/** The browser's sign-in cookies, as the route reads and deletes them. */
export interface SignInCookies {
  read: (name: string) => string | undefined;
  forget: (name: string) => void;
}

/** The provider's answer: back to the link's page with a grant for the pilot who signed in. */
export async function finishPageSignIn(
  env: Bindings,
  db: Db,
  params: Parameters<typeof finishProviderSignIn>[2],
  origin: string,
  cookies: SignInCookies,
): Promise<PageSignInAnswer> {
  const cookieName = params.state ? signInCookieName(params.state) : undefined;
  const browserSecret = cookieName ? cookies.read(cookieName) : undefined;
  // Used or refused, this sign-in is over: its cookie goes.
  if (cookieName && browserSecret !== undefined) cookies.forget(cookieName);
  const finished = await finishProviderSignIn(env, db, params, origin, browserSecret);
  if (!finished.ok) return signInRefused(env, finished.problem);
  return { kind: "redirect", location: finished.redirect };
}

function signInRefused(env: Bindings, problem: string): PageSignInAnswer {
  return { kind: "problem", problems: [{ name: "sign_in", message: problem }], sources: pageSources(env) };
}

/** The map's context from the embedded data and its ground from the elevation tiles, read together. */
async function mapContextWithGround(
  env: Bindings,
  db: Db,
  area: Polygon,
  form: Omit<FormState, "selected">,
  waitUntil: (work: Promise<unknown>) => void,
) {
  const frame = mapFrame(area);
  const [context, terrain, streets] = await Promise.all([
    loadMapContext(db, area, form),
    mapTerrain(env.ELEVATION, frame, waitUntil),
    mapStreets(env, frame),
  ]);
  return {
    ...context,
    terrain,
    streets,
    basemap: mapBasemap(env),
    vectorBasemap: basemapConfig(env) !== undefined,
  };
}

/** The account as the API sees it when the page calls in its name (no key: the page has none). */
function actingAccount(link: OpenedLink): Account {
  const { id, publicId, name, rateLimitPerMinute } = link.account;
  return { id, publicId, name, rateLimitPerMinute, keyId: pageKeyId(publicId) };
}
