import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { createRouter } from "../app";
import type { AppEnv } from "../env";
import { success } from "../lib/jsend";
import { geometryInput, jsonBody, responses, security, securityWithToken } from "../lib/openapi";
import { publicOrigin } from "../lib/publicOrigin";
import { isoTime } from "../lib/time";
import { withVisitorWork } from "../middleware/accountWork";
import { clientAddress, takeAccountVisitorRequest, takeSignInStart } from "../middleware/publicRateLimit";
import { optionalToken } from "../middleware/token";
import { type ApiFetch, PageApi } from "../pages/api";
import { renderCreateFlight, renderFlightCreated, renderLinkProblem } from "../pages/createFlight";
import { mapPageSources } from "../pages/map/vectorBasemap";
import {
  type CreateFlightPageAnswer,
  finishPageSignIn,
  type PageRequest,
  type PageSignInAnswer,
  type PageSources,
  showCreateFlightPage,
  startPageSignIn,
  submitCreateFlightPage,
} from "../services/createFlightPage";
import { flightCreationLink, registerCallbackPrefix } from "../services/deeplinks";
import { SIGN_IN_LIFETIME_MS, SIGN_IN_PATH, SIGNED_IN_PATH } from "../services/pageSignIn";
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

export const deeplinkRoutes = createRouter()
  .openapi(createFlightLink, async (c) => {
    const origin = publicOrigin(c);
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
    .get(PAGE_PATH, async (c) =>
      answerPage(c, await showCreateFlightPage(c.env, c.var.db, pageRequest(c, apiFetch))),
    )
    .post(PAGE_PATH, async (c) =>
      answerPage(
        c,
        await submitCreateFlightPage(c.env, c.var.db, pageRequest(c, apiFetch), () =>
          c.req.parseBody({ all: true }),
        ),
      ),
    )
    .get(SIGN_IN_PATH, async (c) => {
      // Each start writes a row: a few a minute per address, beyond the keyless limits.
      takeSignInStart(c.req.header("cf-connecting-ip"));
      const url = new URL(c.req.url);
      const origin = publicOrigin(c);
      return answerSignIn(
        c,
        await startPageSignIn(c.env, c.var.db, url, origin, c.req.header("accept-language")),
      );
    })
    .get(SIGNED_IN_PATH, async (c) => {
      const q = (name: string) => c.req.query(name) || undefined;
      const params = {
        state: q("state"),
        code: q("code"),
        error: q("error"),
        errorDescription: q("error_description"),
      };
      const cookies = {
        read: (name: string) => getCookie(c, name),
        forget: (name: string) => deleteCookie(c, name, { path: SIGNED_IN_PATH }),
      };
      const origin = publicOrigin(c);
      return answerSignIn(c, await finishPageSignIn(c.env, c.var.db, params, origin, cookies));
    });
}

/** The page's request: its address and language, and the API it calls in the link's account's name. */
function pageRequest(c: Context<AppEnv>, apiFetch: ApiFetch): PageRequest {
  const url = new URL(c.req.url);
  const acceptLanguage = c.req.header("accept-language");
  return {
    url,
    acceptLanguage,
    apiFor: (account) => {
      // Counted once the link named its account, before the page calls the API for it.
      takeAccountVisitorRequest(c.env, account.id);
      return new PageApi(apiFetch, c.env, account, url.origin, acceptLanguage);
    },
    waitUntil: (work) => c.executionCtx.waitUntil(work),
    // A visitor's page, in the visitor's share and then the account's public pages' share (never the
    // share of the account's own keys); its API calls take that share's second turn.
    withinShare: (accountId, work) =>
      withVisitorWork(c.env, clientAddress(c.req.header("cf-connecting-ip")), accountId, work),
  };
}

async function answerPage(c: Context<AppEnv>, answer: CreateFlightPageAnswer) {
  if (answer.kind === "problem")
    return page(c, await renderLinkProblem(answer.problems), 400, answer.sources);
  if (answer.kind === "form")
    return page(
      c,
      await renderCreateFlight(answer.model),
      answer.model.errors.length > 0 ? 400 : 200,
      answer.sources,
    );
  // A client that asks for no page follows the contract's redirect to the callback at once.
  if (answer.result.returnUrl && !acceptsHtml(c.req.header("Accept")))
    return c.redirect(answer.result.returnUrl, 303);
  return page(c, await renderFlightCreated(answer.result), 200, answer.sources);
}

async function answerSignIn(c: Context<AppEnv>, answer: PageSignInAnswer) {
  if (answer.kind === "problem")
    return page(c, await renderLinkProblem(answer.problems), 400, answer.sources);
  if (answer.browser)
    // Lax: the provider sends the browser back with a top-level GET from its own site.
    setCookie(c, answer.browser.cookieName, answer.browser.secret, {
      path: SIGNED_IN_PATH,
      httpOnly: true,
      sameSite: "Lax",
      secure: c.env.ENVIRONMENT !== "development" || new URL(c.req.url).protocol === "https:",
      maxAge: SIGN_IN_LIFETIME_MS / 1000,
    });
  c.header("Cache-Control", "no-store");
  return c.redirect(answer.location, 303);
}

/**
 * No scripts, no framing, no referrer; forms post only here (the way back to the app's callback is
 * a link the pilot follows from the result page).
 */
async function page(c: Context<AppEnv>, html: string, status: 200 | 400, sources: PageSources) {
  const map = await mapPageSources(sources.vectorBasemap, []);
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; script-src ${map.script}; style-src ${map.style}; connect-src ${map.connect}; worker-src ${map.worker}; img-src ${sources.imageSources}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
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
