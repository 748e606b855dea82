import { describe, expect, it } from "vitest";
import { activeFlight } from "./flightFixtures";
import { call, createAccount, tokenFor } from "./helpers";

/** The front page, the airspace map and its status without a key (issue 38). */

const HTML = { Accept: "text/html" };

describe("GET /", () => {
  it("answers a JSON client in JSend and a browser with the page, listing public flights under way", async () => {
    const account = await createAccount("front");
    const { token } = await tokenFor(account, "front-pilot");
    await activeFlight(
      { apiKey: account.apiKey, token },
      { public: true, latitude: 36.3, longitude: -84.12 },
    );
    await activeFlight({ apiKey: account.apiKey, token }, { latitude: 36.31, longitude: -84.13 });
    const json = await call("/");
    expect(json.status).toBe(200);
    expect(json.json).toMatchObject({ status: "success", data: { service: "windsock", docs: "/docs" } });
    expect(json.json.data.operator).toBe("windsock.test");
    expect(json.json.data.public_flights_under_way).toBeGreaterThanOrEqual(1);
    const page = await call("/", { headers: HTML });
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).toContain('<a href="/docs">');
    expect(page.text).toContain("latitude=36.30000&amp;longitude=-84.12000");
    expect(page.text).not.toContain("latitude=36.31000");
  });
});

describe("GET /map and /map/status", () => {
  it("draws the map anywhere, refuses a view it cannot draw by name, and answers the status as /status/v2/point", async () => {
    const page = await call("/map?latitude=47.1&longitude=8.5&span_km=2", { headers: HTML });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<svg xmlns="http://www.w3.org/2000/svg" id="map"');
    const wide = await call("/map?latitude=47.1&longitude=8.5&span_km=500");
    expect(wide.status).toBe(400);
    expect(wide.json.data.errors[0].name).toBe("span_km");
    const status = await call("/map/status?latitude=47.1&longitude=8.5");
    expect(status.status).toBe(200);
    expect(status.json.data).toHaveProperty("advisory_color");
    expect(status.json.data).toHaveProperty("advisories");
    expect((await call("/map/status?latitude=99&longitude=8.5")).status).toBe(400);
  });
});
