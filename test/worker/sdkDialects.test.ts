import { beforeAll, describe, expect, it } from "vitest";
import { FALLON_BOX, FALLON_CELL_AREA, loadAirspaceFixtures } from "./airspaceFixtures";
import { call, createAccount, type TestAccount, tokenFor } from "./helpers";

/**
 * Each SDK's exact request, and each field its decoder reads (docs/sdk-compatibility.md, "Each SDK in
 * its own words"). The three clients are told apart by the User-Agent their HTTP stacks send:
 * - C++ platform SDK: `AirMap/2.0.0` (platform-sdk src/airmap/net/http/user_agent.cpp, version 2.0.0 in
 *   CMakeLists.txt; set on every request in net/http/boost/requester.cpp 135–215);
 * - Android SDK: OkHttp 3.14.7's own `okhttp/3.14.7` (airmapsdk/build.gradle 97), with the headers of
 *   networking/services/AirMapClient.java 336–350 (`x-Api-Key`, `Authorization`, `Accept-Language`);
 * - Swift SDK: Alamofire 4.7.2's default User-Agent (Cartfile.resolved; Source/Core/Clients/HTTPClient.swift
 *   keeps SessionManager's defaults and adds `Accept: application/json` and `X-API-Key`, lines 70–79).
 */
const CPP = { "User-Agent": "AirMap/2.0.0" };
const ANDROID = { "User-Agent": "okhttp/3.14.7", "Accept-Language": "en-US" };
const SWIFT = {
  "User-Agent": "AirMapDemo/2.0 (com.airmap.demo; build:1; iOS 12.4.0) Alamofire/4.7.2",
  Accept: "application/json",
};

let account: TestAccount;
let pilot: { token: string; pilotId: string };
beforeAll(async () => {
  await loadAirspaceFixtures();
  account = await createAccount();
  pilot = await tokenFor(account, "dialect-pilot");
});

const as = (
  headers: Record<string, string>,
  path: string,
  options: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) =>
  call(path, {
    ...options,
    apiKey: account.apiKey,
    token: pilot.token,
    headers: { ...headers, ...options.headers },
  });
/** Android's submit: a form with `public` (FlightService.submitFlightPlan, networking/services/FlightService.java 153–158). */
const FORM = { "Content-Type": "application/x-www-form-urlencoded" };
const enc = encodeURIComponent;

/** A plan inside Fallon NAS's 400 ft facility-map cell, 60 m up: LAANC authorizes it on submission. */
async function fallonPlan() {
  const res = await as(ANDROID, "/flight/v2/plan", {
    method: "POST",
    body: {
      takeoff_latitude: 39.479,
      takeoff_longitude: -118.787,
      start_time: new Date(Date.now() + 3_600_000).toISOString(),
      end_time: new Date(Date.now() + 7_200_000).toISOString(),
      max_altitude_agl: 60,
      buffer: 0,
      geometry: FALLON_CELL_AREA,
      rulesets: ["usa_part_107"],
    },
  });
  expect(res.status).toBe(200);
  return res.json.data;
}

