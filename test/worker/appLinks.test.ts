import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, createAccount } from "./helpers";

/**
 * The outer deep link served by the service (what Firebase Dynamic Links did) for each platform,
 * by user agent, from a link the builder made; and the app association files.
 */

const UA = {
  android:
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
  iphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  desktop:
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
};

let outer: URL;
beforeAll(async () => {
  const account = await createAccount();
  const res = await call("/deeplink/v1/create_flight", {
    method: "POST",
    apiKey: account.apiKey,
    body: { geometry: { type: "Point", coordinates: [-84.18, 36.33] }, buffer: 200 },
  });
  expect(res.status).toBe(200);
  outer = new URL(res.json.data.link);
});

async function open(url: URL | string, userAgent: string) {
  return SELF.fetch(url.toString(), { headers: { "User-Agent": userAgent }, redirect: "manual" });
}

describe("GET /deeplink/v1/open (the outer link)", () => {
  it("is where the builder's links point by default, and needs no API key", () => {
    expect(`${outer.origin}${outer.pathname}`).toBe(`${BASE}/deeplink/v1/open`);
  });

  it("opens the app on Android by an intent, falling back to its Play Store page", async () => {
    const res = await open(outer, UA.android);
    expect(res.status).toBe(302);
    const location = res.headers.get("location")!;
    const creation = new URL(outer.searchParams.get("link")!);
    expect(location.startsWith(`intent://${creation.host}/create_flight/v1/?`)).toBe(true);
    expect(location).toContain("#Intent;scheme=https;package=dev.windsock.app;");
    expect(location).toContain(
      `S.browser_fallback_url=${encodeURIComponent("https://play.google.com/store/apps/details?id=dev.windsock.app")};end`,
    );
    expect(res.headers.get("vary")).toContain("User-Agent");
  });

  it("goes to the App Store on iOS (an installed app takes the link itself, as a universal link)", async () => {
    const res = await open(outer, UA.iphone);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://apps.apple.com/app/id1000000001");
  });

  it("goes to the service's own creation page on a desktop, or to the operator's ofl", async () => {
    const res = await open(outer, UA.desktop);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(outer.searchParams.get("link"));
    const page = await SELF.fetch(res.headers.get("location")!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<form");
    const withOfl = new URL(outer);
    withOfl.searchParams.set("ofl", `${BASE}/docs`);
    const ofl = await open(withOfl, UA.desktop);
    expect(ofl.headers.get("location")).toBe(`${BASE}/docs`);
  });

  it("shows the choices on a page in between without efr=1, as plain links", async () => {
    const preview = new URL(outer);
    preview.searchParams.delete("efr");
    const res = await open(preview, UA.android);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('id="choices"');
    expect(html).toContain("Open in the app");
    expect(html).toContain("https://play.google.com/store/apps/details?id=dev.windsock.app");
    expect(html).not.toContain("<script");
  });

  it("refuses a link that is not a creation link on this service, and fallbacks elsewhere (no open redirect)", async () => {
    const elsewhere = new URL(outer);
    elsewhere.searchParams.set("link", "https://evil.example/create_flight/v1/?geometry=x");
    const res = await open(elsewhere, UA.desktop);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { status: string; data: { errors: { name: string }[] } };
    expect(body.status).toBe("fail");
    expect(body.data.errors.map((e) => e.name)).toEqual(["link"]);
    const badOfl = new URL(outer);
    badOfl.searchParams.set("ofl", "https://evil.example/");
    expect((await open(badOfl, UA.desktop)).status).toBe(400);
    const missing = await open(`${BASE}/deeplink/v1/open?efr=1`, UA.desktop);
    expect(missing.status).toBe(400);
    const badApn = new URL(outer);
    badApn.searchParams.set("apn", "not a package");
    expect((await open(badApn, UA.android)).status).toBe(400);
  });
});

describe("app association files", () => {
  it("serves the Apple app site association for the team and bundle ids, claiming the link paths", async () => {
    const res = await SELF.fetch(`${BASE}/.well-known/apple-app-site-association`, { redirect: "manual" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const body = (await res.json()) as { applinks: { details: { appIDs: string[]; paths: string[] }[] } };
    expect(body.applinks.details[0]!.appIDs).toEqual(["ABCDE12345.dev.windsock.app"]);
    expect(body.applinks.details[0]!.paths).toEqual(["/create_flight/v1/*", "/deeplink/v1/open"]);
  });

  it("serves the Android asset links for the package and its certificate fingerprints", async () => {
    const res = await SELF.fetch(`${BASE}/.well-known/assetlinks.json`, { redirect: "manual" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      relation: string[];
      target: { package_name: string; sha256_cert_fingerprints: string[] };
    }[];
    expect(body[0]!.relation).toEqual(["delegate_permission/common.handle_all_urls"]);
    expect(body[0]!.target.package_name).toBe("dev.windsock.app");
    expect(body[0]!.target.sha256_cert_fingerprints[0]).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });
});
