import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../tools/airspace/dataset";
import { airportRecord } from "../../tools/airspace/formats/airports";
import sfoAirport from "../fixtures/sdk/ksfo-airport.json";
import { d1Target, loadAirspaceFixtures, loadSfoControlledAirspace } from "./airspaceFixtures";
import { call, createAccount, type TestAccount } from "./helpers";

/** A kilometre square on SFO's runways: inside the real Class B surface area and over its (synthetic) facility map. */
const SFO_SQUARE_KM = {
  type: "Polygon",
  coordinates: [
    [
      [-122.3807, 37.6145],
      [-122.3693, 37.6145],
      [-122.3693, 37.6235],
      [-122.3807, 37.6235],
      [-122.3807, 37.6145],
    ],
  ],
};

let account: TestAccount;

beforeAll(async () => {
  await loadAirspaceFixtures();
  await loadSfoControlledAirspace();
  const airport = airportRecord(
    { ...sfoAirport, type: "large_airport" } as Parameters<typeof airportRecord>[0],
    "test",
  )!;
  await loadDataset(
    d1Target,
    { name: "sfo-airport", format: "test", version: "test", features: [airport], facilityMaps: [] },
    () => {},
  );
  account = await createAccount("map app");
});

async function creationPath(body: Record<string, unknown>): Promise<string> {
  const res = await call("/deeplink/v1/create_flight", { method: "POST", apiKey: account.apiKey, body });
  expect(res.status).toBe(200);
  const creation = new URL(new URL(res.json.data.link).searchParams.get("link")!);
  return `${creation.pathname}${creation.search}`;
}

function svgOf(html: string): string {
  const svg = html.match(/<svg[^>]*class="map"[\s\S]*?<\/svg>/)?.[0];
  expect(svg).toBeDefined();
  return svg!;
}

describe("the deep-link page's map", () => {
  it("draws California's coast, SFO, its Class B and facility map in the advisories' colors, and a scale", async () => {
    const path = await creationPath({ geometry: SFO_SQUARE_KM, altitude: 60 });
    const res = await call(path, { headers: { "accept-language": "en-US" } });
    expect(res.status).toBe(200);
    const svg = svgOf(res.text);
    // The state's outline, clipped to the view: every point within a few pixels of the 640×480 box.
    const state = svg.match(/<path class="boundary state" d="([^"]+)"[^>]*><title>California<\/title>/);
    expect(state).not.toBeNull();
    for (const [, x, y] of state![1]!.matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)) {
      expect(Number(x)).toBeGreaterThanOrEqual(-4);
      expect(Number(x)).toBeLessThanOrEqual(644);
      expect(Number(y)).toBeGreaterThanOrEqual(-4);
      expect(Number(y)).toBeLessThanOrEqual(484);
    }
    // The airport, labelled with its code.
    expect(svg).toMatch(
      /<g class="airport airport"><title>San Francisco International Airport<\/title>[\s\S]*?>SFO<\/text>/,
    );
    // The Class B is an advisory of this flight: drawn as a polygon in the advisory's color.
    expect(svg).toMatch(/<path class="airspace-area advisory (orange|red|yellow)" d="M[^"]+Z"/);
    expect(svg).toMatch(/<title>[^<]*(\(controlled airspace, (orange|red|yellow)\))<\/title>/);
    // Facility-map cells with their ceilings, the runways' 0 ft ones in red (not advisories here: grey-free but faint).
    expect(svg).toMatch(
      /<rect class="facility-cell synthetic" x="[-\d.]+" y="[-\d.]+" width="[\d.]+" height="[\d.]+" fill="#b91c1c" fill-opacity="0.12"><title>Facility map: 0 ft \(synthetic data\)<\/title>/,
    );
    // A US pilot's scale is in feet or miles.
    expect(svg).toMatch(/<g class="scale">[\s\S]*?>\d+ (ft|mi)<\/text>/);
    // Simplified to the view: small enough to send with every page.
    expect(svg.length).toBeLessThan(150_000);

    const metric = svgOf((await call(path, { headers: { "accept-language": "de-DE" } })).text);
    expect(metric).toMatch(/<g class="scale">[\s\S]*?>\d+ (m|km)<\/text>/);
  });

  it("draws nothing around an area where the embedded data has nothing", async () => {
    const path = await creationPath({
      geometry: {
        type: "Polygon",
        coordinates: [
          [
            [-140, 10],
            [-139.99, 10],
            [-139.99, 10.01],
            [-140, 10.01],
            [-140, 10],
          ],
        ],
      },
    });
    const svg = svgOf((await call(path)).text);
    expect(svg).not.toContain('class="boundary');
    expect(svg).not.toContain('class="airport');
    expect(svg).not.toContain('class="airspace-area');
    expect(svg).toContain('class="flight-area"');
  });
});