describe("the authorization before submission, in each SDK's word", () => {
  it("briefing: C++ accepted_upon_submission, Android and Swift authorized_upon_submission, any other client the C++ word", async () => {
    const plan = await fallonPlan();
    const briefing = (headers: Record<string, string>) =>
      as(headers, `/flight/v2/plan/${enc(plan.id)}/briefing`);
    const statuses = async (headers: Record<string, string>) =>
      (await briefing(headers)).json.data.authorizations.map((a: any) => a.status);
    // C++ src/airmap/evaluation.cpp: Authorization::Status knows only accepted_upon_submission.
    expect(await statuses(CPP)).toEqual(["accepted_upon_submission"]);
    // Android models/rules/AirMapAuthorization.java 20–40: anything but authorized_upon_submission → REJECTED.
    expect(await statuses(ANDROID)).toEqual(["authorized_upon_submission"]);
    // Swift Source/Core/Models/FlightPlan/AirMapFlightBriefing.swift Authorization.Status; unknown → .rejected.
    expect(await statuses(SWIFT)).toEqual(["authorized_upon_submission"]);
    expect(await statuses({})).toEqual(["accepted_upon_submission"]);
    expect(await statuses({ "User-Agent": "curl/8.5.0" })).toEqual(["accepted_upon_submission"]);

    // Swift JSONSerialization.swift: Authorization requires message and description; AirMapAuthority
    // (641–643) requires id, name and facility, and the briefing reads a top-level flight_features
    // list (AirMapFlightBriefing.init) of AirMapFlightFeature (flight_feature, description required).
    const swift = (await briefing(SWIFT)).json.data;
    expect(swift.authorizations[0]).toMatchObject({
      authority: { id: "faa-laanc", name: "FAA LAANC", facility: "FAA LAANC" },
      message: expect.any(String),
      description: expect.any(String),
    });
    expect(swift.validations.every((v: any) => typeof v.authority.facility === "string")).toBe(true);
    const ruleFeatures = swift.rulesets.flatMap((r: any) =>
      r.rules.flatMap((rule: any) => rule.flight_features),
    );
    expect(swift.flight_features.map((f: any) => f.flight_feature).sort()).toEqual(
      [...new Set(ruleFeatures.map((f: any) => f.flight_feature))].sort(),
    );
    for (const feature of swift.flight_features)
      expect(feature).toMatchObject({ flight_feature: expect.any(String), description: expect.any(String) });

    // Once submitted the authorization is requested: the same word for all.
    const submitted = await as(ANDROID, `/flight/v2/plan/${enc(plan.id)}/submit`, {
      method: "POST",
      body: "public=true",
      headers: FORM,
    });
    expect(submitted.status).toBe(200);
    for (const headers of [CPP, ANDROID, SWIFT]) expect(await statuses(headers)).toEqual(["accepted"]);
  });

  it("batch (Android FlightService.java 175–180): a whole briefing per plan, deleted plans left out", async () => {
    const plan = await fallonPlan();
    const gone = await fallonPlan();
    expect((await as(ANDROID, `/flight/v2/plan/${enc(gone.id)}`, { method: "DELETE" })).status).toBe(200);
    const res = await as(
      ANDROID,
      `/flight/v2/plan/batch/authorizations?flight_plan_ids=${plan.id},${gone.id}`,
    );
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(1);
    // What models/flight/AirMapFlightBriefing.java constructFromJson reads.
    expect(res.json.data[0]).toMatchObject({
      flight_plan_id: plan.id,
      color: expect.stringMatching(/^(green|yellow|orange|red)$/),
      created_at: expect.any(String),
      rulesets: [expect.objectContaining({ id: "usa_part_107" })],
      airspace: { color: expect.any(String), advisories: expect.any(Array) },
      validations: expect.any(Array),
      authorizations: [expect.objectContaining({ status: "authorized_upon_submission" })],
    });
    // Swift reads the same route (FlightPlanClient.swift 65–70) into AirMapFlightPlanAuthorizations.
    const swift = await as(SWIFT, `/flight/v2/plan/batch/authorizations?flight_plan_ids=${plan.id}`);
    expect(swift.json.data[0].authorizations[0].status).toBe("authorized_upon_submission");
    const cpp = await as(CPP, `/flight/v2/plan/batch/authorizations?flight_plan_ids=${plan.id}`);
    expect(cpp.json.data[0].authorizations[0].status).toBe("accepted_upon_submission");
  });
});

