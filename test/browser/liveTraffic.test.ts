import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Browser, browserAvailable, launch } from "./chromium";

/**
 * The live page's nearby traffic in Chromium, against npm start (its traffic broker included): a
 * second pilot's flight flies at the watched one over HTTP ingest; the page's script gets the same
 * MQTT messages the SDKs get, over WebSockets with the page's ticket, and draws the other flight as
 * a symbol pointing along its heading, marked as an alert, and lists it.
 */

const available = browserAvailable();
const service = inject("service");
let browser: Browser;

beforeAll(async () => {
  if (available) browser = await launch({ width: 1200, height: 900, mobile: false });
});

afterAll(async () => {
  await browser?.close();
});

async function api(pathname: string, body: unknown, token?: string) {
  const res = await fetch(`${service.baseUrl}${pathname}`, {
    method: "POST",
    headers: {
      "x-api-key": service.apiKey,
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.data;
}

const state = (lat: number, track: number, speed: number) => ({
  states: [
    {
      timestamp: { value: new Date().toISOString(), format: "RFC3339" },
      position: { lat, lng: 11.965, alt: 80 },
      track,
      speed,
      vertical_speed: 0,
    },
  ],
});

describe.skipIf(!available)("nearby traffic on the live page", () => {
  it("draws another flight closing in as an alert, along its heading", async () => {
    const alice = (await api("/auth/v1/anonymous/token", { user_id: "traffic-page-alice" })).id_token;
    const bob = (await api("/auth/v1/anonymous/token", { user_id: "traffic-page-bob" })).id_token;
    const watched = (
      await api("/flight/v2/point", { latitude: 57.67, longitude: 11.965, buffer: 300 }, alice)
    ).id;
    const other = (await api("/flight/v2/point", { latitude: 57.673, longitude: 11.965, buffer: 300 }, bob))
      .id;
    let step = 0;
    const flying = setInterval(() => {
      step++;
      void api(`/flight/v2/${watched}/telemetry`, state(57.67, 0, 0), alice).catch(() => {});
      void api(`/flight/v2/${other}/telemetry`, state(57.673 - step * 5e-5, 180, 6), bob).catch(() => {});
    }, 1000);
    try {
      const { live_url } = await api(`/flight/v2/${encodeURIComponent(watched)}/ticket`, {}, alice);
      const page = await browser.context.newPage();
      await page.goto(live_url.startsWith("http") ? live_url : `${service.baseUrl}${live_url}`);
      // This test's other flight (the shared service may fly other tests' flights nearby): its title names it.
      const symbol = page.locator(".traffic-symbol.traffic-alert").filter({ hasText: other });
      await symbol.first().waitFor({ timeout: 60_000 });
      expect(await page.textContent("#traffic-status")).toBe("live");
      expect(await page.textContent("#traffic-list")).toContain(other);
      expect(await symbol.first().getAttribute("transform")).toMatch(/rotate\(180\)$/);
      expect(browser.external).toEqual([]);
    } finally {
      clearInterval(flying);
    }
  });
});
