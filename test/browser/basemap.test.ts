import path from "node:path";
import { namedFlavor } from "@protomaps/basemaps";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { IMMUTABLE } from "../../tools/lib/staticAssets";
import { MAPLIBRE_ASSETS, PROTOMAPS_BASEMAPS_ASSETS } from "../../worker/pages/map/assets";
import { type Browser, browserAvailable, launch } from "./chromium";
import { differingShare, sharesNear } from "./pixels";
import { ARTIFACTS } from "./service";

/**
 * The vector basemap in Chromium over Jacksboro: npm start loads the embedded archive (Natural
 * Earth, us-atlas, OurAirports) and sets MAP_PMTILES_KEY, so both pages draw it with MapLibre GL
 * where WebGL works (headless Chromium's SwiftShader here), and keep the server-drawn SVG where it
 * does not and without JavaScript.
 */

const JACKSBORO = { latitude: 36.33, longitude: -84.19 };
const DESKTOP = { width: 1280, height: 900, mobile: false };
const LIGHT = namedFlavor("light");

const service = inject("service");
const available = browserAvailable();
let browser: Browser;

beforeAll(async () => {
  if (available) browser = await launch(DESKTOP);
});
afterAll(async () => {
  await browser?.close();
});

async function api(
  pathname: string,
  body?: unknown,
  token?: string,
  method = body === undefined ? "GET" : "POST",
) {
  const headers: Record<string, string> = { "x-api-key": service.apiKey };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${service.baseUrl}${pathname}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.data;
}

async function deepLinkPage(): Promise<string> {
  const built = await api("/deeplink/v1/create_flight", {
    geometry: { type: "Point", coordinates: [JACKSBORO.longitude, JACKSBORO.latitude] },
    buffer: 200,
  });
  return new URL(built.link).searchParams.get("link")!;
}

async function livePage(): Promise<string> {
  const token = (await api("/auth/v1/anonymous/token", { user_id: "basemap-browser" })).id_token;
  const flight = await api("/flight/v2/point", { ...JACKSBORO, buffer: 150, max_altitude: 60 }, token);
  return (await api(`/flight/v2/${encodeURIComponent(flight.id)}/ticket`, undefined, token, "POST")).live_url;
}

/** Console errors and CSP violations the page reports. */
function problems(page: Page): string[] {
  const seen: string[] = [];
  page.on("console", (m) => {
    // Our script's warnings ("basemap: …") and any error; not SwiftShader's performance notes.
    if (m.type() === "error" || /^basemap:|Content Security Policy/i.test(m.text())) seen.push(m.text());
  });
  page.on("pageerror", (e) => seen.push(e.message));
  return seen;
}

/**
 * The MapLibre canvas alone (the SVG above it hidden for the shot): the share of its pixels that
 * differ from the page's own background (a blank canvas is transparent and shows it), and the share
 * in the basemap's land colour.
 */
async function canvasShares(page: Page): Promise<{ differing: number; earth: number }> {
  const holder = page.locator(".vector-basemap-holder");
  await page.evaluate(() => {
    (document.querySelector(".vector-basemap-holder > svg") as SVGElement).style.visibility = "hidden";
  });
  const png = await holder.screenshot();
  await page.evaluate(() => {
    (document.querySelector(".vector-basemap-holder > svg") as SVGElement).style.visibility = "";
  });
  const background = await page.evaluate(() => {
    const section = getComputedStyle(document.querySelector("section") ?? document.body).backgroundColor;
    return (section.match(/\d+/g) ?? ["255", "255", "255"]).slice(0, 3).map(Number) as [
      number,
      number,
      number,
    ];
  });
  const land = [1, 3, 5].map((i) => Number.parseInt(LIGHT.earth.slice(i, i + 2), 16)) as [
    number,
    number,
    number,
  ];
  const [onBackground, onLand] = await sharesNear(page, png, [background, land], 6);
  return { differing: 1 - onBackground!, earth: onLand! };
}

