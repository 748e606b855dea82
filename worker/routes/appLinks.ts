import type { Context } from "hono";
import { createRouter } from "../app";
import {
  appleAppSiteAssociation,
  assetLinks,
  destination,
  platformOf,
  readOuterLink,
} from "../domain/deeplink/outerLink";
import type { AppEnv, Bindings } from "../env";
import { ApiError, problemError } from "../lib/errors";
import { errorBody } from "../lib/jsend";
import { publicOrigin } from "../lib/publicOrigin";
import { renderOpenLink } from "../pages/openLink";
import { OUTER_LINK_PATH } from "../services/deeplinks";

/**
 * The outer deep link (spec 4.7) served by the service itself, and the association files that let
 * the operator's apps open this host's links directly (iOS universal links, Android App Links).
 */

/** The paths the apps claim: the creation link and the outer link. */
const APP_PATHS = ["/create_flight/v1/*", OUTER_LINK_PATH];

/** Origins a creation link and the fallbacks may point at: this service and the app-link base. */
function linkOrigins(env: Bindings, origin: string): string[] {
  const origins = [origin];
  if (env.DEEPLINK_APP_LINK_BASE) {
    try {
      origins.push(new URL(env.DEEPLINK_APP_LINK_BASE).origin);
    } catch {
      // An unparsable base is reported where links are built; here it allows nothing more.
    }
  }
  return origins;
}

export const appLinkRoutes = createRouter()
  .get(OUTER_LINK_PATH, (c) => {
    const url = new URL(c.req.url);
    const read = readOuterLink(
      url.searchParams,
      linkOrigins(c.env, publicOrigin(c)),
      c.env.DEEPLINK_OFL || undefined,
    );
    if (!read.ok) throw problemError(read.problems);
    const platform = platformOf(c.req.header("user-agent"));
    const where = destination(read.value, platform);
    c.header("Cache-Control", "no-store");
    c.header("Referrer-Policy", "no-referrer");
    // Varies by platform: caches must not hand an iPhone the Android answer.
    c.header("Vary", "User-Agent");
    if (read.value.skipPreview) return c.redirect(where.location, 302);
    c.header(
      "Content-Security-Policy",
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    return c.html(renderOpenLink(where, platform), 200);
  })
  .get("/.well-known/apple-app-site-association", (c) => {
    const teamId = c.env.DEEPLINK_APPLE_TEAM_ID;
    if (!teamId || !c.env.DEEPLINK_IBI) throw notConfigured("DEEPLINK_APPLE_TEAM_ID and DEEPLINK_IBI");
    if (!/^[A-Z0-9]{10}$/.test(teamId))
      return misconfigured(c, "DEEPLINK_APPLE_TEAM_ID must be the 10-character Apple team id");
    return association(c, appleAppSiteAssociation(teamId, c.env.DEEPLINK_IBI, APP_PATHS));
  })
  .get("/.well-known/assetlinks.json", (c) => {
    const fingerprints = c.env.DEEPLINK_ANDROID_SHA256;
    if (!fingerprints || !c.env.DEEPLINK_APN) throw notConfigured("DEEPLINK_ANDROID_SHA256 and DEEPLINK_APN");
    const links = assetLinks(c.env.DEEPLINK_APN, fingerprints.split(","));
    if (!links.ok)
      return misconfigured(
        c,
        `DEEPLINK_ANDROID_SHA256 holds values that are not SHA-256 fingerprints (AB:CD:… 32 bytes): ${links.bad.join(", ")}`,
      );
    return association(c, links.value);
  });

/** Served as JSON at its fixed name, without redirects (both platforms refuse them). */
function association(c: Context<AppEnv>, body: unknown) {
  c.header("Cache-Control", "public, max-age=3600");
  return c.json(body as object, 200);
}

function notConfigured(vars: string): ApiError {
  return new ApiError(404, `No app association is configured: the operator sets ${vars}`);
}

/** The operator's values are wrong: 503, as for any service the operator has not set up right. */
function misconfigured(c: Context<AppEnv>, message: string) {
  return c.json(errorBody(503, `The app association is misconfigured: ${message}`), 503);
}
