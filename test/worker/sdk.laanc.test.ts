import { beforeAll, describe, expect, it } from "vitest";
import laancSuites from "../fixtures/sdk/laanc-suites.json";
import { loadAirspaceFixtures, loadLaancSuiteAirspace } from "./airspaceFixtures";
import { call, createAccount, type TestAccount, tokenFor } from "./helpers";

/**
 * The C++ SDK's eight LAANC suites (`airmap test --test-suite=laanc.…`,
 * src/airmap/cmds/airmap/cmd/test/laanc.phoenix.cpp): the requests each suite sends, in its order,
 * and each answer checked as the suite checks it. The plans are the suites' own
 * (test/fixtures/sdk/laanc-suites.json).
 */

interface Suite {
  name: string;
  plan: Record<string, unknown>;
  start_time: { day_start_plus_hours?: number; move_to_hour?: number };
  duration_minutes: number;
  final_authorization: "accepted" | "rejected";
}

const HOUR = 3_600_000;

/** The suite's start time: today's date plus hours, or `move_to_hour(now, 16)` (the next 16:xx UTC). */
function startOf(suite: Suite, now: number): number {
  const day = Math.floor(now / (24 * HOUR)) * 24 * HOUR;
  if (suite.start_time.day_start_plus_hours !== undefined)
    return day + suite.start_time.day_start_plus_hours * HOUR;
  const hour = suite.start_time.move_to_hour!;
  const currentHour = Math.floor((now - day) / HOUR);
  return now + ((hour > currentHour ? 0 : 24) + hour - currentHour) * HOUR;
}

/** Times as the C++ SDK writes them: microseconds and Z. */
const cppTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

let account: TestAccount;
beforeAll(async () => {
  await loadAirspaceFixtures();
  await loadLaancSuiteAirspace();
  account = await createAccount();
});

describe("the C++ SDK's LAANC suites (laanc.phoenix.cpp)", () => {
  for (const suite of laancSuites.suites as Suite[]) {
    it(`${suite.name}: plan, brief, submit, brief twice, delete the plan, end and delete the flight`, async () => {
      const { token } = await tokenFor(account, `suite-${suite.name}`);
      const as = { apiKey: account.apiKey, token };

      // query_pilot: Pilots::authenticated.
      const profile = await call("/pilot/v2/profile", as);
      expect(profile.status).toBe(200);
      const pilotId = profile.json.data.id;
      // The suite needs an aircraft (its operator added one before).
      await call(`/pilot/v2/${pilotId}/aircraft`, {
        ...as,
        method: "POST",
        body: { nickname: "suite", model_id: "model|dji-mini-2" },
      });
      // query_aircrafts: the first one.
      const aircraft = await call(`/pilot/v2/${pilotId}/aircraft`, as);
      expect(aircraft.json.data.length).toBeGreaterThan(0);

      // plan_flight: create_by_polygon, the suite's JSON with pilot, aircraft and times.
      const start = startOf(suite, Date.now());
      const created = await call("/flight/v2/plan", {
        ...as,
        method: "POST",
        body: {
          ...suite.plan,
          pilot_id: pilotId,
          aircraft_id: aircraft.json.data[0].id,
          start_time: cppTime(start),
          end_time: cppTime(start + suite.duration_minutes * 60_000),
        },
      });
      expect(created.status, created.text).toBe(200);
      const planId = created.json.data.id;
      const briefing = () => call(`/flight/v2/plan/${planId}/briefing`, as);

      // evaluate_initial_briefing: some rule has the feature flight_authorized, code
      // laanc_authorization_required, status conflicting.
      const initial = await briefing();
      expect(initial.status).toBe(200);
      const laancConflicted = initial.json.data.rulesets
        .flatMap((r: any) => r.rules)
        .flatMap((r: any) => r.flight_features)
        .filter(
          (f: any) =>
            f.flight_feature === "flight_authorized" &&
            f.code === "laanc_authorization_required" &&
            f.status === "conflicting",
        );
      expect(laancConflicted.length).toBeGreaterThan(0);
      // The manual suite's take-off point is near LAX, 582 km from its area in Phoenix: accepted,
      // and reported (CONTRACT §4).
      const takeoff = initial.json.data.validations.filter((v: any) => v.feature.code === "takeoff_position");
      if (suite.name === "laanc.phoenix.manual")
        expect(takeoff).toEqual([
          expect.objectContaining({ status: "invalid", data: expect.stringMatching(/^58\d(\.\d)? km$/) }),
        ]);
      else expect(takeoff).toEqual([]);

      // submit_flight_plan: evaluate_submitted_flight_plan wants a flight id.
      const submitted = await call(`/flight/v2/plan/${planId}/submit`, { ...as, method: "POST" });
      expect(submitted.status).toBe(200);
      const flightId = submitted.json.data.flight_id;
      expect(flightId).toEqual(expect.any(String));

      // rerender_briefing: any decodable briefing passes.
      expect((await briefing()).status).toBe(200);
      // render_final_briefing (5 s later in the suite; decisions here are immediate): the first
      // authorization is FAA LAANC's, accepted (rejected at Reno).
      const final = await briefing();
      expect(final.status).toBe(200);
      expect(final.json.data.authorizations[0]).toMatchObject({
        status: suite.final_authorization,
        authority: { id: "faa-laanc" },
      });

      // delete_flight_plan → end_flight → delete_flight (the suite on master): the flight may be
      // planned, active or (start at 16:00 UTC today) already over; each step answers 200.
      const deletedPlan = await call(`/flight/v2/plan/${planId}`, { ...as, method: "DELETE" });
      expect(deletedPlan.status, deletedPlan.text).toBe(200);
      expect(deletedPlan.json.data).toEqual({ id: planId });
      const ended = await call(`/flight/v2/${flightId}/end`, { ...as, method: "POST" });
      expect(ended.status, ended.text).toBe(200);
      expect(ended.json.data.end_time).toEqual(expect.any(String));
      const deletedFlight = await call(`/flight/v2/${flightId}/delete`, { ...as, method: "POST" });
      expect(deletedFlight.status, deletedFlight.text).toBe(200);
      expect((await call(`/flight/v2/${flightId}`, as)).status).toBe(404);
    });
  }
});