describe.skipIf(!available)("the vector basemap in Chromium", () => {
  for (const [name, open] of [
    ["deep-link page", deepLinkPage],
    ["live page", livePage],
  ] as const) {
    it(`draws the basemap under the ${name}'s SVG over Jacksboro, with its data's attribution`, async () => {
      const page = await browser.context.newPage();
      const seen = problems(page);
      await page.goto(await open());
      expect(await page.evaluate(() => !!document.createElement("canvas").getContext("webgl2"))).toBe(true);
      await page.waitForSelector(".vector-basemap-holder[data-state=drawn]", { timeout: 30_000 });
      expect(await page.locator(".vector-basemap canvas.maplibregl-canvas").count()).toBe(1);
      expect(await page.locator("svg.over-basemap .flight-area").count()).toBe(1);
      await expect.poll(() => page.locator(".maplibregl-ctrl-attrib").innerText()).toContain("Natural Earth");
      await page.waitForFunction(() => !document.querySelector(".maplibregl-ctrl-attrib-inner:empty"));

      const { differing, earth } = await canvasShares(page);
      expect(differing).toBeGreaterThan(0.9);
      expect(earth).toBeGreaterThan(0.5);
      // With the SVG over it, the flight's area and the ground's contours still show.
      expect(await differingShare(page, page.locator(".vector-basemap-holder"))).toBeGreaterThan(0.02);
      expect(seen).toEqual([]);
      expect(browser.external).toEqual([]);
      await page.close();
    });
  }

  it("keeps the server-drawn map where WebGL does not work", async () => {
    const page = await browser.context.newPage();
    await page.addInitScript(() => {
      const original = HTMLCanvasElement.prototype.getContext;
      HTMLCanvasElement.prototype.getContext = function (
        this: HTMLCanvasElement,
        type: string,
        ...rest: never[]
      ) {
        return /webgl/.test(type) ? null : original.call(this, type as "2d", ...rest);
      } as typeof original;
    });
    const seen = problems(page);
    await page.goto(await deepLinkPage());
    await page.waitForLoadState("networkidle");
    expect(await page.locator(".vector-basemap-holder").count()).toBe(0);
    expect(await page.locator("svg#map:not(.over-basemap)").count()).toBe(1);
    expect(await differingShare(page, page.locator("svg#map"))).toBeGreaterThan(0.05);
    expect(seen).toEqual([]);
    await page.close();
  });

  it("keeps the server-drawn map without JavaScript", async () => {
    const noScript = await launch(DESKTOP, { javaScript: false });
    try {
      const page = await noScript.context.newPage();
      await page.goto(await deepLinkPage());
      expect(await page.locator("svg#map[data-vector-basemap]").count()).toBe(1);
      expect(await page.locator(".vector-basemap-holder").count()).toBe(0);
      expect(await differingShare(page, page.locator("svg#map"))).toBeGreaterThan(0.05);
    } finally {
      await noScript.close();
    }
  });
});

/**
 * What a pilot navigates by at flight zoom, from the embedded archive's real data: the streets of
 * its OpenStreetMap sample in Bavaria (data/basemap/SOURCE.md), Matiu/Somes Island's coast and
 * paths, GeoNames' places around Gothenburg. The server draws them into the SVG (no WebGL or script
 * needed); over MapLibre its names stay on top.
 */
