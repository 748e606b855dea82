import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createRouter } from "../app";
import {
  callbackPrefixProblem,
  callbackProblem,
  callbackRedirect,
  normalizePrefix,
} from "../domain/deeplink/callbacks";
import { registerHint } from "../domain/deeplink/firstParty";
import {
  checkLinkFields,
  creationLink,
  type DynamicLinkConfig,
  dynamicLink,
  linkLengthProblem,
} from "../domain/deeplink/link";
import { completeSelection, initialSelection, selectionProblem } from "../domain/deeplink/rulesets";
import type { AppEnv, Bindings } from "../env";
import { badRequest, problemError } from "../lib/errors";
import { success } from "../lib/jsend";
import { geometryInput, jsonBody, responses, security } from "../lib/openapi";
import { takeAccountPageRequest } from "../middleware/publicRateLimit";
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
import { addCallbackPrefix, listCallbackPrefixes } from "../store/callbacks";
import { unknownRulesetIds } from "../store/rulesets";

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
  security,
  request: { body: jsonBody(LinkRequest) },
  responses: responses(
    z.object({ link: z.string() }),
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

/** The operator's values, refused when unset: a link without them would not open the app. */
function dynamicLinkConfig(env: Bindings): DynamicLinkConfig {
  const config = {
    baseUrl: env.DEEPLINK_BASE_URL,
    apn: env.DEEPLINK_APN,
    isi: env.DEEPLINK_ISI,
    ibi: env.DEEPLINK_IBI,
    ofl: env.DEEPLINK_OFL,
    pt: env.DEEPLINK_PT,
  };
  const missing = Object.entries(config).filter(([, value]) => !value);
  if (missing.length > 0)
    throw new Error(`deep link not configured: set ${missing.map(([k]) => k).join(", ")}`);
  return config;
}

export const deeplinkRoutes = createRouter()
  .openapi(createFlightLink, async (c) => {
    const check = checkLinkFields(c.req.valid("json"), "refuse");
    if (!check.ok) throw problemError(check.problems);
    const request = check.value;
    const account = c.var.account;
    if (request.callbackUrl !== undefined) {
      const prefixes = (await listCallbackPrefixes(c.var.db, account.id)).map((p) => p.url);
      const problem = callbackProblem(
        request.callbackUrl,
        prefixes,
        isDevelopment(c.env),
        registerHint(account.publicId),
      );
      if (problem) throw badRequest("callback_url", problem);
    }
    const unknown = await unknownRulesetIds(c.var.db, request.rulesetIds ?? []);
    if (unknown.length > 0) throw badRequest("ruleset_ids", `unknown rulesets: ${unknown.join(", ")}`);
    const appLinkBase = c.env.DEEPLINK_APP_LINK_BASE || new URL(c.req.url).origin;
    const creation = creationLink(appLinkBase, account.publicId, request);
    const link = dynamicLink(dynamicLinkConfig(c.env), creation, account.publicId);
    const tooLong = linkLengthProblem(creation, "creation link") ?? linkLengthProblem(link, "link");
    if (tooLong) throw problemError([tooLong]);
    return success(c, { link });
  })
  .openapi(listCallbacks, async (c) => success(c, await listCallbackPrefixes(c.var.db, c.var.account.id)))
  .openapi(addCallback, async (c) => {
    const { url } = c.req.valid("json");
    const problem = callbackPrefixProblem(url, isDevelopment(c.env));
    if (problem) throw badRequest("url", problem);
    const normalized = normalizePrefix(url);
    await addCallbackPrefix(c.var.db, c.var.account.id, normalized, Date.now());
    const stored = (await listCallbackPrefixes(c.var.db, c.var.account.id)).find(
      (p) => p.url === normalized,
    )!;
    return success(c, stored);
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
    .post(PAGE_PATH, (c) => answerPage(c, apiFetch, "submit"));
}

async function answerPage(c: Context<AppEnv>, apiFetch: ApiFetch, mode: "show" | "submit") {
  const url = new URL(c.req.url);
  const acceptLanguage = c.req.header("accept-language");
  const opened = await openLink(c.var.db, url.searchParams, acceptLanguage, isDevelopment(c.env));
  if (!opened.ok) return page(c, await renderLinkProblem(opened.problems), 400);
  const { link } = opened;
  takeAccountPageRequest(c.env, link.account.id);
  const api = new PageApi(apiFetch, c.env, actingAccount(link), url.origin, acceptLanguage);

  if (mode === "show") {
    const form = initialForm(link);
    const area = areaOf(link, form);
    const [airspace, context] = await Promise.all([
      loadAirspace(api, area, (rulesets) => initialSelection(rulesets, link.request.rulesetIds)),
      loadMapContext(c.var.db, area, form),
    ]);
    return page(
      c,
      await renderCreateFlight(pageModel(link, form, airspace, area, url, [], context)),
      200,
      link,
    );
  }

  const body = await c.req.parseBody({ all: true });
  const { form, errors } = readForm(link, body);
  const area = areaOf(link, form);
  const airspace = await loadAirspace(api, area, () => form.selected);
  if (body.action !== "preview") {
    if (form.userId === "") errors.unshift({ name: "user_id", message: "enter your user id to sign in" });
    if (!airspace.rulesetsLoaded) {
      errors.push({
        name: "form",
        message: "The flight cannot be created while the rulesets cannot be loaded; try again",
      });
    }
    const problem = selectionProblem(airspace.rulesets, form.selected);
    if (problem) errors.push({ name: "rulesets", message: problem });
    if (errors.length === 0) {
      const created = await createFlight(
        api,
        link,
        form,
        completeSelection(airspace.rulesets, form.selected),
      );
      if (created.ok) {
        const callback = link.request.callbackUrl;
        if (callback)
          return c.redirect(callbackRedirect(callback, created.flightId, created.authorizations), 303);
        return page(c, await renderFlightCreated(created.flightId, created.authorizations), 200, link);
      }
      errors.push(...created.errors);
    }
  }
  const model = pageModel(
    link,
    form,
    airspace,
    area,
    url,
    errors,
    await loadMapContext(c.var.db, area, form),
  );
  return page(c, await renderCreateFlight(model), errors.length > 0 ? 400 : 200, link);
}

/** The account as the API sees it when the page calls in its name (no key: the page has none). */
function actingAccount(link: OpenedLink) {
  const { id, publicId, name, rateLimitPerMinute } = link.account;
  return { id, publicId, name, rateLimitPerMinute, keyId: `page|${publicId}` };
}

/**
 * No scripts, no framing, no referrer; forms post only here, and the redirect after the post may
 * go only to the link's own (already allowed) callback origin.
 */
function page(c: Context<AppEnv>, html: string, status: 200 | 400, link?: OpenedLink) {
  const callback = link?.request.callbackUrl;
  const formTargets = ["'self'", ...(callback ? [new URL(callback).origin] : [])].join(" ");
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action ${formTargets}; frame-ancestors 'none'; base-uri 'none'`,
  );
  c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", "no-store");
  return c.html(html, status);
}
