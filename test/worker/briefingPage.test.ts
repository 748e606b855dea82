import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createPlan, flightAt } from "./flightFixtures";
import { BASE, call } from "./helpers";
import { asPilot, newPilot, type TestPilot } from "./pilotFixtures";

/** The flight's briefing as a page: opened like the live page, by its ticket or the API headers. */

let pilot: TestPilot;
let planned: string;

beforeAll(async () => {
  pilot = await newPilot("briefing-pilot");
  const plan = await createPlan(pilot.account, pilot.token);
  const submitted = await asPilot(pilot, `/flight/v2/plan/${encodeURIComponent(plan.id)}/submit`, {
    method: "POST",
    body: {},
  });
  expect(submitted.status, submitted.text).toBe(200);
  planned = submitted.json.data.flight_id;
});

const ticketFor = async (flightId: string) =>
  (await asPilot(pilot, `/flight/v2/${encodeURIComponent(flightId)}/ticket`, { method: "POST" })).json.data;

describe("GET /flight/v2/{flight_id}/briefing", () => {
  it("opens with the ticket's briefing_url: the plan's airspace, rules and authorizations in words", async () => {
    const { briefing_url } = await ticketFor(planned);
    const res = await SELF.fetch(briefing_url);
    const html = await res.text();
    expect(res.status, html.slice(0, 400)).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(html).toContain("<h1>Flight briefing</h1>");
    for (const heading of ["Airspace", "Authorizations", "Rules"]) expect(html).toContain(`>${heading}</h2>`);
    // The plan itself: its window and ceiling in words, its area on a map drawn without scripts.
    expect(html).toMatch(
      /<strong>\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d – \d\d:\d\d UTC<\/strong>, (up to \d+ m above the ground|no ceiling set)/,
    );
    expect(html).toContain('<svg xmlns="http://www.w3.org/2000/svg" id="map"');
    expect(html).toContain('id="map-legend"');
    expect(html).not.toContain("<script");
    expect(res.headers.get("content-security-policy")).toContain("img-src");
  });

  it("refuses a ticket for another flight, and answers 404 for a flight made without a plan", async () => {
    const direct = await flightAt(pilot.account, pilot.token);
    const { ticket } = await ticketFor(direct.id);
    const other = await SELF.fetch(
      `${BASE}/flight/v2/${encodeURIComponent(planned)}/briefing?ticket=${ticket}`,
    );
    expect(other.status).toBe(403);
    await other.body?.cancel();
    const withoutPlan = await call(`/flight/v2/${encodeURIComponent(direct.id)}/briefing?ticket=${ticket}`);
    expect(withoutPlan.status).toBe(404);
    expect(withoutPlan.json.data.message).toContain("without a plan");
  });

  it("asks for the API key without a ticket", async () => {
    const res = await call(`/flight/v2/${encodeURIComponent(planned)}/briefing`);
    expect(res.status).toBe(401);
  });
});
