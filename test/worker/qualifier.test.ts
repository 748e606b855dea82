import { beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../worker/interuss/auth";
import { RID_SCOPES } from "../../worker/rid/constants";
import { call, interussToken } from "./helpers";

/**
 * The uss_qualifier (interuss/monitoring v0.34.0) scenarios that need no DSS, in small: each the
 * requests its scenario sends and the checks it makes. GeneralFlightAuthorization,
 * uspace.flight_auth.Validation, SpOperatorNotifyMissingFields, ServiceProviderNotifiesSlowUpdates,
 * and the interfaces' own error bodies.
 */

const PLAN = "/interuss/flight_planning/v1";
const INJECT = "/interuss/rid/v1";
const HOUR = 3_600_000;

let planner: string;
let injector: string;
beforeAll(async () => {
  planner = await interussToken([SCOPES.flightPlanningPlan]);
  injector = await interussToken([RID_SCOPES.injectTestData]);
});

/** A plan over the Pacific, away from any airspace: nothing stops it but its own data. */
function plan(uspace?: Record<string, unknown>) {
  const start = Date.now() + HOUR;
  return {
    flight_plan: {
      basic_information: {
        usage_state: "Planned",
        uas_state: "Nominal",
        area: [
          {
            volume: {
              outline_polygon: {
                vertices: [
                  { lat: 29.99, lng: -140.01 },
                  { lat: 29.99, lng: -139.99 },
                  { lat: 30.01, lng: -139.99 },
                  { lat: 30.01, lng: -140.01 },
                ],
              },
              altitude_lower: { value: 0, reference: "W84", units: "M" },
              altitude_upper: { value: 60, reference: "W84", units: "M" },
            },
            time_start: { value: new Date(start).toISOString(), format: "RFC3339" },
            time_end: { value: new Date(start + HOUR).toISOString(), format: "RFC3339" },
          },
        ],
      },
      ...(uspace ? { uspace_flight_authorisation: uspace } : {}),
    },
    execution_style: "IfAllowed",
    request_id: crypto.randomUUID(),
  };
}

const validAuthorisation = {
  uas_serial_number: "1ABCB2A1B2C3D4E5",
  operation_mode: "Vlos",
  operation_category: "Open",
  uas_class: "C1",
  identification_technologies: ["ASTMNetRID"],
  uas_type_certificate: "",
  connectivity_methods: ["cellular"],
  endurance_minutes: 30,
  emergency_procedure_url: "https://example.com/emergency",
  operator_id: "FIN87astrdge12k8-xyz",
};

describe("GeneralFlightAuthorization", () => {
  it("plans, then deletes the plan with the planning scope (as InterUSS's mock USS accepts)", async () => {
    const id = crypto.randomUUID();
    const planned = await call(`${PLAN}/flight_plans/${id}`, { method: "PUT", token: planner, body: plan() });
    expect(planned.json).toMatchObject({ planning_result: "Completed", flight_plan_status: "Planned" });
    const deleted = await call(`${PLAN}/flight_plans/${id}`, { method: "DELETE", token: planner });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json).toMatchObject({ planning_result: "Completed", flight_plan_status: "Closed" });
    // A token with neither scope is still refused.
    const other = await interussToken([SCOPES.geospatialMapQuery]);
    expect((await call(`${PLAN}/flight_plans/${id}`, { method: "DELETE", token: other })).status).toBe(403);
  });
});

describe("uspace.flight_auth.Validation", () => {
  it("rejects invalid flight authorisation data (NotPlanned), then plans the valid one", async () => {
    const invalid = [
      { uas_serial_number: "My serial number" },
      { operator_id: "FIN87astrdge12k9-xyz" },
      { operator_id: "not an operator id" },
      { endurance_minutes: 0 },
      { uas_class: "Other" },
    ];
    for (const change of invalid) {
      const res = await call(`${PLAN}/flight_plans/${crypto.randomUUID()}`, {
        method: "PUT",
        token: planner,
        body: plan({ ...validAuthorisation, ...change }),
      });
      expect(res.json, JSON.stringify(change)).toMatchObject({
        planning_result: "Rejected",
        flight_plan_status: "NotPlanned",
      });
      expect(res.json.notes).toMatch(/U-space flight authorisation/);
    }
    const valid = await call(`${PLAN}/flight_plans/${crypto.randomUUID()}`, {
      method: "PUT",
      token: planner,
      body: plan(validAuthorisation),
    });
    expect(valid.json).toMatchObject({ planning_result: "Completed", flight_plan_status: "Planned" });
  });
});

