import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createRouter } from "../app";
import { callbackRedirect } from "../domain/deeplink/callbacks";
import { mapFrame } from "../domain/deeplink/mapView";
import { completeSelection, initialSelection, selectionProblem } from "../domain/deeplink/rulesets";
import type { Polygon } from "../domain/geojson";
import type { AppEnv, Bindings } from "../env";
import { success } from "../lib/jsend";
import { geometryInput, jsonBody, responses, security, securityWithToken } from "../lib/openapi";
import { isoTime } from "../lib/time";
import { withAccountWork } from "../middleware/accountWork";
import { takeAccountPageRequest } from "../middleware/publicRateLimit";
import { optionalToken } from "../middleware/token";
import { type ApiFetch, PageApi } from "../pages/api";
import { renderCreateFlight, renderFlightCreated, renderLinkProblem } from "../pages/createFlight";
import {
  areaOf,
  createFlight,
  initialForm,
  loadAirspace,
  loadMapContext,
  type OpenedLink,
  openLink,
  pageModel,
  readForm,
} from "../pages/createFlightFlow";
import { mapPageSources } from "../pages/map/vectorBasemap";
import { basemapConfig } from "../services/basemap";
import { flightCreationLink, registerCallbackPrefix } from "../services/deeplinks";
import { pageKeyId } from "../services/liveAccess";
import { mapBasemap, mapImageSources, mapTerrain } from "../services/mapTerrain";
import {
  finishProviderSignIn,
  issueLinkGrant,
  type PageSignIn,
  pageSignIn,
  redeemForToken,
  SIGN_IN_PATH,
  SIGNED_IN_PATH,
  startProviderSignIn,
} from "../services/pageSignIn";
import { listCallbackPrefixes } from "../store/callbacks";

const LinkRequest = z
  .object({
    geometry: geometryInput,
    callback_url: z
      .string()
      .optional()
      .openapi({ description: "Must start with one of the account's registered callback prefixes" }),
    altitude: z.number().optional().openapi({ description: "Maximum altitude AGL to pre-fill, meters" }),
    buffer: z.number().optional().openapi({ description: "Buffer in meters; only for LineString and Point" }),
    ruleset_ids: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .openapi({ description: "Rulesets to enable: comma-separated or an array", example: "usa_part_107" }),
  })
  .openapi("CreateFlightLinkRequest");

const CallbackPrefix = z.object({ url: z.string(), created_at: z.string() }).openapi("CallbackPrefix");

const createFlightLink = createRoute({
  method: "post",
  path: "/deeplink/v1/create_flight",
  tags: ["Deep link"],
  summary: "Build the dynamic link that opens flight creation in the app (or its web page) for this account",
  description:
    "With the pilot's bearer token, the link carries a single-use sign-in for that pilot (valid 15 minutes): the web page creates the flight for them. Without one, the page signs the pilot in through the application's identity provider, or creates nothing.",
  security: securityWithToken,
  middleware: [optionalToken] as const,
  request: { body: jsonBody(LinkRequest) },
  responses: responses(
    z.object({ link: z.string(), sign_in_expires_at: z.string().optional() }),
    "The outer dynamic link; its `link` parameter is the creation link",
  ),
});

const listCallbacks = createRoute({
  method: "get",
  path: "/deeplink/v1/callbacks",
  tags: ["Deep link"],
  summary: "The callback URL prefixes this account allows",
  security,
  responses: responses(z.array(CallbackPrefix), "Registered prefixes, oldest first"),
});

const addCallback = createRoute({
  method: "post",
  path: "/deeplink/v1/callbacks",
  tags: ["Deep link"],
  summary: "Allow callbacks under a URL prefix (https; http only for localhost in development)",
  security,
  request: {
    body: {
      content: {
        "application/json": { schema: z.object({ url: z.string().max(2048) }).openapi("CallbackPrefixAdd") },
      },
      required: true,
    },
  },
  responses: responses(CallbackPrefix, "The prefix as stored (normalized)"),
});