describe("fields the Android and Swift models read, sent to every client", () => {
  it("advisories (Android RulesetService.getAdvisories body): controlled airspace, airport and heliport under their names", async () => {
    const body = {
      rulesets: "usa_part_107",
      geometry: FALLON_BOX,
      start: new Date(Date.now() + 3_600_000).toISOString(),
      end: new Date(Date.now() + 7_200_000).toISOString(),
    };
    const res = await as(ANDROID, "/advisory/v1/airspace", { method: "POST", body });
    expect(res.status).toBe(200);
    const byType = (type: string) => res.json.data.advisories.filter((a: any) => a.type === type);
    const controlled = byType("controlled_airspace");
    expect(controlled.length).toBeGreaterThan(0);
    for (const { properties: p } of controlled) {
      // AirMapControlledAirspaceProperties.java 31–32 (Android); JSONSerialization.swift 254–255 (Swift floor).
      expect(p.classAirspace).toBe(p.airspace_classification);
      expect(p.airportIdentifier).toBe(p.airport_id ?? null);
      expect("floor" in p).toBe(true);
    }
    expect(controlled.some((a: any) => a.properties.classAirspace === "D")).toBe(true);
    // AirMapAirportProperties.java 54.
    for (const { properties: p } of byType("airport")) expect(p.longestRunway).toBe(p.longest_runway);
    // AirMapHeliportProperties.java 26 (Android), JSONSerialization.swift HeliportProperties (Swift).
    const heliports = byType("heliport");
    expect(heliports.length).toBeGreaterThan(0);
    for (const { properties: p } of heliports) expect(p.use).toBe(p.usage);
  });

  it("the evaluation carries created_at (Android reads it as a briefing, AirMapFlightBriefing.java 42)", async () => {
    const res = await as(ANDROID, "/rules/v1/evaluation", {
      method: "POST",
      body: { rulesets: "usa_part_107", geometry: FALLON_CELL_AREA },
    });
    expect(res.status).toBe(200);
    expect(Date.parse(res.json.data.created_at)).not.toBeNaN();
    expect(
      res.json.data.airspace.advisories.find((a: any) => a.type === "controlled_airspace").properties,
    ).toMatchObject({ classAirspace: "D" });
  });

  it("an airspace record's related_geometry (AirMapAirspace.java 43–44): the property's own area where it is one", async () => {
    const search = await as(
      ANDROID,
      `/airspace/v2/search?geometry=${enc(JSON.stringify(FALLON_BOX))}&types=school,controlled_airspace&full=true`,
    );
    expect(search.status).toBe(200);
    const school = search.json.data.find((r: any) => r.type === "school");
    const record = (await as(ANDROID, `/airspace/v2/${enc(school.id)}`)).json.data;
    expect(record.related_geometry.property_boundary).toEqual({
      id: `${school.id}#property_boundary`,
      geometry: record.geometry,
    });
    const controlled = search.json.data.find((r: any) => r.type === "controlled_airspace");
    expect(controlled.related_geometry).toEqual({});
  });

  it("a plan's public and notify (AirMapFlightPlan.java 83, 86): false until submitted, then the flight's", async () => {
    const plan = await fallonPlan();
    expect(plan).toMatchObject({ public: false, notify: false });
    await as(ANDROID, `/flight/v2/plan/${enc(plan.id)}/submit`, {
      method: "POST",
      body: "public=true",
      headers: FORM,
    });
    const read = (await as(ANDROID, `/flight/v2/plan/${enc(plan.id)}`)).json.data;
    expect(read).toMatchObject({ public: true, notify: false });
    const flight = (await as(ANDROID, `/flight/v2/${enc(read.flight_id)}?enhance=true`)).json.data;
    expect(flight.public).toBe(true);
    expect((await as(ANDROID, `/flight/v2/${enc(read.flight_id)}/plan`)).json.data.public).toBe(true);
  });

  it("the end answer (AirMapFlight: pilot, aircraft) with the model's manufacturer url (AirMapAircraftManufacturer.java 30)", async () => {
    const makers = (await as(ANDROID, "/aircraft/v2/manufacturer")).json.data;
    const models = (await as(ANDROID, "/aircraft/v2/model")).json.data;
    const model = models[0];
    const maker = makers.find((m: any) => m.id === model.manufacturer.id);
    expect(model.manufacturer).toEqual({ id: maker.id, name: maker.name, url: maker.url });
    expect((await as(ANDROID, `/aircraft/v2/model/${enc(model.id)}`)).json.data.manufacturer.url).toBe(
      maker.url,
    );

    const craft = await as(ANDROID, `/pilot/v2/${enc(pilot.pilotId)}/aircraft`, {
      method: "POST",
      body: { model_id: model.id, nickname: "ender" },
    });
    expect(craft.status).toBe(200);
    const plan = await fallonPlan();
    await as(ANDROID, `/flight/v2/plan/${enc(plan.id)}`, {
      method: "PATCH",
      body: { aircraft_id: craft.json.data.id },
    });
    const flightId = (await as(ANDROID, `/flight/v2/plan/${enc(plan.id)}/submit`, { method: "POST" })).json
      .data.flight_id;
    const ended = await as(ANDROID, `/flight/v2/${enc(flightId)}/end`, { method: "POST" });
    expect(ended.status).toBe(200);
    expect(ended.json.data).toMatchObject({
      id: flightId,
      end_time: expect.any(String),
      pilot: { id: pilot.pilotId, username: expect.any(String) },
      aircraft: {
        id: craft.json.data.id,
        nickname: "ender",
        model: { id: model.id, manufacturer: { id: maker.id, url: maker.url } },
      },
    });
  });

  it("the pilot's own profile carries anonymized_id (AirMapPilot.java 47), another pilot's does not", async () => {
    const own = (await as(ANDROID, `/pilot/v2/${enc(pilot.pilotId)}`)).json.data;
    expect(own.anonymized_id).toMatch(/^anon\|[0-9a-f]{32}$/);
    expect((await as(ANDROID, "/pilot/v2/profile")).json.data.anonymized_id).toBe(own.anonymized_id);
    const other = await tokenFor(account, "dialect-other");
    const seen = await call(`/pilot/v2/${enc(pilot.pilotId)}`, {
      apiKey: account.apiKey,
      token: other.token,
      headers: ANDROID,
    });
    expect(seen.json.data.anonymized_id).toBeUndefined();
  });
});
