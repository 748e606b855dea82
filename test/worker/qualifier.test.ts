import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../worker/interuss/auth";
import { putSource } from "../../worker/interuss/geospatialMap";
import { RID_SCOPES } from "../../worker/rid/constants";
import tables from "../fixtures/interuss/feature_check_tables.json";
import recorded from "../fixtures/interuss/qualifier_flight_plans.json";
import { call, interussToken } from "./helpers";

/**
 * The uss_qualifier (interuss/monitoring v0.34.0) scenarios that need no DSS, in small: each the
 * requests its scenario sends and the checks it makes. GeneralFlightAuthorization,
 * uspace.flight_auth.Validation, SpOperatorNotifyMissingFields, ServiceProviderNotifiesSlowUpdates,
 * GeospatialFeatureComprehension with InterUSS's own feature check tables, and the interfaces' own
 * error bodies. Each names the qualifier file whose requests and checks it follows.
 */

const PLAN = "/interuss/flight_planning/v1";
const GEO = "/interuss/geospatial_map/v1";
const INJECT = "/interuss/rid/v1";
const HOUR = 3_600_000;

let planner: string;
let injector: string;
let mapReader: string;
beforeAll(async () => {
  planner = await interussToken([SCOPES.flightPlanningPlan]);
  injector = await interussToken([RID_SCOPES.injectTestData]);
  mapReader = await interussToken([SCOPES.geospatialMapQuery]);
});

/**
 * A plan over the Pacific, away from any airspace (and from the other files' plans, which it would
 * meet): nothing stops it but its own data.
 */
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
                  { lat: 28.99, lng: -141.01 },
                  { lat: 28.99, lng: -140.99 },
                  { lat: 29.01, lng: -140.99 },
                  { lat: 29.01, lng: -141.01 },
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

/**
 * A request the qualifier sent (test/fixtures/interuss/qualifier_flight_plans.json), its times moved
 * by as much as has passed since it was recorded, so the plan lies as far ahead as it did then.
 */
function replayed(request: { recorded_at: string; body: unknown }) {
  const shift = Date.now() - Date.parse(request.recorded_at);
  return JSON.parse(JSON.stringify(request.body), (key, value) =>
    (key === "time_start" || key === "time_end") && value?.value
      ? { ...value, value: new Date(Date.parse(value.value) + shift).toISOString() }
      : value,
  );
}

