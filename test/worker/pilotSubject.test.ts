import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type FakeProvider, fakeProvider } from "./fakeProvider";
import { planBody } from "./flightFixtures";
import { call, createAccount, type TestAccount, tokenFor } from "./helpers";
import { insertFlight, type TestPilot } from "./pilotFixtures";

/**
 * A pilot's id is what the SDKs read as one (issue #35 item 4): the Android SDK takes the token's `sub`
 * (airmap/AirMapSDK-Android a57f5ff, networking/services/AirMap.java 246–247 `jwt.getSubject()`) and
 * builds every pilot URL from it (PilotService.java 40, 62, 74, 85, 103, 114, 125; BaseService.java
 * 55–59), and its flight list filters by it (FlightService.java 96); the Swift SDK does the same
 * (Source/Core/Auth/AuthService.swift 201–205). A provider's `sub` names the caller's own pilot.
 */

const SUB = "dev-pilot";
let first: FakeProvider;
let second: FakeProvider;
let app: TestAccount;
let otherApp: TestAccount;

beforeAll(async () => {
  first = await fakeProvider("https://pilots-one.example.com");
  second = await fakeProvider("https://pilots-two.example.com");
  app = await createAccount("pilot subject");
  otherApp = await createAccount("pilot subject, other");
  await first.trustedBy(app.accountId);
  await second.trustedBy(otherApp.accountId);
});
afterEach(() => vi.restoreAllMocks());

const asAndroid = (
  account: TestAccount,
  token: string,
  path: string,
  init: Parameters<typeof call>[1] = {},
) => call(path, { apiKey: account.apiKey, token, ...init });

describe("/pilot/v2/{sub} with a provider's token", () => {
  it("reads, edits and lists the signed-in pilot's own profile, aircraft and flights by the token's sub", async () => {
    first.serve({});
    second.serve({});
    const token = await first.token(SUB);
    const me = await asAndroid(app, token, "/pilot/v2/profile");
    expect(me.status, me.text).toBe(200);
    const pilotId: string = me.json.data.id;
    expect(pilotId).toMatch(/^pilot\|/);

    // PilotService.getAuthenticatedPilot → GET /pilot/v2/{sub}: AirMapPilot reads id, email, first_name…
    const read = await asAndroid(app, token, `/pilot/v2/${SUB}`);
    expect(read.status, read.text).toBe(200);
    expect(read.json.data.id).toBe(pilotId);
    expect(read.json.data).toHaveProperty("email");
    expect(read.json.data).toHaveProperty("verification_status");

    const patched = await asAndroid(app, token, `/pilot/v2/${SUB}`, {
      method: "PATCH",
      body: { first_name: "Dev" },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.data.first_name).toBe("Dev");

    const aircraft = await asAndroid(app, token, `/pilot/v2/${SUB}/aircraft`);
    expect(aircraft.status, aircraft.text).toBe(200);
    expect(aircraft.json.data).toEqual([]);

    // FlightService.java 96: AirMap.getFlights(…, pilotId = getUserId(), …).
    const pilot = {
      account: app,
      apiKey: app.apiKey,
      token,
      pilotId,
      path: `/pilot/v2/${pilotId}`,
    } as TestPilot;
    await insertFlight(pilot, Date.now() + 3_600_000);
    const flights = await asAndroid(app, token, `/flight/v2/?pilot_id=${SUB}`);
    expect(flights.status, flights.text).toBe(200);
    expect(flights.json.data.results.length).toBe(1);
    expect(flights.json.data.results[0].pilot_id).toBe(pilotId);
  });

  it("a plan's pilot_id as the Android SDK's apps send it: the token's sub (AirMapFlightPlan.getAsParams, ApplicationTest.java 197)", async () => {
    first.serve({});
    const token = await first.token(SUB);
    const pilotId = (await asAndroid(app, token, "/pilot/v2/profile")).json.data.id;
    const created = await asAndroid(app, token, "/flight/v2/plan", {
      method: "POST",
      body: planBody({ pilot_id: SUB }),
    });
    expect(created.status, created.text).toBe(200);
    expect(created.json.data.pilot_id).toBe(pilotId);
    const patched = await asAndroid(app, token, `/flight/v2/plan/${created.json.data.id}`, {
      method: "PATCH",
      body: { pilot_id: SUB, max_altitude_agl: 50 },
    });
    expect(patched.status, patched.text).toBe(200);
    // Another user's sub is still not the caller's pilot.
    const stranger = await asAndroid(app, await first.token("someone-else"), "/flight/v2/plan", {
      method: "POST",
      body: planBody({ pilot_id: SUB }),
    });
    expect(stranger.status).toBe(403);
  });

  it("no collision: the same sub at another provider or account is another pilot, and nobody else's sub resolves", async () => {
    first.serve({});
    second.serve({});
    const mine = (await asAndroid(app, await first.token(SUB), "/pilot/v2/profile")).json.data.id;
    const theirs = await asAndroid(otherApp, await second.token(SUB), `/pilot/v2/${SUB}`);
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.json.data.id).not.toBe(mine);

    // Another user of the same provider asks for dev-pilot: no pilot has that id.
    const stranger = await asAndroid(app, await first.token("someone-else"), `/pilot/v2/${SUB}`);
    expect(stranger.status).toBe(404);
    const forbidden = await asAndroid(app, await first.token("someone-else"), `/pilot/v2/${SUB}/aircraft`);
    expect(forbidden.status).toBe(403);
    // The service's own tokens carry the service's pilot id as sub: nothing to resolve.
    const anonymous = await tokenFor(app, SUB);
    expect((await asAndroid(app, anonymous.token, `/pilot/v2/${SUB}`)).status).toBe(404);
    // A provider token on another application's key is refused outright.
    expect((await asAndroid(otherApp, await first.token(SUB), `/pilot/v2/${SUB}`)).status).toBe(401);
  });
});
