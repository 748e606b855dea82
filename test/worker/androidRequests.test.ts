import { beforeAll, describe, expect, it } from "vitest";
import { FALLON_CELL_AREA, loadAirspaceFixtures } from "./airspaceFixtures";
import { createPlan } from "./flightFixtures";
import { call, createAccount, type TestAccount, tokenFor } from "./helpers";

/**
 * The Android SDK's requests exactly as it sends them (airmap/AirMapSDK-Android a57f5ff,
 * airmapsdk/src/main/java/com/airmap/airmapsdk/networking/services/), refused before (issue #35
 * item 5), and the fields its models read from the answers. OkHttp's FormBody (AirMapClient.java
 * 429–439 `bodyFromMap`) is `application/x-www-form-urlencoded`; `postWithJsonBody` (176–199) is
 * `application/json; charset=utf-8`.
 */

const FORM = { "Content-Type": "application/x-www-form-urlencoded" };
const JSON_UTF8 = { "Content-Type": "application/json; charset=utf-8" };
let account: TestAccount;
let pilot: { token: string; pilotId: string };

beforeAll(async () => {
  await loadAirspaceFixtures();
  account = await createAccount("android requests");
  pilot = await tokenFor(account, "android-pilot");
});

const asPilot = (path: string, init: Parameters<typeof call>[1] = {}) =>
  call(path, { apiKey: account.apiKey, token: pilot.token, ...init });

/** Utils.makeGeoString: Coordinate.toString is "lon lat" (Coordinate.java 98–100), joined by ",". */
const geoString = (ring: number[][]) => ring.map(([lon, lat]) => `${lon} ${lat}`).join(",");