describe("the C++ SDK's simulate-scenario (simulate_scenario.cpp)", () => {
  it("authenticates, creates a flight by polygon, starts comms, and after the scenario ends comms and the flight", async () => {
    // authenticate_anonymously.
    const auth = await call("/auth/v1/anonymous/token", {
      method: "POST",
      apiKey: account.apiKey,
      body: { user_id: "scenario-participant" },
    });
    expect(auth.status).toBe(200);
    const as = { apiKey: account.apiKey, token: auth.json.data.id_token };
    // create_flight_by_polygon: start now, end after the scenario's duration, take-off at the
    // ring's first position, the body as the SDK encodes it.
    const polygon = laancSuites.suites[1]!.plan.geometry;
    const [lng, lat] = polygon.coordinates[0]![0]!;
    const durationMs = 1_500;
    const now = Date.now();
    const created = await call("/flight/v2/polygon", {
      ...as,
      method: "POST",
      body: {
        latitude: lat,
        longitude: lng,
        max_altitude: 0,
        start_time: cppTime(now),
        end_time: cppTime(now + durationMs),
        public: false,
        notify: false,
        buffer: 0,
        geometry: polygon,
      },
    });
    expect(created.status, created.text).toBe(200);
    const flightId = created.json.data.id;
    // start_flight_communications: a key to encrypt the telemetry with.
    const comms = await call(`/flight/v2/${flightId}/start-comm`, { ...as, method: "POST" });
    expect(comms.status, comms.text).toBe(200);
    expect(comms.json.data.key).toEqual(expect.any(String));
    // After the scenario's duration (the flight's end_time has just passed): end comms, end the flight.
    await new Promise((resolve) => setTimeout(resolve, durationMs + 50));
    const endComms = await call(`/flight/v2/${flightId}/end-comm`, { ...as, method: "POST" });
    expect(endComms.status, endComms.text).toBe(200);
    const ended = await call(`/flight/v2/${flightId}/end`, { ...as, method: "POST" });
    expect(ended.status, ended.text).toBe(200);
    expect(ended.json.data.end_time).toBe(new Date(now + durationMs).toISOString());
  });
});