/** One state of an injected flight: every field the standard requires, unless `without` names it (null). */
function state(at: number, lat: number, lng: number, without: string[] = []) {
  const full: Record<string, unknown> = {
    timestamp: { value: new Date(at).toISOString(), format: "RFC3339" },
    timestamp_accuracy: 0.1,
    operational_status: "Airborne",
    position: { lat, lng, alt: 520, accuracy_h: "HA3m", accuracy_v: "VA10m" },
    track: 90,
    speed: 5,
    speed_accuracy: "SA1mps",
    vertical_speed: 0,
  };
  for (const field of without) full[field] = null;
  return full;
}

function injected(id: string, telemetry: Record<string, unknown>[]) {
  return {
    requested_flights: [
      {
        injection_id: id,
        telemetry,
        details_responses: [
          { effective_after: new Date(Date.now() - 60_000).toISOString(), details: { id: "uss.test" } },
        ],
      },
    ],
  };
}

async function notificationsSince(after: number) {
  const res = await call(`${INJECT}/user_notifications?after=${new Date(after).toISOString()}`, {
    token: injector,
  });
  expect(res.status, res.text).toBe(200);
  return res.json.user_notifications as { observed_at: { value: string }; message: string }[];
}

describe("SpOperatorNotifyMissingFields", () => {
  it("accepts states whose optional fields are null and notifies the operator of each missing one", async () => {
    const start = Date.now() - 5_000;
    const telemetry = Array.from({ length: 5 }, (_, i) =>
      state(
        start + i * 1000,
        46.97,
        7.47 + i * 0.0001,
        i === 2 ? ["timestamp_accuracy", "speed_accuracy"] : [],
      ),
    );
    const testId = crypto.randomUUID();
    const res = await call(`${INJECT}/tests/${testId}`, {
      method: "PUT",
      token: injector,
      body: injected("missing-fields", telemetry),
    });
    expect(res.status, res.text).toBe(200);
    const notes = (await notificationsSince(start - 1000)).filter((n) =>
      n.message.includes("missing-fields"),
    );
    expect(notes.map((n) => n.message)).toEqual([
      "Flight missing-fields, telemetry 2: missing field timestamp_accuracy",
      "Flight missing-fields, telemetry 2: missing field speed_accuracy",
    ]);
    expect(notes[0]!.observed_at.value).toBe(new Date(start + 2000).toISOString());
    await call(`${INJECT}/tests/${testId}/${res.json.version}`, { method: "DELETE", token: injector });
    expect(
      (await notificationsSince(start - 1000)).filter((n) => n.message.includes("missing-fields")),
    ).toEqual([]);
  });
});

describe("ServiceProviderNotifiesSlowUpdates", () => {
  it("notifies the operator, with the time, when telemetry comes at 0.5 Hz", async () => {
    const start = Date.now() - 30_000;
    const slow = Array.from({ length: 31 }, (_, i) => state(start + i * 2000, 46.98, 7.47 + i * 0.0001));
    const testId = crypto.randomUUID();
    const res = await call(`${INJECT}/tests/${testId}`, {
      method: "PUT",
      token: injector,
      body: injected("slow-updates", slow),
    });
    expect(res.status, res.text).toBe(200);
    const notes = (await notificationsSince(start)).filter((n) => n.message.includes("slow-updates"));
    expect(notes).toEqual([
      {
        observed_at: { value: new Date(start + 10_000).toISOString(), format: "RFC3339" },
        message: expect.stringMatching(/below 1 Hz/),
      },
    ]);
    // A flight at 1 Hz raises none.
    const steady = Array.from({ length: 20 }, (_, i) => state(start + i * 1000, 46.99, 7.47 + i * 0.0001));
    await call(`${INJECT}/tests/${crypto.randomUUID()}`, {
      method: "PUT",
      token: injector,
      body: injected("steady-updates", steady),
    });
    expect((await notificationsSince(start)).filter((n) => n.message.includes("steady-updates"))).toEqual([]);
  });
});

describe("the interfaces' own error bodies", () => {
  it("answers unknown routes, 405 and 415 under /interuss and /rid with {message}", async () => {
    const unknown = await call("/interuss/nothing/here", { token: planner });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ message: expect.any(String) });
    const ridUnknown = await call("/rid/v2/uss/nothing", { token: injector });
    expect(ridUnknown.status).toBe(404);
    expect(ridUnknown.json).toEqual({ message: expect.any(String) });
    const wrongMethod = await call(`${PLAN}/status`, { method: "POST", token: planner });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.json).toEqual({ message: expect.any(String) });
    const wrongType = await call(`${PLAN}/flight_plans/${crypto.randomUUID()}`, {
      method: "PUT",
      token: planner,
      body: "usage=Planned",
      headers: { "Content-Type": "text/plain" },
    });
    expect(wrongType.status).toBe(415);
    expect(wrongType.json).toEqual({ message: expect.any(String) });
  });
});