describe("Android SDK requests", () => {
  it("PilotService.createAircraft (125–126) posts a form of model_id and nickname; AirMapAircraft reads id, nickname, model", async () => {
    const res = await asPilot(`/pilot/v2/${encodeURIComponent(pilot.pilotId)}/aircraft`, {
      method: "POST",
      headers: FORM,
      body: new URLSearchParams({ model_id: "model|dji-mini-2", nickname: "Android bird" }).toString(),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.id).toBeTruthy();
    expect(res.json.data.nickname).toBe("Android bird");
    expect(res.json.data.model.id).toBe("model|dji-mini-2");

    // updateAircraft (157–158) patches a form of getAsParamsPatch: the nickname.
    const patched = await asPilot(
      `/pilot/v2/${encodeURIComponent(pilot.pilotId)}/aircraft/${encodeURIComponent(res.json.data.id)}`,
      { method: "PATCH", headers: FORM, body: new URLSearchParams({ nickname: "Renamed" }).toString() },
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.data.nickname).toBe("Renamed");

    const missing = await asPilot(`/pilot/v2/${encodeURIComponent(pilot.pilotId)}/aircraft`, {
      method: "POST",
      headers: FORM,
      body: new URLSearchParams({ nickname: "No model" }).toString(),
    });
    expect(missing.status).toBe(400);
    expect(missing.json.data.errors.map((e: any) => e.name)).toContain("model_id");
  });

  it("PilotService.updatePhoneNumber (61–65) patches a form with the phone", async () => {
    const res = await asPilot(`/pilot/v2/${encodeURIComponent(pilot.pilotId)}`, {
      method: "PATCH",
      headers: FORM,
      body: new URLSearchParams({ phone: "+13105551212" }).toString(),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.phone).toBe("+13105551212");
  });

  it("PilotService.updatePilot (49–51) sends app_metadata from getAsParams (AirMapPilot.java 57–71): accepted, ignored", async () => {
    const res = await asPilot(`/pilot/v2/${encodeURIComponent(pilot.pilotId)}`, {
      method: "PATCH",
      headers: JSON_UTF8,
      body: JSON.stringify({
        first_name: "Ann",
        last_name: "Droid",
        user_metadata: {},
        app_metadata: { tier: "gold" },
      }),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.first_name).toBe("Ann");
    expect(res.json.data.app_metadata).toEqual({});
  });

  it("RulesetService.getRulesets(Coordinate) (102–111) posts latitude and longitude as strings", async () => {
    const res = await call("/rules/v1", {
      method: "POST",
      apiKey: account.apiKey,
      headers: JSON_UTF8,
      body: JSON.stringify({ latitude: "39.4795", longitude: "-118.7875" }),
    });
    expect(res.status, res.text).toBe(200);
    // AirMapRuleset.java 94–116: id, name, short_name, description, selection_type, airspace_types, rules.
    const ids = res.json.data.map((r: any) => r.id);
    expect(ids).toContain("usa_part_107");
    const part107 = res.json.data.find((r: any) => r.id === "usa_part_107");
    for (const field of ["name", "short_name", "description", "selection_type", "airspace_types", "rules"])
      expect(part107).toHaveProperty(field);

    const bad = await call("/rules/v1", {
      method: "POST",
      apiKey: account.apiKey,
      headers: JSON_UTF8,
      body: JSON.stringify({ latitude: "north", longitude: "-84.119" }),
    });
    expect(bad.status).toBe(400);
    expect(bad.json.data.errors.map((e: any) => e.name)).toContain("latitude");
  });

  it("RulesetService.getRulesets(List<String>) (124–131) asks GET /rules/v1?rulesets=a,b", async () => {
    const res = await call(`/rules/v1?rulesets=${encodeURIComponent("usa_part_107,usa_advisories")}`, {
      apiKey: account.apiKey,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.map((r: any) => r.id)).toEqual(["usa_part_107", "usa_advisories"]);
  });

  it("StatusService.checkPolygon (85–89) and checkFlightPath (58–66) send WKT as the SDK writes it", async () => {
    const ring = FALLON_CELL_AREA.coordinates[0]!;
    // AirMapStatus.getAsParams (71–91): latitude, longitude, weather; then geometry (and buffer for a path).
    const polygon = new URLSearchParams({
      latitude: String(ring[0]![1]),
      longitude: String(ring[0]![0]),
      weather: "false",
      geometry: `POLYGON(${geoString(ring.slice(0, -1))})`,
    });
    const res = await call(`/status/v2/polygon?${polygon}`, { apiKey: account.apiKey });
    expect(res.status, res.text).toBe(200);
    // AirMapStatus reads max_safe_distance, advisory_color, advisories.
    expect(res.json.data).toHaveProperty("advisory_color");
    expect(Array.isArray(res.json.data.advisories)).toBe(true);
    const standard = await call(
      `/status/v2/polygon?geometry=${encodeURIComponent(`POLYGON((${geoString(ring)}))`)}`,
      { apiKey: account.apiKey },
    );
    expect(standard.status, standard.text).toBe(200);
    expect(standard.json.data.advisories).toEqual(res.json.data.advisories);

    const path = new URLSearchParams({
      latitude: String(ring[0]![1]),
      longitude: String(ring[0]![0]),
      weather: "false",
      geometry: `LINESTRING(${geoString(ring.slice(0, 2))})`,
      buffer: "20",
    });
    const along = await call(`/status/v2/path?${path}`, { apiKey: account.apiKey });
    expect(along.status, along.text).toBe(200);
    expect(along.json.data).toHaveProperty("advisory_color");

    const broken = await call(`/status/v2/path?geometry=${encodeURIComponent("LINESTRING(-84.1 north)")}`, {
      apiKey: account.apiKey,
    });
    expect(broken.status).toBe(400);
    expect(broken.json.data.errors[0].name).toBe("geometry");
  });

  it("FlightService.getFlightFeatures (170–173) asks GET /flight/v2/plan/{id}/features", async () => {
    const plan = await createPlan(account, pilot.token, {
      geometry: FALLON_CELL_AREA,
      takeoff_latitude: 39.4795,
      takeoff_longitude: -118.7875,
    });
    const res = await asPilot(`/flight/v2/plan/${encodeURIComponent(plan.id)}/features`);
    expect(res.status, res.text).toBe(200);
    const features = res.json.data as any[];
    expect(features.length).toBeGreaterThan(0);
    // AirMapFlightFeature.java 152–158 reads these.
    for (const feature of features) {
      expect(typeof feature.flight_feature).toBe("string");
      expect(["conflicting", "not_conflicting", "missing_info", "informational"]).toContain(feature.status);
      expect(typeof feature.input_type).toBe("string");
      expect(typeof feature.description).toBe("string");
      expect(typeof feature.is_calculated).toBe("boolean");
    }
    expect(new Set(features.map((f) => f.flight_feature)).size).toBe(features.length);
    const stranger = await tokenFor(account, "someone-else");
    const other = await call(`/flight/v2/plan/${encodeURIComponent(plan.id)}/features`, {
      apiKey: account.apiKey,
      token: stranger.token,
    });
    expect(other.status).toBe(403);
  });
});