describe.skipIf(!available)("roads, water and names at flight zoom", () => {
  const BAVARIA = "/map?latitude=48.1357&longitude=10.0696&span_km=0.5";

  it("draws streets with their names, an island's coast and towns' names without scripts", async () => {
    const noScript = await launch(DESKTOP, { javaScript: false });
    try {
      const page = await noScript.context.newPage();
      await page.goto(`${service.baseUrl}${BAVARIA}`);
      expect(await page.locator("svg#map .streets .road").count()).toBeGreaterThan(5);
      expect(await page.locator("svg#map .names textPath").allTextContents()).toContain("Goethestraße");
      expect(await page.locator("svg#map .attribution").textContent()).toContain(
        "OpenStreetMap contributors",
      );
      expect(await page.locator("#map-legend").innerText()).toContain("roads and tracks, with their names");
      await page.screenshot({ path: path.join(ARTIFACTS, "map-streets-bavaria.png") });

      await page.goto(`${service.baseUrl}/map?latitude=-41.256&longitude=174.866&span_km=2`);
      expect(await page.locator("svg#map .streets .islands").count()).toBe(1);
      expect(await page.locator("svg#map .streets .water").count()).toBe(1);
      expect(await page.locator("svg#map .names .place").allTextContents()).toContain("Matiu/Somes Island");
      await page.screenshot({ path: path.join(ARTIFACTS, "map-streets-somes-island.png") });

      await page.goto(`${service.baseUrl}/map?latitude=57.70&longitude=11.97&span_km=12`);
      expect(await page.locator("svg#map .names .place").allTextContents()).toContain("Göteborg");
      expect(await page.locator("#map-legend").innerText()).toContain("towns and places by name");
      await page.screenshot({ path: path.join(ARTIFACTS, "map-streets-gothenburg.png") });
    } finally {
      await noScript.close();
    }
  });

  it("keeps the names over MapLibre's drawing where WebGL works", async () => {
    const page = await browser.context.newPage();
    const seen = problems(page);
    await page.goto(`${service.baseUrl}${BAVARIA}`);
    await page.waitForSelector(".vector-basemap-holder[data-state=drawn]", { timeout: 30_000 });
    // MapLibre draws the roads from the same tiles; the SVG's own give way, its names stay.
    expect(await page.locator("svg.over-basemap .streets").isVisible()).toBe(false);
    expect(await page.locator("svg.over-basemap .names").isVisible()).toBe(true);
    expect(await differingShare(page, page.locator(".vector-basemap-holder"))).toBeGreaterThan(0.02);
    await page.screenshot({ path: path.join(ARTIFACTS, "map-streets-bavaria-maplibre.png") });

    // An island inside Natural Earth's sea: MapLibre draws its land too, not open water.
    await page.goto(`${service.baseUrl}/map?latitude=-41.256&longitude=174.866&span_km=2`);
    await page.waitForSelector(".vector-basemap-holder[data-state=drawn]", { timeout: 30_000 });
    await page.waitForFunction(() => !document.querySelector(".maplibregl-ctrl-attrib-inner:empty"));
    expect((await canvasShares(page)).earth).toBeGreaterThan(0.05);
    await page.screenshot({ path: path.join(ARTIFACTS, "map-streets-somes-island-maplibre.png") });
    expect(seen).toEqual([]);
    await page.close();
  });
});

// Workers Static Assets answers these before the worker (SELF.fetch in the worker tests never sees them).
describe("the map libraries, served as static assets", () => {
  it("serves MapLibre's modules and stylesheet and Protomaps' layers with their types, cached for good", async () => {
    for (const [file, type, marker] of [
      [`${MAPLIBRE_ASSETS}/maplibre-gl.mjs`, "javascript", "maplibre"],
      [`${MAPLIBRE_ASSETS}/maplibre-gl-worker.mjs`, "javascript", "self.worker"],
      [`${MAPLIBRE_ASSETS}/maplibre-gl.css`, "text/css", ".maplibregl-canvas"],
      [`${PROTOMAPS_BASEMAPS_ASSETS}/basemaps.mjs`, "javascript", "namedFlavor"],
    ] as const) {
      const res = await fetch(`${service.baseUrl}${file}`);
      expect(res.status, file).toBe(200);
      expect(res.headers.get("content-type"), file).toContain(type);
      expect(res.headers.get("cache-control"), file).toBe(IMMUTABLE);
      expect(await res.text(), file).toContain(marker);
    }
  });
});