const isDevelopment = (env: Bindings) => env.ENVIRONMENT === "development";

export const deeplinkRoutes = createRouter()
  .openapi(createFlightLink, async (c) => {
    const origin = new URL(c.req.url).origin;
    const fields = c.req.valid("json");
    const made = await flightCreationLink(c.env, c.var.db, c.var.account, c.var.pilotId, fields, origin);
    return success(
      c,
      made.signInExpiresAt === undefined
        ? { link: made.link }
        : { link: made.link, sign_in_expires_at: isoTime(made.signInExpiresAt) },
    );
  })
  .openapi(listCallbacks, async (c) => success(c, await listCallbackPrefixes(c.var.db, c.var.account.id)))
  .openapi(addCallback, async (c) => {
    const { url } = c.req.valid("json");
    return success(c, await registerCallbackPrefix(c.env, c.var.db, c.var.account.id, url, Date.now()));
  });

// Non-strict routing matches it with and without the trailing slash of the link.
const PAGE_PATH = "/create_flight/v1";

/**
 * The web flight-creation page (spec 4.7), public: it acts for the account its link names by
 * `client_id` (the service's own application when it names none), through the API that `apiFetch` serves. It works without scripts: the form posts
 * back here, and the pilot either sees the form again with its errors or goes on to the callback.
 */
export function createFlightPageRoutes(apiFetch: ApiFetch) {
  return createRouter()
    .get(PAGE_PATH, (c) => answerPage(c, apiFetch, "show"))
    .post(PAGE_PATH, (c) => answerPage(c, apiFetch, "submit"))
    .get(SIGN_IN_PATH, startSignIn)
    .get(SIGNED_IN_PATH, finishSignIn);
}

async function answerPage(c: Context<AppEnv>, apiFetch: ApiFetch, mode: "show" | "submit") {
  const url = new URL(c.req.url);
  const acceptLanguage = c.req.header("accept-language");
  const opened = await openLink(c.var.db, url.searchParams, acceptLanguage, isDevelopment(c.env));
  if (!opened.ok) return page(c, await renderLinkProblem(opened.problems), 400);
  const { link } = opened;
  takeAccountPageRequest(c.env, link.account.id);
  // The whole page runs in the link's account's share of expensive work, 1 at once (PAGE_CONCURRENCY):
  // its API calls take a second turn of the 2 (EXPENSIVE_CONCURRENCY), so they never wait on a page.
  return withAccountWork(c.env, link.account.id, () =>
    answerOpenedPage(c, apiFetch, mode, link, url, acceptLanguage),
  );
}

async function answerOpenedPage(
  c: Context<AppEnv>,
  apiFetch: ApiFetch,
  mode: "show" | "submit",
  link: OpenedLink,
  url: URL,
  acceptLanguage: string | undefined,
) {
  const api = new PageApi(apiFetch, c.env, actingAccount(link), url.origin, acceptLanguage);
  let signIn = await pageSignIn(c.env, c.var.db, link.account.id, url.searchParams);

  if (mode === "show") {
    const form = initialForm(link);
    const area = areaOf(link, form);
    const [airspace, context] = await Promise.all([
      loadAirspace(api, area, (rulesets) => initialSelection(rulesets, link.request.rulesetIds)),
      mapContextWithGround(c, area, form),
    ]);
    return page(
      c,
      await renderCreateFlight(pageModel(link, form, airspace, area, url, [], signIn, context)),
      200,
    );
  }

  const body = await c.req.parseBody({ all: true });
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
      const redeemed = await redeemForToken(c.env, c.var.db, link.account.id, url.searchParams.get("grant")!);
      if (!redeemed) {
        signIn = await pageSignIn(c.env, c.var.db, link.account.id, url.searchParams);
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
          // A client that asks for no page follows the contract's redirect to the callback at once.
          if (result.returnUrl && !acceptsHtml(c.req.header("Accept")))
            return c.redirect(result.returnUrl, 303);
          return page(c, await renderFlightCreated(result), 200);
        }
        errors.push(...created.errors);
        // The grant is spent: the pilot corrects the form under a fresh one for the same pilot.
        const { grant } = await issueLinkGrant(c.var.db, link.account.id, redeemed.pilotId);
        pageUrl = new URL(url);
        pageUrl.searchParams.set("grant", grant);
      }
    }
  }
  const model = pageModel(
    link,
    form,
    airspace,
    area,
    pageUrl,
    errors,
    signIn,
    await mapContextWithGround(c, area, form),
  );
  return page(c, await renderCreateFlight(model), errors.length > 0 ? 400 : 200);
}