describe("GeneralFlightAuthorization (scenarios/interuss/flight_authorization/general_flight_authorization.py)", () => {
  it("accepts each row of example_flight_check_table as the qualifier sends it, then closes it", async () => {
    // MustBeAccepted: Completed with Planned or OkToFly ("Successful planning"), then the plan deleted.
    for (const [row, request] of Object.entries(recorded.general_flight_authorization)) {
      const id = crypto.randomUUID();
      const planned = await call(`${PLAN}/flight_plans/${id}`, {
        method: "PUT",
        token: planner,
        body: replayed(request),
      });
      expect(planned.status, `${row} ${planned.text}`).toBe(200);
      expect(planned.json.planning_result, row).toBe("Completed");
      expect(["Planned", "OkToFly"]).toContain(planned.json.flight_plan_status);
      const closed = await call(`${PLAN}/flight_plans/${id}`, { method: "DELETE", token: planner });
      expect(closed.json, row).toMatchObject({ planning_result: "Completed", flight_plan_status: "Closed" });
    }
  });

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

describe("uspace.flight_auth.Validation (scenarios/uspace/flight_auth/validation.py)", () => {
  it("rejects InterUSS's invalid_flight_auth and plans its valid_flight_auth, as the qualifier sends them", async () => {
    const invalid = await call(`${PLAN}/flight_plans/${crypto.randomUUID()}`, {
      method: "PUT",
      token: planner,
      body: replayed(recorded.validation.invalid_flight_auth),
    });
    // _attempt_invalid_flights: (Rejected, NotPlanned) expected; Failed fails the check.
    expect(invalid.json).toMatchObject({ planning_result: "Rejected", flight_plan_status: "NotPlanned" });
    const id = crypto.randomUUID();
    const valid = await call(`${PLAN}/flight_plans/${id}`, {
      method: "PUT",
      token: planner,
      body: replayed(recorded.validation.valid_flight_auth),
    });
    expect(valid.json).toMatchObject({ planning_result: "Completed", flight_plan_status: "Planned" });
    await call(`${PLAN}/flight_plans/${id}`, { method: "DELETE", token: planner });
  });

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

/**
 * One state of an injected flight as the qualifier's FlightDataResource makes it: every field F3411
 * requires. `null` names fields it blanks: `truncate_flights_field` sets the field to None, which the
 * harness sends as JSON null (`"position": null`, or `position.lat: null`).
 */
function state(at: number, lat: number, lng: number, blank: string[] = []) {
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
  for (const field of blank) {
    const [head, sub] = field.split(".");
    if (sub) (full[head!] as Record<string, unknown>)[sub] = null;
    else full[head!] = null;
  }
  return full;
}

/** A flight of `count` states `everyMs` apart from `start`, northwards from (lat, lng). */
function track(start: number, count: number, everyMs: number, lat: number, lng: number) {
  return Array.from({ length: count }, (_, i) => state(start + i * everyMs, lat + i * 0.00005, lng));
}

function injected(injectionId: string, telemetry: Record<string, unknown>[]) {
  return {
    requested_flights: [
      {
        injection_id: injectionId,
        telemetry,
        details_responses: [
          { effective_after: new Date(Date.now() - 60_000).toISOString(), details: { id: "uss.test" } },
        ],
      },
    ],
  };
}

async function inject(telemetry: Record<string, unknown>[]) {
  const [testId, injectionId] = [crypto.randomUUID(), crypto.randomUUID()];
  const res = await call(`${INJECT}/tests/${testId}`, {
    method: "PUT",
    token: injector,
    body: injected(injectionId, telemetry),
  });
  // injection.py inject_flights: "Successful injection" wants a 200.
  expect(res.status, res.text).toBe(200);
  return { testId, injectionId, version: res.json.version as string };
}

async function deleteTest({ testId, version }: { testId: string; version: string }) {
  const res = await call(`${INJECT}/tests/${testId}/${version}`, { method: "DELETE", token: injector });
  expect(res.status, res.text).toBe(200);
}

/** TimeSyncMaxDifferentialSeconds (uas_standards F3548-21 constants), which injection.py allows. */
const TIME_SYNC_MAX_DIFFERENTIAL_MS = 5_000;

/**
 * The qualifier's get_user_notifications (scenarios/astm/netrid/injection.py): `after` and `before`
 * as Python's isoformat, a 200, and no notification dated later than the moment of asking plus 5 s
 * ("returned notifications in the future"). Windsock's own promise is stricter: none dated after
 * the answer.
 */
async function userNotifications(after: number, before: number) {
  const iso = (t: number) => encodeURIComponent(new Date(t).toISOString().replace("Z", "000+00:00"));
  const res = await call(`${INJECT}/user_notifications?after=${iso(after)}&before=${iso(before)}`, {
    token: injector,
  });
  const answered = Date.now();
  expect(res.status, res.text).toBe(200);
  const notes = res.json.user_notifications as { observed_at: { value: string }; message: string }[];
  for (const n of notes) {
    expect(Date.parse(n.observed_at.value), n.message).toBeLessThanOrEqual(answered);
    expect(Date.parse(n.observed_at.value)).toBeLessThanOrEqual(answered + TIME_SYNC_MAX_DIFFERENTIAL_MS);
  }
  return notes;
}

/** The fields SpOperatorNotifyMissingFields blanks (monitorlib/rid_automated_testing/injection_api.py, less timestamp). */
const BLANKED_FIELDS = [
  "timestamp_accuracy",
  "position",
  "track",
  "speed",
  "speed_accuracy",
  "vertical_speed",
  "position.lat",
  "position.lng",
  "position.alt",
];

const sleepUntil = (t: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, t - Date.now())));

describe("SpOperatorNotifyMissingFields (scenarios/astm/netrid/common/sp_operator_notify_missing_fields.py)", () => {
  it("takes each blanked field, position: null among them, and notifies it by the time the state is due", async () => {
    for (const field of BLANKED_FIELDS) {
      // flight_data_resources.py truncate_flights_field: the first state only loses the field.
      const start = Date.now() - 3_000;
      const telemetry = track(start, 10, 1000, 46.97, 7.47);
      telemetry[0] = state(start, 46.97, 7.47, [field]);
      // _compute_notification_boundaries: from the earlier of now and the first state to the later of now and the last.
      const [after, before] = [Math.min(Date.now(), start), Math.max(Date.now(), start + 9_000)];
      const baseline = await userNotifications(after, before);
      const test = await inject(telemetry);
      const notes = await userNotifications(after, before);
      // NotificationsEvaluator.remaining_notifications_to_observe: more notifications than before injection.
      expect(notes.length, field).toBeGreaterThan(baseline.length);
      expect(notes.map((n) => n.message)).toContain(
        `Flight ${test.injectionId}, telemetry 0: missing field ${field}`,
      );
      await deleteTest(test);
      expect(await userNotifications(after, before)).toEqual(baseline);
    }
  });

  it("notifies a field missing from every state once, and a state still to come only once it is due", async () => {
    const start = Date.now() + 3_000;
    // The first state has a position (a flight needs one to be placed); the others none, and no track.
    const telemetry: Record<string, unknown>[] = track(start, 4, 1000, 46.98, 7.47).map((s, i) =>
      i === 0 ? { ...s, track: null } : { ...s, position: null, track: null },
    );
    const after = Date.now();
    const test = await inject(telemetry);
    expect(await userNotifications(after, start + 20_000)).toEqual([]);
    await sleepUntil(start + 3_100);
    expect((await userNotifications(after, start + 20_000)).map((n) => n.message)).toEqual([
      `Flight ${test.injectionId}, telemetry 0: missing field track`,
      `Flight ${test.injectionId}, telemetry 1: missing field position`,
    ]);
    await deleteTest(test);
  });
});

describe("ServiceProviderNotifiesSlowUpdates (scenarios/astm/netrid/common/sp_operator_notify_slow_update.py)", () => {
  it("dates the slow-rate notification when it is observed, never after the query", async () => {
    // drop_every_n_state(2) of a 1 Hz flight that starts flight_start_delay (5 s) after now: 0.5 Hz.
    const start = Date.now() + 5_000;
    const [after, before] = [Date.now(), start + 62_000];
    // "No notification sent since scenario start", before the injection.
    expect(await userNotifications(after, before)).toEqual([]);
    const test = await inject(track(start, 32, 2000, 46.99, 7.47));
    // Polled at once: the first slow window ends 15 s from now, so nothing yet (the qualifier refused
    // one dated at the end of that window, 10 s ahead of its query).
    expect(await userNotifications(after, before)).toEqual([]);
    await deleteTest(test);
  });

  it("notifies the operator once the first 10-second window at 0.5 Hz has passed", async () => {
    const start = Date.now() - 20_000;
    const test = await inject(track(start, 32, 2000, 46.995, 7.47));
    const notes = await userNotifications(start, start + 62_000);
    expect(notes).toEqual([
      {
        observed_at: { value: new Date(start + 10_000).toISOString(), format: "RFC3339" },
        message: expect.stringMatching(/below 1 Hz/),
      },
    ]);
    await deleteTest(test);
    // A flight at 1 Hz raises none.
    const steady = await inject(track(Date.now() - 20_000, 20, 1000, 46.999, 7.47));
    expect(await userNotifications(Date.now() - 21_000, Date.now() + 60_000)).toEqual([]);
    await deleteTest(steady);
  });
});

type Row =
  | (typeof tables.example_feature_check_table.rows)[number]
  | (typeof tables.generated_feature_check_table.rows)[number];
type Template = Record<string, unknown> | undefined;

/**
 * A row's times, resolved as the qualifier's Volume4DTemplate would be only where it matters here:
 * `StartOfTestRun` is now, a 1 h offset from it an hour on, a duration after the start; the later
 * days and sunsets the example table names are put a day or so ahead (the zones below are permanent).
 */
function timesOf(volume: Record<string, unknown>, now: number): [number, number] {
  const start =
    (volume.start_time as Template)?.time_during_test === "StartOfTestRun" || !volume.start_time
      ? now
      : now + 86_400_000;
  const offset = (volume.end_time as Template)?.offset_from as Template;
  const end = volume.duration
    ? start + 5 * 60_000
    : offset?.offset === "1h"
      ? now + 3_600_000
      : now + 36 * 3_600_000;
  return [start, end];
}

/**
 * The query GeospatialFeatureComprehension sends for one row (scenarios/interuss/geospatial_map/
 * geospatial_feature_comprehension.py `_map_query`, monitorlib/clients/geospatial_info/querying.py):
 * the row's volumes as F3548 Volume4D, its restriction_source and operation_rule_set as written
 * (`ThisRegulator`, `Rules1`), and the impact its expected_result asks for.
 */
function rowQuery(
  row: Row,
  now: number,
  { ruleSet = row.operation_rule_set, source = row.restriction_source } = {},
) {
  const volumes4d = row.volumes.map((v: Record<string, unknown>) => {
    const [start, end] = timesOf(v, now);
    const { outline_circle, outline_polygon, altitude_lower, altitude_upper } = v;
    return {
      volume: { outline_circle, outline_polygon, altitude_lower, altitude_upper },
      time_start: { value: new Date(start).toISOString(), format: "RFC3339" },
      time_end: { value: new Date(end).toISOString(), format: "RFC3339" },
    };
  });
  const impact = { Block: "Block", Advise: "Advise", Neither: "BlockOrAdvise" }[row.expected_result];
  return {
    checks: [
      {
        filter_sets: [
          {
            volumes4d,
            restriction_source: source,
            operation_rule_set: ruleSet,
            resulting_operational_impact: impact,
          },
        ],
      },
    ],
    request_id: crypto.randomUUID(),
  };
}

async function outcomeOf(body: unknown) {
  const res = await call(`${GEO}/map/queries`, { method: "POST", token: mapReader, body });
  expect(res.status, res.text).toBe(200);
  expect(res.json.results).toHaveLength(1);
  return res.json.results[0] as { features_selection_outcome: string; message?: string };
}

/** Where a row looks: its circle's centre or its polygon's first vertex. */
function placeOf(row: Row): { lat: number; lng: number } {
  const v = row.volumes[0] as {
    outline_circle?: { center: { lat: number; lng: number } };
    outline_polygon?: { vertices: { lat: number; lng: number }[] };
  };
  return v.outline_circle?.center ?? v.outline_polygon!.vertices[0]!;
}

/** ED-269 zones written for this test where the tables look (InterUSS's own sources have none there). */
function zonesAt(rows: Row[]) {
  const circle = (id: string, at: { lat: number; lng: number }, restriction: string, upperM: number) => ({
    identifier: id,
    country: "XXX",
    name: `Test zone ${id}`,
    type: "COMMON",
    restriction,
    reason: ["OTHER"],
    applicability: [{ permanent: "YES" }],
    geometry: [
      {
        uomDimensions: "M",
        lowerLimit: 0,
        lowerVerticalReference: "AGL",
        upperLimit: upperM,
        upperVerticalReference: "AGL",
        horizontalProjection: { type: "Circle", center: [at.lng, at.lat], radius: 300 },
      },
    ],
  });
  return {
    UASZoneList: rows.flatMap((row, i) => [
      circle(`T${i}B`, placeOf(row), "PROHIBITED", 40),
      circle(`T${i}A`, placeOf(row), "CONDITIONAL", 2000),
    ]),
  };
}

describe("GeospatialFeatureComprehension (scenarios/interuss/geospatial_map/geospatial_feature_comprehension.py)", () => {
  const rows: Row[] = [
    ...tables.example_feature_check_table.rows,
    ...tables.generated_feature_check_table.rows,
  ];

  it("answers InterUSS's rows (Rules1, ThisRegulator) instead of refusing the rule set, and finds the loaded zones", async () => {
    const now = Date.now();
    // Nothing is loaded there yet: each row is answered, Absent, never UnsupportedFilter.
    for (const row of rows)
      expect(await outcomeOf(rowQuery(row, now)), row.geospatial_check_id).toEqual({
        features_selection_outcome: "Absent",
      });
    const fetcher = (async () => new Response(JSON.stringify(zonesAt(rows)))) as unknown as typeof fetch;
    const id = crypto.randomUUID();
    expect(
      await putSource(
        env.DB,
        id,
        { https_source: { url: "https://regulator.example.com/zones.json", format: "ED-269" } },
        { development: false, fetcher, now },
      ),
    ).toEqual({ id, status: "Ready" });
    for (const row of rows)
      expect(await outcomeOf(rowQuery(row, now)), row.geospatial_check_id).toEqual({
        features_selection_outcome: "Present",
      });
    // One of this service's own rulesets is planned under as asked; the loaded zones still apply.
    const bern = rows[0]!;
    expect(await outcomeOf(rowQuery(bern, now, { ruleSet: "usa_part_107" }))).toEqual({
      features_selection_outcome: "Present",
    });
    // `windsock` names this service's own airspace only: nothing of its own at Bern.
    expect(await outcomeOf(rowQuery(bern, now, { source: "windsock" }))).toEqual({
      features_selection_outcome: "Absent",
    });
    await call(`${GEO}/geospatial_data_sources/${id}`, {
      method: "DELETE",
      token: await interussToken([SCOPES.geospatialMapDirect]),
    });
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
