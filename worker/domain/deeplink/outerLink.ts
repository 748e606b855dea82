import type { Problem } from "../problem";

/**
 * The outer link of spec 4.7 served by this service, doing what Firebase Dynamic Links did (shut
 * down in August 2025) with the same parameters, so links apps already build keep working:
 * on Android the app by an intent (its Play Store page when it is not installed), on iOS the App
 * Store (an installed app opens the link itself, as a universal link, before it reaches us), on a
 * desktop `ofl` or the creation page. `efr=1` skips the page in between; without it a short page
 * offers the same choices.
 */

export type Platform = "android" | "ios" | "desktop";

export function platformOf(userAgent: string | undefined): Platform {
  const ua = userAgent ?? "";
  if (/Android/i.test(ua)) return "android";
  // iPadOS 13+ asks for desktop pages as "Macintosh" with touch: only the Mobile token tells it apart.
  if (/iPhone|iPad|iPod/i.test(ua) || (/Macintosh/.test(ua) && /Mobile\//.test(ua))) return "ios";
  return "desktop";
}

/** The outer link's parameters, checked. */
export interface OuterLink {
  /** The creation link (spec 4.7's `link`). */
  link: string;
  /** Android package name. */
  apn?: string;
  /** App Store id and iOS bundle id. */
  isi?: string;
  ibi?: string;
  /** Where a desktop goes, when allowed (see readOuterLink). */
  ofl?: string;
  /** Android / iOS fallbacks (Firebase's `afl`, `ifl`), under the same rule as `ofl`. */
  afl?: string;
  ifl?: string;
  skipPreview: boolean;
}

const PACKAGE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
const STORE_ID = /^\d{1,15}$/;
const BUNDLE_ID = /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

/**
 * The query of an outer link, or what is wrong with it. `link` must be a creation link
 * (`…/create_flight/v1/`) on one of `origins` (this service, and the operator's app-link base), and
 * the fallbacks must be there too or be the operator's own `ofl`: the service never redirects to
 * an address a link's author chose freely.
 */
export function readOuterLink(
  query: URLSearchParams,
  origins: string[],
  operatorOfl: string | undefined,
): { ok: true; value: OuterLink } | { ok: false; problems: Problem[] } {
  const problems: Problem[] = [];
  const allowed = (value: string) => value === operatorOfl || origins.includes(originOf(value) ?? "");
  const link = query.get("link") ?? "";
  const linkUrl = parseHttp(link);
  if (link === "") problems.push({ field: "link", message: "required: the URI-encoded creation link" });
  else if (!linkUrl || !/\/create_flight\/v1\/?$/.test(linkUrl.pathname) || !origins.includes(linkUrl.origin))
    problems.push({
      field: "link",
      message: `must be a creation link …/create_flight/v1/?geometry=… on ${origins.join(" or ")}`,
    });
  const formatted = (name: string, pattern: RegExp, what: string) => {
    const value = query.get(name);
    if (value === null || value === "") return undefined;
    if (pattern.test(value)) return value;
    problems.push({ field: name, message: `must be ${what}` });
    return undefined;
  };
  const apn = formatted("apn", PACKAGE, "an Android package name such as com.example.app");
  const isi = formatted("isi", STORE_ID, "a numeric App Store id");
  const ibi = formatted("ibi", BUNDLE_ID, "an iOS bundle id such as com.example.app");
  const fallback = (name: string) => {
    const value = query.get(name);
    if (value === null || value === "") return undefined;
    if (parseHttp(value) && allowed(value)) return value;
    problems.push({
      field: name,
      message: `must be the operator's desktop link (DEEPLINK_OFL) or an address on ${origins.join(" or ")}`,
    });
    return undefined;
  };
  const ofl = fallback("ofl");
  const afl = fallback("afl");
  const ifl = fallback("ifl");
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { link, apn, isi, ibi, ofl, afl, ifl, skipPreview: query.get("efr") === "1" } };
}

export function playStoreUrl(apn: string): string {
  return `https://play.google.com/store/apps/details?id=${encodeURIComponent(apn)}`;
}

export function appStoreUrl(isi: string): string {
  return `https://apps.apple.com/app/id${isi}`;
}

/**
 * Android's intent for the creation link: Chrome opens the app `apn` on it when installed (its
 * App Links filter), else goes to the fallback: `afl`, the Play Store page, or the web page.
 */
export function androidIntent(link: string, apn: string, fallback: string): string {
  const url = new URL(link);
  const scheme = url.protocol.slice(0, -1);
  return `intent://${url.host}${url.pathname}${url.search}#Intent;scheme=${scheme};package=${apn};S.browser_fallback_url=${encodeURIComponent(fallback)};end`;
}

export interface Destination {
  /** Where the link goes on this platform. */
  location: string;
  /** The choices the page in between offers (when `efr` is not 1), first the one `location` takes. */
  choices: { label: string; href: string }[];
}

export function destination(outer: OuterLink, platform: Platform): Destination {
  const web = { label: "Continue in the browser", href: outer.link };
  if (platform === "android" && outer.apn) {
    const store = outer.afl ?? playStoreUrl(outer.apn);
    const open = { label: "Open in the app", href: androidIntent(outer.link, outer.apn, store) };
    return {
      location: open.href,
      choices: [open, { label: outer.afl ? "Get the app" : "Get the app on Google Play", href: store }, web],
    };
  }
  if (platform === "ios" && (outer.ifl || outer.isi)) {
    const store = outer.ifl
      ? { label: "Continue", href: outer.ifl }
      : { label: "Get the app on the App Store", href: appStoreUrl(outer.isi!) };
    return { location: store.href, choices: [store, web] };
  }
  if (platform === "desktop" && outer.ofl) {
    const ofl = { label: "Continue", href: outer.ofl };
    return { location: ofl.href, choices: [ofl, web] };
  }
  return { location: outer.link, choices: [web] };
}

function parseHttp(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url : undefined;
  } catch {
    return undefined;
  }
}

function originOf(value: string): string | undefined {
  return parseHttp(value)?.origin;
}

/** Apple's association file: the app `teamId.bundleId` opens the creation and outer links. */
export function appleAppSiteAssociation(teamId: string, bundleId: string, paths: string[]) {
  const appId = `${teamId}.${bundleId}`;
  return {
    applinks: {
      apps: [],
      details: [
        {
          appIDs: [appId],
          components: paths.map((path) => ({ "/": path })),
          // iOS 12 and older read these two keys.
          appID: appId,
          paths,
        },
      ],
    },
  };
}

const FINGERPRINT = /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/;

/**
 * Android's Digital Asset Links statement for the app `apn` signed by these certificates
 * (SHA-256, colon-separated hex as `keytool` prints them); the bad ones, when any.
 */
export function assetLinks(
  apn: string,
  fingerprints: string[],
): { ok: true; value: unknown[] } | { ok: false; bad: string[] } {
  const normalized = fingerprints.map((f) => f.trim().toUpperCase()).filter((f) => f !== "");
  const bad = normalized.filter((f) => !FINGERPRINT.test(f));
  if (bad.length > 0) return { ok: false, bad };
  return {
    ok: true,
    value: [
      {
        relation: ["delegate_permission/common.handle_all_urls"],
        target: { namespace: "android_app", package_name: apn, sha256_cert_fingerprints: normalized },
      },
    ],
  };
}
