import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { objectsOf, tileOf } from "../domain/elevationFixtures";
import { hour, iso } from "./flightFixtures";
import { BASE, call, createAccount, type TestAccount, tokenFor } from "./helpers";

/**
 * The ground on both pages' maps, from the elevation tiles in R2 (a hill on N11E021 here), and the
 * live page's flight state apart from its connection.
 */

let account: TestAccount;
let token: string;
beforeAll(async () => {
  // A round hill 400 m high on a 150 m plain, centred at 11.5 N 21.5 E (3″ samples).
  const hill = tileOf(11, 21, 3, (k, m) =>
    Math.round(150 + 400 * Math.exp(-((k - 600) ** 2 + (m - 600) ** 2) / 2000)),
  );
  for (const [key, bytes] of await objectsOf([hill])) await env.ELEVATION.put(key, bytes);
  account = await createAccount();
  ({ token } = await tokenFor(account, "map-pilot"));
});

async function pointFlight(latitude: number, longitude: number, start: number, end: number): Promise<string> {
  const res = await call("/flight/v2/point", {
    method: "POST",
    apiKey: account.apiKey,
    token,
    body: { latitude, longitude, buffer: 300, max_altitude: 60, start_time: iso(start), end_time: iso(end) },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.id;
}

async function livePage(id: string): Promise<string> {
  const res = await call(`/flight/v2/${encodeURIComponent(id)}/live`, { apiKey: account.apiKey, token });
  expect(res.status, res.text).toBe(200);
  return res.text;
}

describe("the live page's map", () => {
  it("draws the hill's hillshade and contours where a tile covers the view, and says so in the legend", async () => {
    const html = await livePage(await pointFlight(11.5, 21.5, Date.now() - 60_000, Date.now() + hour));
    expect(html).toContain('class="terrain"');
    expect(html).toMatch(/<image class="hillshade" href="data:image\/png;base64,[A-Za-z0-9+/=]{100,}"/);
    expect((html.match(/class="contour/g) ?? []).length).toBeGreaterThanOrEqual(4);
    expect(html).toMatch(/shading and height lines every \d+ m \(\d+–\d+ m\)/);
  });

  it("draws no ground where no tile is loaded, and the legend says why", async () => {
    const html = await livePage(await pointFlight(-20.5, 40.5, Date.now() - 60_000, Date.now() + hour));
    expect(html).not.toContain('class="terrain"');
    expect(html).toContain("no elevation data loaded under this view");
  });
});

describe("the live page's flight state", () => {
  it("shows planned, active and ended apart from the connection", async () => {
    const planned = await livePage(await pointFlight(11.5, 21.5, Date.now() + hour, Date.now() + 2 * hour));
    expect(planned).toMatch(
      /<span id="flight-state" class="chip planned">planned: starts \d\d:\d\d UTC<\/span>/,
    );
    expect(planned).toContain('connection: <span id="status" role="status">connecting…</span>');
    const activeId = await pointFlight(11.5, 21.5, Date.now() - 60_000, Date.now() + hour);
    expect(await livePage(activeId)).toMatch(/class="chip active">active until \d\d:\d\d UTC/);
    const ended = await call(`/flight/v2/${encodeURIComponent(activeId)}/end`, {
      method: "POST",
      apiKey: account.apiKey,
      token,
    });
    expect(ended.status, ended.text).toBe(200);
    const endedPage = await livePage(activeId);
    const endTime = (ended.json.data.end_time as string).slice(11, 16);
    expect(endedPage).toContain(`class="chip ended">ended at ${endTime} UTC`);
    expect(endedPage).toContain("connecting to replay the recorded flight");
  });
});

describe("the deep-link page's map", () => {
  it("draws the ground under the flight's area too", async () => {
    const built = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: account.apiKey,
      body: { geometry: { type: "Point", coordinates: [21.5, 11.5] }, buffer: 300 },
    });
    expect(built.status, built.text).toBe(200);
    const creation = new URL(new URL(built.json.data.link).searchParams.get("link")!);
    const res = await SELF.fetch(`${BASE}${creation.pathname}${creation.search}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('class="terrain"');
    expect(html).toContain('id="map-legend"');
    expect(html).toMatch(/shading and height lines every \d+ m/);
  });
});