function signInProblem(signIn: PageSignIn): string {
  if (signIn.kind === "provider") return "sign in first: the flight is created only for a signed-in pilot";
  if (signIn.kind === "grantUsed") return "this link's sign-in has been used or has expired";
  return "this application has not set up pilot sign-in: no flight can be created here";
}

/** Sends the pilot to the account's provider (authorization code + PKCE). */
async function startSignIn(c: Context<AppEnv>) {
  const url = new URL(c.req.url);
  const opened = await openLink(
    c.var.db,
    url.searchParams,
    c.req.header("accept-language"),
    isDevelopment(c.env),
  );
  if (!opened.ok) return page(c, await renderLinkProblem(opened.problems), 400);
  const started = await startProviderSignIn(
    c.env,
    c.var.db,
    opened.link.account.id,
    url.searchParams,
    url.origin,
  );
  if (!started.ok)
    return page(c, await renderLinkProblem([{ name: "sign_in", message: started.problem }]), 400);
  c.header("Cache-Control", "no-store");
  return c.redirect(started.redirect, 303);
}

/** The provider's answer: back to the link's page with a grant for the pilot who signed in. */
async function finishSignIn(c: Context<AppEnv>) {
  const q = (name: string) => c.req.query(name) || undefined;
  const params = {
    state: q("state"),
    code: q("code"),
    error: q("error"),
    errorDescription: q("error_description"),
  };
  const finished = await finishProviderSignIn(c.env, c.var.db, params, new URL(c.req.url).origin);
  if (!finished.ok)
    return page(c, await renderLinkProblem([{ name: "sign_in", message: finished.problem }]), 400);
  c.header("Cache-Control", "no-store");
  return c.redirect(finished.redirect, 303);
}

/** The map's context from the embedded data and its ground from the elevation tiles, read together. */
async function mapContextWithGround(
  c: Context<AppEnv>,
  area: Polygon,
  form: Parameters<typeof loadMapContext>[2],
) {
  const [context, terrain] = await Promise.all([
    loadMapContext(c.var.db, area, form),
    mapTerrain(c.env.ELEVATION, mapFrame(area), (p) => c.executionCtx.waitUntil(p)),
  ]);
  return {
    ...context,
    terrain,
    basemap: mapBasemap(c.env),
    vectorBasemap: basemapConfig(c.env) !== undefined,
  };
}

/** The account as the API sees it when the page calls in its name (no key: the page has none). */
function actingAccount(link: OpenedLink) {
  const { id, publicId, name, rateLimitPerMinute } = link.account;
  return { id, publicId, name, rateLimitPerMinute, keyId: pageKeyId(publicId) };
}

/**
 * No scripts, no framing, no referrer; forms post only here (the way back to the app's callback is
 * a link the pilot follows from the result page).
 */
async function page(c: Context<AppEnv>, html: string, status: 200 | 400) {
  const map = await mapPageSources(basemapConfig(c.env) !== undefined, "none");
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; script-src ${map.script}; style-src ${map.style}; connect-src ${map.connect}; worker-src ${map.worker}; img-src ${mapImageSources(mapBasemap(c.env))}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  );
  c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", "no-store");
  return c.html(html, status);
}

/** Browsers ask for HTML by name; scripted clients send any type or no Accept at all. */
function acceptsHtml(accept: string | undefined): boolean {
  return accept?.includes("text/html") ?? false;
}
