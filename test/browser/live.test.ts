import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ROOT } from "../../tools/lib/config";
import { type Browser, browserAvailable, launch } from "./chromium";
import { differingShare, readmeScreenshot } from "./pixels";
import { ARTIFACTS } from "./service";

/**
 * A flight over real terrain (Gothenburg, the embedded SRTM3 tile) flown by `npm run telemetry:send`
 * through the real UDP relay, watched on the live page in Chromium: the track grows, the height above
 * our ground shows, and the page lists the conformance events the flight's Durable Object raises.
 */

const CENTER = { latitude: 57.67, longitude: 11.965 };

const available = browserAvailable();
const service = inject("service");
let browser: Browser;

beforeAll(async () => {
  if (!available) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launch({ width: 1280, height: 900, mobile: false });
});

afterAll(async () => {
  await browser?.close();
});

async function api(pathname: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const headers: Record<string, string> = { "x-api-key": service.apiKey };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(`${service.baseUrl}${pathname}`, {
    method: init.method ?? "POST",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.data;
}

describe.skipIf(!available)("the live flight page", () => {
  it("shows a flight sent through the relay as it flies, with its conformance events", async () => {
    const token = (await api("/auth/v1/anonymous/token", { body: { user_id: "live-browser" } })).id_token;
    const flight = await api("/flight/v2/point", {
      token,
      body: {
        ...CENTER,
        buffer: 150,
        max_altitude: 60,
        start_time: new Date(Date.now() - 60_000).toISOString(),
      },
    });
    const id = encodeURIComponent(flight.id);
    const { key } = await api(`/flight/v2/${id}/start-comm`, { token });
    const { live_url } = await api(`/flight/v2/${id}/ticket`, { token });

    const page = await browser.context.newPage();
    await page.goto(live_url);
    await page.waitForFunction(() => document.getElementById("status")?.textContent === "live");

    // An orbit of 250 m around a 150 m circle, 80 m above the ground under a 60 m ceiling.
    const sender = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "tools/telemetrySend.ts",
        ...["--flight", flight.id, "--relay", `127.0.0.1:${service.telemetryPort}`, "--url", service.baseUrl],
        ...["--rate", "5", "--duration", "12", "--radius", "250", "--speed", "40", "--height", "80"],
      ],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          WINDSOCK_API_KEY: service.apiKey,
          WINDSOCK_TOKEN: token,
          WINDSOCK_SESSION_KEY: key,
        },
      },
    );
    let output = "";
    sender.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    sender.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exit = new Promise<number | null>((resolve) => sender.once("exit", resolve));

    await page.waitForFunction(() => Number(document.getElementById("v-records")?.textContent) >= 40, null, {
      timeout: 30_000,
    });
    await page.waitForFunction(
      () => {
        const text = document.getElementById("events")?.textContent ?? "";
        return text.includes("above ceiling") && text.includes("left area");
      },
      null,
      { timeout: 30_000 },
    );
    expect(await exit, output).toBe(0);
    expect(output).toMatch(/Terrain: \d+ of \d+ samples/);

    // The track is drawn and grows; the height is judged against our ground (about 80 m).
    const points = await page.$eval("#map polyline", (e) => e.getAttribute("points")!.split(" ").length);
    expect(points).toBeGreaterThan(10);
    const agl = await page.textContent("#v-agl");
    expect(Number.parseFloat(agl!)).toBeGreaterThan(70);
    expect(Number.parseFloat(agl!)).toBeLessThan(90);
    expect(await page.textContent("#v-press")).toMatch(/hPa$/);
    expect(await page.textContent("#v-speed")).toMatch(/m\/s$/);
    expect(await page.$$("#alt polygon")).not.toHaveLength(0); // the terrain profile
    expect(await page.textContent("#scale")).toMatch(/\d+ (m|km)$/);
    await page.screenshot({ path: path.join(ARTIFACTS, "live-desktop.png"), fullPage: true });

    // The page saw what the API keeps.
    const events = await api(`/flight/v2/${id}/conformance`, { method: "GET", token });
    // …grouped: one list item per kind of event, however often it repeats.
    const kinds = new Set(events.results.map((e: { type: string }) => e.type));
    const shown = await page.$$eval("#events li", (items) => items.map((i) => i.textContent!));
    expect(shown).toHaveLength(kinds.size);
    const repeated = events.results.filter((e: { type: string }) => e.type === "left_area").length;
    if (repeated > 1) expect(shown.join("\n")).toContain(`left area ×${repeated}`);
    // Titled in words, not by the raw id.
    expect(await page.title()).toMatch(/^Live flight of \d{1,2} [A-Z][a-z]{2} \d{4}$/);

    // The flight's state is apart from the connection's.
    expect(await page.textContent("#flight-state")).toMatch(/^active until \d\d:\d\d UTC$/);
    expect(await page.textContent("#status")).toBe("live");
    // The chart has axes with units and titles.
    const yTicks = await page.$$eval("#alt .y-tick", (ticks) => ticks.map((t) => t.textContent!));
    expect(yTicks.length).toBeGreaterThanOrEqual(2);
    for (const tick of yTicks) expect(tick).toMatch(/^-?\d+ m$/);
    const xTicks = await page.$$eval("#alt .x-tick", (ticks) => ticks.map((t) => t.textContent!));
    expect(xTicks.length).toBeGreaterThanOrEqual(2);
    for (const tick of xTicks) expect(tick).toMatch(/^\d\d:\d\d(:\d\d)?$/);
    const chartText = await page.textContent("#alt");
    expect(chartText).toContain("Altitude (m above mean sea level)");
    expect(chartText).toContain("Time (UTC)");
    // Each conformance event sits on the track where it happened: on a point of the drawn track.
    const placed = await page.evaluate(() => {
      const track = document
        .querySelector("#track polyline")!
        .getAttribute("points")!
        .split(" ")
        .map((p) => p.split(",").map(Number));
      return [...document.querySelectorAll("#track .event-marker")].map((m) => {
        const [x, y] = /translate\(([-\d.]+) ([-\d.]+)\)/
          .exec(m.getAttribute("transform")!)!
          .slice(1)
          .map(Number);
        return Math.min(...track.map(([tx, ty]) => Math.hypot(tx! - x!, ty! - y!)));
      });
    });
    expect(placed.length).toBeGreaterThanOrEqual(1);
    expect(placed.length).toBeLessThanOrEqual(
      events.results.filter((e: { latitude: number | null }) => e.latitude !== null).length,
    );
    for (const distance of placed) expect(distance).toBeLessThan(1);
    // Markers are rings under the track: the track is drawn after them, so it is never hidden.
    expect(
      await page.evaluate(() => {
        const children = [...document.querySelector("#track")!.children];
        const track = children.findIndex((c) => c.tagName === "polyline");
        return children.every((c, i) => !c.classList.contains("event-marker") || i < track);
      }),
    ).toBe(true);
    // The chart's event numbers never overlap one another.
    const labels = await page.$$eval("#alt .event-tick", (ticks) =>
      ticks.map((t) => {
        const box = (t as SVGGraphicsElement).getBBox();
        return [box.x, box.x + box.width];
      }),
    );
    expect(labels.length).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < labels.length; i++) expect(labels[i]![0]!).toBeGreaterThan(labels[i - 1]![1]!);

    // The map over Gothenburg is not blank: the ground from our elevation covers most of it.
    const map = page.locator("svg#map");
    const share = await differingShare(page, map);
    console.log(`Gothenburg live map: ${(share * 100).toFixed(0)}% of pixels differ from the background`);
    expect(share).toBeGreaterThan(0.3);
    await readmeScreenshot(page, "live-gothenburg");

    // Ended, the page says so and replays the whole track.
    const records = Number(await page.textContent("#v-records"));
    await api(`/flight/v2/${id}/end`, { token });
    await page.reload();
    await page.waitForFunction(
      (n) => Number(document.getElementById("v-records")?.textContent) >= n,
      records,
      {
        timeout: 30_000,
      },
    );
    expect(await page.textContent("#flight-state")).toMatch(/^ended at \d\d:\d\d UTC$/);
    expect(await page.title()).toMatch(/^Ended flight of /);
    await page.waitForFunction(() =>
      document.getElementById("status")?.textContent?.includes("the flight has ended"),
    );
    const replayed = await page.$eval("#track polyline", (e) => e.getAttribute("points")!.split(" ").length);
    expect(replayed).toBeGreaterThanOrEqual(points);
    // …and offers its track as CSV, GPX and KML, each opened by a reader of its format.
    expect(await page.isVisible("#downloads")).toBe(true);
    const read = await page.evaluate(async () => {
      const get = async (f: string) => {
        const res = await fetch((document.getElementById(`track-${f}`) as HTMLAnchorElement).href);
        return { type: res.headers.get("content-type"), text: await res.text() };
      };
      const [csv, gpx, kml] = [await get("csv"), await get("gpx"), await get("kml")];
      const xml = (t: string) => new DOMParser().parseFromString(t, "application/xml");
      const g = xml(gpx.text);
      const k = xml(kml.text);
      return {
        types: [csv.type, gpx.type, kml.type],
        csvRows: csv.text.trim().split("\r\n").length - 1,
        gpxPoints: g.getElementsByTagName("trkpt").length,
        gpxErrors: g.getElementsByTagName("parsererror").length,
        kmlCoords: k.getElementsByTagNameNS("http://www.google.com/kml/ext/2.2", "coord").length,
        firstEle: Number(g.getElementsByTagName("ele")[0]?.textContent),
      };
    });
    expect(read.types).toEqual([
      "text/csv; charset=utf-8",
      "application/gpx+xml",
      "application/vnd.google-earth.kml+xml",
    ]);
    expect(read.gpxErrors).toBe(0);
    expect(read.gpxPoints).toBeGreaterThan(10);
    expect(read.csvRows).toBe(read.gpxPoints);
    expect(read.kmlCoords).toBe(read.gpxPoints);
    expect(read.firstEle).toBeGreaterThan(50);
    expect(browser.external).toEqual([]);
  });

  it("shows a planned flight as planned, and its server-drawn map without scripts", async () => {
    const token = (await api("/auth/v1/anonymous/token", { body: { user_id: "live-planned" } })).id_token;
    const flight = await api("/flight/v2/point", {
      token,
      body: {
        ...CENTER,
        buffer: 150,
        max_altitude: 60,
        start_time: new Date(Date.now() + 3_600_000).toISOString(),
        end_time: new Date(Date.now() + 7_200_000).toISOString(),
      },
    });
    const { live_url } = await api(`/flight/v2/${encodeURIComponent(flight.id)}/ticket`, { token });
    const page = await browser.context.newPage();
    await page.goto(live_url);
    expect(await page.textContent("#flight-state")).toMatch(/^planned: starts \d\d:\d\d UTC$/);
    const noScripts = await launch({ width: 1280, height: 900, mobile: false }, { javaScript: false });
    try {
      const still = await noScripts.context.newPage();
      await still.goto(live_url);
      expect(await still.textContent("#flight-state")).toMatch(/^planned: starts/);
      expect(await still.locator("#map .terrain .contour").count()).toBeGreaterThanOrEqual(2);
      expect(await differingShare(page, still.locator("svg#map"))).toBeGreaterThan(0.3);
    } finally {
      await noScripts.close();
    }
  });
});
