import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Browser, browserAvailable, launch } from "./chromium";
import { ARTIFACTS } from "./service";

/**
 * What a visitor meets without a key (issue 38): the front page at `/`, and the airspace map that
 * pans anywhere and tells, on a click, the status GET /status/v2/point gives there.
 */

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

describe("the front page", () => {
  it("answers JSON clients in JSend, without a key", async () => {
    const res = await fetch(`${service.baseUrl}/`, { headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({
      status: "success",
      data: { service: "windsock", docs: "/docs", map: "/map" },
    });
    expect(["normal", "unknown", "maintenance", "degraded", "failed"]).toContain(body.data.status);
  });

  it.skipIf(!available)(
    "says what the service is, who runs it, its status, and links the docs and the map",
    async () => {
      const page = await browser.context.newPage();
      const res = await page.goto(`${service.baseUrl}/`);
      expect(res!.status()).toBe(200);
      expect(await page.textContent("h1")).toBe("Windsock");
      expect(await page.textContent("#operator")).toBe(new URL(service.baseUrl).host);
      expect(await page.textContent("#status")).toMatch(/working normally|degraded|partly unknown|failing/);
      expect(await page.$$eval("#components li", (l) => l.length)).toBeGreaterThanOrEqual(4);
      expect(await page.getAttribute("a[href='/docs']", "href")).toBe("/docs");
      await page.screenshot({ path: path.join(ARTIFACTS, "front.png"), fullPage: true });
      await page.click("text=Airspace map");
      await page.waitForURL(/\/map$/);
      expect(await page.title()).toBe("Airspace map");
      expect(browser.external).toEqual([]);
      await page.close();
    },
  );
});

describe.skipIf(!available)("the airspace map", () => {
  it("shows airspace in its colors and facility-map ceilings, pans by dragging, and tells the status on a click", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${service.baseUrl}/map?latitude=37.62&longitude=-122.38&span_km=8`);
    const legend = await page.textContent("#map-legend");
    expect(legend).toContain("airspace (advisories in their color)");
    expect(legend).toContain("facility map cells: ceiling in ft above ground");
    expect(await page.$$("#map .cells text, #map .cell text, #map text")).not.toHaveLength(0);

    const map = page.locator("svg#map");
    const box = (await map.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForFunction(() => /advisor/.test(document.getElementById("status")?.textContent ?? ""));
    const shown = await page.$$eval("#advisories li", (l) => l.map((x) => x.textContent!));
    // The same point asked of the API with the key: the same color and advisories.
    const at = (await page.textContent("#status"))!.match(/^(-?[\d.]+), (-?[\d.]+): (\w+)/)!;
    const api = (await (
      await fetch(`${service.baseUrl}/status/v2/point?latitude=${at[1]}&longitude=${at[2]}&buffer=0`, {
        headers: { "x-api-key": service.apiKey },
      })
    ).json()) as any;
    expect(at[3]).toBe(api.data.advisory_color);
    expect(shown).toHaveLength(api.data.advisories.length);
    await page.screenshot({ path: path.join(ARTIFACTS, "airspace-map.png"), fullPage: true });

    // Dragging a quarter of the map to the right moves the view west.
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.75, box.y + box.height / 2, { steps: 5 });
    await Promise.all([page.waitForURL(/longitude=-122\.4/), page.mouse.up()]);
    const moved = new URL(page.url());
    expect(Number(moved.searchParams.get("longitude"))).toBeLessThan(-122.39);
    expect(Number(moved.searchParams.get("latitude"))).toBeCloseTo(37.62, 2);
    expect(browser.external).toEqual([]);
    await page.close();
  });

  it("keeps the scale bar and the attribution apart on a phone", async () => {
    const phone = await launch({ width: 390, height: 844, mobile: true });
    try {
      const page = await phone.context.newPage();
      await page.goto(`${service.baseUrl}/map?latitude=36.3&longitude=-84.12&span_km=4`);
      await page.waitForFunction(
        () =>
          (document.querySelector(".vector-basemap-holder") as HTMLElement | null)?.dataset.state !==
          "loading",
      );
      const boxes = await page.evaluate(() =>
        ["#map .scale", ".maplibregl-ctrl-attrib, #map .attribution"].map((s) => {
          const r = document.querySelector(s)!.getBoundingClientRect();
          return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
        }),
      );
      const [scale, attribution] = boxes as [DOMRect, DOMRect];
      const overlap =
        scale.left < attribution.right &&
        attribution.left < scale.right &&
        scale.top < attribution.bottom &&
        attribution.top < scale.bottom;
      await page.screenshot({ path: path.join(ARTIFACTS, "airspace-map-phone.png"), fullPage: true });
      expect(overlap).toBe(false);
    } finally {
      await phone.close();
    }
  });
});
