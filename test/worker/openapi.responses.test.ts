import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { drizzle } from "drizzle-orm/d1";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import rulesetsFile from "../../data/airspace/rulesets.json";
import * as schema from "../../schema";
import { windsock } from "../../worker/client";
import type { Bindings } from "../../worker/env";
import app from "../../worker/index";
import { SCOPES } from "../../worker/interuss/auth";
import { CONFLICT, FAILURE_EXAMPLES, FORBIDDEN, NOT_FOUND } from "../../worker/lib/openapiFailures";
import { RID_SCOPES } from "../../worker/rid/constants";
import { intentIdOf } from "../../worker/services/operationalIntents";
import { saveAgreement } from "../../worker/store/agreements";
import { objectsOf, tileOf } from "../domain/elevationFixtures";
import weatherFixture from "../fixtures/weather/onecall-3.0-phoenix.json";
import { dssVolume } from "../geometries";
import { FALLON, FALLON_CELL_AREA, FALLON_PATH, loadAirspaceFixtures } from "./airspaceFixtures";
import { activeFlightBody, hour, iso, planBody } from "./flightFixtures";
import { BASE, type Call, call, createAccount, interussToken, type TestAccount } from "./helpers";
import { latestCode, newPilot, type TestPilot } from "./pilotFixtures";

/**
 * Every route of the app against `/openapi.json`: each documented operation is called for real and
 * its answer must validate against the document's schema for that status (OpenAPI 3.1 = JSON Schema
 * 2020-12), and every route the app serves must be documented or listed below with its reason.
 */

/** Served, but not operations of the JSON API (or not public): each with why. */
const NOT_DOCUMENTED: Record<string, string> = {
  "GET /openapi.json": "the document itself",
  "GET /docs": "the Swagger UI page (HTML)",
  "GET /favicon.ico": "an icon for browsers",
  "GET /create_flight/v1": "the deep-link page (HTML) a phone opens; spec 4.7",
  "POST /create_flight/v1": "the deep-link page's own form post (HTML answer)",
  "GET /create_flight/v1/sign_in": "the deep-link page's redirect to the application's identity provider",
  "GET /create_flight/v1/signed_in": "the identity provider's redirect back to the deep-link page",
  "GET /deeplink/v1/open": "the outer deep link a phone opens (a redirect or HTML); spec 4.7",
  "GET /.well-known/apple-app-site-association": "Apple's app association file, at its fixed name",
  "GET /.well-known/assetlinks.json": "Android's Digital Asset Links file, at its fixed name",
  "GET /internal/v1/flights/{flight_id}/session": "the UDP relay's internal API (relay credential)",
  "POST /internal/v1/telemetry": "the UDP relay's internal API (relay credential)",
  "POST /dev/v1/flights/{flight_id}/monitoring": "development-only switch for the live tests (hidden)",
  "GET /maps/v1/basemap.json": "the pages' vector basemap: TileJSON for their MapLibre map",
  "GET /maps/v1/basemap/{z}/{x}/{y}": "the pages' vector basemap: Mapbox Vector Tiles for their MapLibre map",
  "POST /internal/v1/traffic/clients": "the traffic broker's internal API (relay credential)",
  "DELETE /rid/v2/dss/identification_service_areas/{id}":
    "no operation of F3411's: a delete without the version, answered 400 as InterUSS's DSS does",
  "DELETE /rid/v2/dss/subscriptions/{id}":
    "no operation of F3411's: a delete without the version, answered 400 as InterUSS's DSS does",
  "DELETE /dss/v1/operational_intent_references/{entityid}":
    "no operation of F3548's: a delete without the OVN (400)",
  "DELETE /dss/v1/constraint_references/{entityid}":
    "no operation of F3548's: a delete without the OVN (400)",
  "DELETE /dss/v1/subscriptions/{subscriptionid}":
    "no operation of F3548's: a delete without the version (400)",
};

/** Documented, but not JSON: their 200 is checked for its media type only. */
const NOT_JSON: Record<string, string> = {
  "GET /flight/v2/{flight_id}/telemetry/stream": "text/event-stream",
  "GET /flight/v2/{flight_id}/live": "text/html",
  "GET /flight/v2/{flight_id}/briefing": "text/html",
  "GET /map": "text/html",
  "GET /flight/v2/{flight_id}/track": "text/csv",
  "GET /agreements/v2/agreement/{agreement_id}/pdf": "application/pdf",
};

/** Answer members that are free-form JSON by design (a schema accepting anything), with why. */
const FREE_FORM: Record<string, string> = {
  "user_metadata/additionalProperties": "the client's own JSON about its pilot, stored as sent",
  "app_metadata/additionalProperties": "the application's own JSON about its pilot, stored as sent",
  "OpenIdConfiguration/additionalProperties":
    "the identity provider's own discovery document, passed on as served",
};

/**
 * Shapes other areas still have to type (their owners' files); listed so that any new untyped answer
 * fails here. Remove an entry once its schema is typed.
 */
const NOT_YET_TYPED: Record<string, string> = {
  "AirspaceRecord/properties/rules/items": "worker/schemas/airspace.ts: always [] today",
};

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
};

let doc: Doc;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

/** The document's schema of an operation's answer, compiled once. */
function validatorOf(operation: string, status: string, type = "application/json") {
  const [method, path] = operation.split(" ") as [string, string];
  const pointer = ["paths", path, method.toLowerCase(), "responses", status, "content", type, "schema"]
    .map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1"))
    .join("/");
  const validate = ajv.getSchema(`openapi.json#/${pointer}`);
  if (!validate) throw new Error(`${operation}: no ${status} ${type} schema in the document`);
  return validate;
}

const checked = new Set<string>();

/** Asserts a real answer of `operation` validates against its documented schema. */
function expectDocumented(operation: string, res: { status: number; json: unknown; text: string }) {
  const status = String(res.status);
  const validate = validatorOf(operation, status);
  const valid = validate(res.json);
  expect(
    valid
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`),
    `${operation} ${status}: ${res.text.slice(0, 600)}`,
  ).toEqual([]);
  if (res.status >= 200 && res.status < 300) checked.add(operation);
}

/** A successful call: the documented success status (200, or 204 without a body) and its schema. */
async function ok(operation: string, path: string, options: Call = {}) {
  const [method, template] = operation.split(" ") as [string, string];
  const documented = Object.keys(doc.paths[template]?.[method.toLowerCase()]?.responses ?? {});
  const status = documented.includes("200") ? 200 : Number(documented.find((s) => s.startsWith("2")));
  const res = await call(path, { method, ...options });
  expect(res.status, `${operation}: ${res.text.slice(0, 600)}`).toBe(status);
  if (status === 204) {
    expect(res.text).toBe("");
    checked.add(operation);
  } else expectDocumented(operation, res);
  return res.json;
}

/** Failures provoked for real, as `status operation`: a declared 409 must be among them. */
const provoked = new Set<string>();

/** A JSend failure: the given status, and the document's Fail schema for it. */
async function fails(operation: string, path: string, status: number, options: Call = {}) {
  const res = await call(path, { method: operation.split(" ")[0], ...options });
  expect(res.status, `${operation}: ${res.text.slice(0, 300)}`).toBe(status);
  expect(res.json.status).toBe("fail");
  expectDocumented(operation, res);
  provoked.add(`${status} ${operation}`);
}

/** The app's routes as OpenAPI operations: `GET /flight/v2/{flight_id}`. */
function appOperations(): Set<string> {
  const operations = new Set<string>();
  for (const route of app.routes) {
    if (route.method === "ALL" || route.path.includes("*")) continue;
    const path = route.path.replace(/\/+$/, "").replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}");
    operations.add(`${route.method} ${path || "/"}`);
  }
  return operations;
}

function documentedOperations(): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

let account: TestAccount;
let pilot: TestPilot;
const as = (p: TestPilot = pilot): Call => ({ apiKey: p.apiKey, token: p.token });
const enc = encodeURIComponent;

beforeAll(async () => {
  const res = await SELF.fetch(`${BASE}/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as Doc;
  ajv.addSchema(doc as object, "openapi.json");
  await loadAirspaceFixtures();
  // Flat ground at 100 m over N10E020, for elevation and live conformance.
  for (const [key, bytes] of await objectsOf([tileOf(10, 20, 3, () => 100)]))
    await env.ELEVATION.put(key, bytes);
  account = await createAccount("openapi");
  pilot = await newPilot("openapi-pilot", account);
});

afterEach(() => vi.restoreAllMocks());

describe("the OpenAPI document", () => {
  it("documents every route the app serves, except those listed with a reason", () => {
    const documented = new Set(documentedOperations());
    const missing = [...appOperations()].filter((op) => !documented.has(op) && !(op in NOT_DOCUMENTED));
    expect(missing, "routes without an operation in /openapi.json").toEqual([]);
    // The list stays true: each entry is a real route.
    const served = appOperations();
    expect(Object.keys(NOT_DOCUMENTED).filter((op) => !served.has(op))).toEqual([]);
    // The schemas bite: a flight without its members, or a Fail with a string code, is refused.
    expect(validatorOf("GET /flight/v2/{flight_id}", "200")({ status: "success", data: { id: "x" } })).toBe(
      false,
    );
    expect(validatorOf("GET /flight/v2/{flight_id}", "404")({ status: "fail", data: { code: "404" } })).toBe(
      false,
    );
  });

  it("types every JSON answer: no schema that accepts anything, except where listed", () => {
    const components = (doc as unknown as { components: { schemas: Record<string, unknown> } }).components;
    const untyped = new Set<string>();
    const seen = new Set<unknown>();
    const walk = (schema: unknown, at: string) => {
      if (!schema || typeof schema !== "object" || seen.has(schema)) return;
      seen.add(schema);
      const s = schema as Record<string, unknown>;
      if (typeof s.$ref === "string") {
        const name = s.$ref.replace("#/components/schemas/", "");
        return walk(components.schemas[name], `#/components/schemas/${name}`);
      }
      // A description beside a `$ref` (allOf) adds words, not values.
      const empty = Object.keys(s).filter((k) => k !== "description").length === 0 && !at.includes("/allOf/");
      const listed = [...Object.keys(FREE_FORM), ...Object.keys(NOT_YET_TYPED)].some((a) => at.endsWith(a));
      if (empty && !listed) untyped.add(at);
      for (const [key, value] of Object.entries(s)) {
        if (key === "example" || key === "examples") continue;
        // `properties: {}` with `additionalProperties: false` is the typed empty object.
        if (key === "properties" && s.additionalProperties === false) continue;
        walk(value, `${at}/${key}`);
      }
    };
    for (const operation of documentedOperations()) {
      const [method, path] = operation.split(" ") as [string, string];
      for (const [status, response] of Object.entries(doc.paths[path]![method.toLowerCase()]!.responses))
        walk(response.content?.["application/json"], `${operation} ${status}`);
    }
    expect([...untyped]).toEqual([]);
  });
});

/** Operations answering JSend failures (the standards' interfaces answer their own bodies). */
function jsendOperations() {
  const operations: [string, any][] = [];
  for (const [path, item] of Object.entries<any>(doc.paths))
    for (const [method, op] of Object.entries<any>(item)) {
      const refs = Object.values<any>(op.responses).map((r) => r.content?.["application/json"]?.schema?.$ref);
      if (refs.includes("#/components/schemas/Fail"))
        operations.push([`${method.toUpperCase()} ${path}`, op]);
    }
  return operations;
}

describe("the document's failures and examples, for a newcomer", () => {
  it("declares on each operation only the failures it can answer, each with its reason", () => {
    const documented = new Set(documentedOperations());
    for (const table of [NOT_FOUND, CONFLICT, FORBIDDEN])
      expect(Object.keys(table).filter((op) => !documented.has(op))).toEqual([]);
    for (const [name, op] of jsendOperations()) {
      const declared = Object.keys(op.responses);
      const withKey = (op.security ?? []).some((s: object) => "ApiKey" in s);
      const takesInput = (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined;
      expect(declared.includes("404"), `${name} 404`).toBe(name in NOT_FOUND);
      expect(declared.includes("409"), `${name} 409`).toBe(name in CONFLICT);
      expect(declared.includes("401"), `${name} 401`).toBe(withKey);
      expect(declared.includes("400"), `${name} 400`).toBe(takesInput);
      // Never the old generic wording: each failure says what it is about.
      for (const status of ["404", "409"])
        if (op.responses[status])
          expect(op.responses[status].description).not.toMatch(/^No such record$|^The record's state/);
    }
    // The issue's own case: elevation cannot conflict, and only the carpet finds no data.
    const elevation = jsendOperations().filter(([name]) => name.includes("/elevation/"));
    expect(elevation.length).toBeGreaterThan(0);
    for (const [name, op] of elevation) {
      expect(op.responses["409"], name).toBeUndefined();
      expect(op.responses["404"] !== undefined, name).toBe(name.endsWith("/carpet"));
    }
    expect(doc.paths["/health"]!.get!.responses["401"]).toBeUndefined();
  });

  it("shows real failure bodies: the 400 is the service's own answer", async () => {
    for (const [name, op] of jsendOperations())
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (!(status in FAILURE_EXAMPLES)) continue;
        const example = response.content["application/json"].example;
        expect(example, `${name} ${status}`).toEqual(FAILURE_EXAMPLES[status]);
      }
    const real = await call("/elevation/v1/ele?points=91,-84.2", { apiKey: account.apiKey });
    expect(real.json).toEqual(FAILURE_EXAMPLES["400"]);
    const anonymous = await call("/elevation/v1/ele?points=36.3,-84.2");
    expect(anonymous.json).toEqual(FAILURE_EXAMPLES["401"]);
  });

  it("starts with getting started, lists the pilot's schemes first and keeps the UDP tables under Telemetry", () => {
    const full = doc as any;
    expect(Object.keys(full.components.securitySchemes).slice(0, 2)).toEqual(["ApiKey", "Bearer"]);
    const description: string = full.info.description;
    expect(description.startsWith("**Getting started**")).toBe(true);
    for (const step of ["X-API-Key", "POST /auth/v1/anonymous/token", "GET /elevation/v1/ele"])
      expect(description).toContain(step);
    expect(description).not.toContain("| Offset |");
    const telemetry = full.tags.find((t: { name: string }) => t.name === "Telemetry");
    expect(telemetry.description).toContain("| Offset |");
  });

  it("gives examples from the embedded data: real rulesets, real ground", () => {
    const known = new Set(rulesetsFile.rulesets.map((r: { id: string }) => r.id));
    const named: string[] = [];
    // Values of fields named for rulesets: in example objects, or a schema's own example.
    const visit = (node: unknown) => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (!node || typeof node !== "object") return;
      for (const [key, value] of Object.entries(node)) {
        if (/ruleset/.test(key)) {
          const example =
            typeof value === "object" && value !== null && "example" in value ? value.example : value;
          const values = [example].flat();
          if (values.every((v) => typeof v === "string")) named.push(...values.flatMap((v) => v.split(",")));
        }
        visit(value);
      }
    };
    // Every example of a field named for rulesets names rulesets of the embedded data.
    for (const item of Object.values<any>(doc.paths))
      for (const op of Object.values<any>(item))
        for (const parameter of op.parameters ?? [])
          if (/ruleset/.test(parameter.name) && parameter.schema?.example !== undefined)
            named.push(...String(parameter.schema.example).split(","));
    visit((doc as any).components.schemas);
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((id) => !known.has(id))).toEqual([]);
    // The elevation example sits on the embedded ground: Cross Mountain and Gothenburg.
    const ele = doc.paths["/elevation/v1/ele"]!.get! as any;
    expect(ele.parameters.find((p: { name: string }) => p.name === "points").schema.example).toBe(
      "36.19833,-84.23056,57.7,11.9",
    );
  });
});

describe("answers of every operation validate against the document", () => {
  it("service, tokens and development routes", async () => {
    await ok("GET /health", "/health");
    await ok("POST /auth/v1/anonymous/token", "/auth/v1/anonymous/token", {
      apiKey: account.apiKey,
      body: { user_id: "openapi-second" },
    });
    await fails("POST /auth/v1/anonymous/token", "/auth/v1/anonymous/token", 400, {
      apiKey: account.apiKey,
      body: {},
    });
    await fails("POST /auth/v1/anonymous/token", "/auth/v1/anonymous/token", 401, { body: { user_id: "x" } });
    await ok("GET /.well-known/jwks.json", "/.well-known/jwks.json");
    await ok("GET /dev/v1/db-ping", "/dev/v1/db-ping", { apiKey: account.apiKey });
    await ok("GET /system/v1/status", "/system/v1/status", { apiKey: account.apiKey });
    await ok("GET /system/v1/sign_in_metrics", "/system/v1/sign_in_metrics", { apiKey: account.apiKey });
    // A WebSocket, not JSON: its 101 and first message (test/worker/swiftRequests.test.ts reads it as the SDK does).
    const monitor = await SELF.fetch(`${BASE}/system/v1/status/monitor`, {
      headers: { Upgrade: "websocket", "X-API-Key": account.apiKey },
    });
    expect(monitor.status).toBe(101);
    monitor.webSocket!.accept();
    monitor.webSocket!.close(1000, "done");
    checked.add("GET /system/v1/status/monitor");
  });

  it("pilots", async () => {
    const unreachable = await newPilot("openapi-no-contact", account);
    for (const channel of ["phone", "email"] as const)
      await fails(
        `POST /pilot/v2/{id}/${channel}/send_token`,
        `/pilot/v2/${enc(unreachable.pilotId)}/${channel}/send_token`,
        409,
        as(unreachable),
      );
    await ok("GET /pilot/v2/profile", "/pilot/v2/profile", as());
    await ok("GET /pilot/v2/{id}", pilot.path, as());
    await ok("PATCH /pilot/v2/{id}", pilot.path, {
      ...as(),
      body: {
        first_name: "Ada",
        email: "ada@example.com",
        phone: "+14155550100",
        user_metadata: { team: "openapi" },
      },
    });
    for (const channel of ["phone", "email"] as const) {
      await ok(`POST /pilot/v2/{id}/${channel}/send_token`, `${pilot.path}/${channel}/send_token`, as());
      const code = await latestCode(pilot, channel);
      await ok(`POST /pilot/v2/{id}/${channel}/verify_token`, `${pilot.path}/${channel}/verify_token`, {
        ...as(),
        body: { token: code },
      });
    }
    await ok("GET /dev/v1/outbox", `/dev/v1/outbox?pilot_id=${enc(pilot.pilotId)}`, { apiKey: pilot.apiKey });
    await fails("PATCH /pilot/v2/{id}", pilot.path, 400, { ...as(), body: { email: 5 } });
    await fails("GET /pilot/v2/{id}", "/pilot/v2/pilot%7Cnobody", 404, as());
  });

  it("aircraft", async () => {
    const manufacturers = await ok("GET /aircraft/v2/manufacturer", "/aircraft/v2/manufacturer", {
      apiKey: account.apiKey,
    });
    const models = await ok(
      "GET /aircraft/v2/model",
      `/aircraft/v2/model?manufacturer=${enc(manufacturers.data[0].id)}`,
      { apiKey: account.apiKey },
    );
    const model = models.data[0];
    await ok("GET /aircraft/v2/model/{id}", `/aircraft/v2/model/${enc(model.id)}`, {
      apiKey: account.apiKey,
    });
    const created = await ok("POST /pilot/v2/{id}/aircraft", `${pilot.path}/aircraft`, {
      ...as(),
      body: { nickname: "Spec checker", model_id: model.id },
    });
    const path = `${pilot.path}/aircraft/${enc(created.data.id)}`;
    await ok("GET /pilot/v2/{id}/aircraft", `${pilot.path}/aircraft`, as());
    await ok("GET /pilot/v2/{id}/aircraft/{aircraft_id}", path, as());
    await ok("PATCH /pilot/v2/{id}/aircraft/{aircraft_id}", path, { ...as(), body: { nickname: "Renamed" } });
    await ok("DELETE /pilot/v2/{id}/aircraft/{aircraft_id}", path, as());
    await fails("GET /aircraft/v2/model/{id}", "/aircraft/v2/model/model%7Cnope", 404, {
      apiKey: account.apiKey,
    });
  });

  it("elevation", async () => {
    const key = { apiKey: account.apiKey };
    const points = "10.5,20.5,10.6,20.6";
    await ok("GET /elevation/v1/ele", `/elevation/v1/ele?points=${points}`, key);
    await ok("POST /elevation/v1/ele", "/elevation/v1/ele", { ...key, body: { points } });
    await ok("GET /elevation/v1/ele/carpet", `/elevation/v1/ele/carpet?points=${points}`, key);
    await ok("POST /elevation/v1/ele/carpet", "/elevation/v1/ele/carpet", { ...key, body: { points } });
    await ok("GET /elevation/v1/ele/path", `/elevation/v1/ele/path?points=${points}`, key);
    await ok("POST /elevation/v1/ele/path", "/elevation/v1/ele/path", { ...key, body: { points } });
    await fails("GET /elevation/v1/ele", "/elevation/v1/ele?points=10.5", 400, key);
  });

  it("flight plans, briefings and the plan's flight (through the typed client)", async () => {
    const client = windsock(BASE, {
      apiKey: pilot.apiKey,
      token: pilot.token,
      fetch: ((input: RequestInfo | URL, init?: RequestInit) => SELF.fetch(input, init)) as typeof fetch,
    });
    const body = planBody({
      takeoff_latitude: FALLON.latitude,
      takeoff_longitude: FALLON.longitude,
      geometry: FALLON_CELL_AREA,
      max_altitude_agl: 60,
      rulesets: ["usa_part_107"],
    }) as Parameters<typeof client.flight.v2.plan.$post>[0]["json"];
    const created = await client.flight.v2.plan.$post({ json: body });
    const plan = await created.json();
    expectDocumented("POST /flight/v2/plan", {
      status: created.status,
      json: plan,
      text: JSON.stringify(plan),
    });
    if (plan.status !== "success") throw new Error("no plan");
    const id = plan.data.id;
    const path = `/flight/v2/plan/${enc(id)}`;
    await ok("GET /flight/v2/plan/{plan_id}", path, as());
    await ok("PATCH /flight/v2/plan/{plan_id}", path, { ...as(), body: { flight_description: "Survey" } });
    await ok("GET /flight/v2/plan/{plan_id}/briefing", `${path}/briefing`, as());
    await ok("GET /flight/v2/plan/{plan_id}/features", `${path}/features`, as());
    await ok("GET /rules/v1/{flight_plan_id}/evaluation", `/rules/v1/${enc(id)}/evaluation`, as());
    await ok("GET /advisory/v1/airspace/{flight_plan_id}", `/advisory/v1/airspace/${enc(id)}`, as());
    const submitted = await ok("POST /flight/v2/plan/{plan_id}/submit", `${path}/submit`, as());
    await ok(
      "GET /flight/v2/plan/batch/authorizations",
      `/flight/v2/plan/batch/authorizations?flight_plan_ids=${enc(id)}`,
      as(),
    );
    await ok("GET /flight/v2/{flight_id}/plan", `/flight/v2/${enc(submitted.data.flight_id)}/plan`, as());
    const briefingPage = await call(`/flight/v2/${enc(submitted.data.flight_id)}/briefing`, as());
    expect(briefingPage.status).toBe(200);
    expect(briefingPage.headers.get("content-type")).toContain(
      NOT_JSON["GET /flight/v2/{flight_id}/briefing"],
    );
    checked.add("GET /flight/v2/{flight_id}/briefing");
    await fails("POST /flight/v2/plan/{plan_id}/submit", `${path}/submit`, 409, as());
    await fails("PATCH /flight/v2/plan/{plan_id}", path, 409, { ...as(), body: { max_altitude_agl: 50 } });
    await fails("POST /flight/v2/plan", "/flight/v2/plan", 400, { ...as(), body: { geometry: 1 } });

    const other = await ok("POST /flight/v2/plan", "/flight/v2/plan", { ...as(), body: planBody() });
    await ok("DELETE /flight/v2/plan/{plan_id}", `/flight/v2/plan/${enc(other.data.id)}`, as());
    await fails("GET /flight/v2/plan/{plan_id}", `/flight/v2/plan/${enc(other.data.id)}`, 404, as());
  });

  it("flights", async () => {
    const point = await ok("POST /flight/v2/point", "/flight/v2/point", {
      ...as(),
      body: { latitude: 34.015, longitude: -118.485, start_time: iso(Date.now() - 60_000) },
    });
    await ok("POST /flight/v2/polygon", "/flight/v2/polygon", {
      ...as(),
      body: { latitude: FALLON.latitude, longitude: FALLON.longitude, geometry: FALLON_CELL_AREA },
    });
    const path = await ok("POST /flight/v2/path", "/flight/v2/path", {
      ...as(),
      body: {
        latitude: FALLON_PATH.coordinates[0]![1],
        longitude: FALLON_PATH.coordinates[0]![0],
        geometry: FALLON_PATH,
        start_time: iso(Date.now() + hour),
      },
    });
    const id = enc(point.data.id);
    await ok("GET /flight/v2/{flight_id}", `/flight/v2/${id}?enhance=true`, as());
    await ok("GET /flight/v2", "/flight/v2?enhance=true", as());
    // Active: it cannot be deleted before it ends.
    await fails("DELETE /flight/v2/{flight_id}", `/flight/v2/${id}`, 409, as());
    await fails("POST /flight/v2/{flight_id}/delete", `/flight/v2/${id}/delete`, 409, as());
    await ok("POST /flight/v2/{flight_id}/end", `/flight/v2/${id}/end`, as());
    await fails("POST /flight/v2/{flight_id}/start-comm", `/flight/v2/${id}/start-comm`, 409, as());
    // Ending again answers the recorded end (CONTRACT §4).
    await ok("POST /flight/v2/{flight_id}/end", `/flight/v2/${id}/end`, as());
    await ok("DELETE /flight/v2/{flight_id}", `/flight/v2/${enc(path.data.id)}`, as());
    const later = await ok("POST /flight/v2/point", "/flight/v2/point", {
      ...as(),
      body: { latitude: 34.015, longitude: -118.485, start_time: iso(Date.now() + hour) },
    });
    await ok("POST /flight/v2/{flight_id}/delete", `/flight/v2/${enc(later.data.id)}/delete`, as());
    await fails("GET /flight/v2/{flight_id}", "/flight/v2/flight%7Cnope", 404, as());
  });

  it("telemetry, the archive and live flights", async () => {
    const flight = await ok("POST /flight/v2/point", "/flight/v2/point", {
      ...as(),
      body: activeFlightBody(),
    });
    const id = enc(flight.data.id);
    await ok("POST /flight/v2/{flight_id}/start-comm", `/flight/v2/${id}/start-comm`, as());
    const state = (at: number) => ({
      timestamp: { value: iso(at), format: "RFC3339" },
      position: { lat: 10.5, lng: 20.5, alt: 150, accuracy_h: "HA3m" },
      track: 90,
      speed: 5,
      vertical_speed: 0,
    });
    await ok("POST /flight/v2/{flight_id}/telemetry", `/flight/v2/${id}/telemetry`, {
      ...as(),
      body: { states: [state(Date.now() - 2000), state(Date.now() - 1000)] },
    });
    await ok("GET /flight/v2/{flight_id}/telemetry", `/flight/v2/${id}/telemetry`, as());
    await ok("GET /archive/v1/telemetry/position", `/archive/v1/telemetry/position?flight_id=${id}`, as());
    await ok("GET /flight/v2/{flight_id}/conformance", `/flight/v2/${id}/conformance`, as());
    const ticket = await ok("POST /flight/v2/{flight_id}/ticket", `/flight/v2/${id}/ticket`, as());
    await ok("POST /flight/v2/{flight_id}/end-comm", `/flight/v2/${id}/end-comm`, as());
    await fails("GET /archive/v1/telemetry/position", "/archive/v1/telemetry/position", 400, as());

    // Not JSON: the live page and the event stream answer their own media types.
    const page = await SELF.fetch(ticket.data.live_url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain(NOT_JSON["GET /flight/v2/{flight_id}/live"]);
    await page.body?.cancel();
    checked.add("GET /flight/v2/{flight_id}/live");
    const track = await SELF.fetch(`${BASE}/flight/v2/${id}/track?format=csv&ticket=${ticket.data.ticket}`);
    expect(track.status).toBe(200);
    expect(track.headers.get("content-type")).toContain(NOT_JSON["GET /flight/v2/{flight_id}/track"]);
    await track.body?.cancel();
    checked.add("GET /flight/v2/{flight_id}/track");
    const stream = await SELF.fetch(ticket.data.stream_url);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain(
      NOT_JSON["GET /flight/v2/{flight_id}/telemetry/stream"],
    );
    await stream.body?.cancel();
    checked.add("GET /flight/v2/{flight_id}/telemetry/stream");
  });

  it("conformance webhooks", async () => {
    const key = { apiKey: account.apiKey };
    await fails("GET /webhooks/v1/conformance", "/webhooks/v1/conformance", 404, key);
    await ok("PUT /webhooks/v1/conformance", "/webhooks/v1/conformance", {
      ...key,
      body: { url: "https://hooks.example.com/windsock" },
    });
    await ok("GET /webhooks/v1/conformance", "/webhooks/v1/conformance", key);
    await ok("DELETE /webhooks/v1/conformance", "/webhooks/v1/conformance", key);
  });

  it("deep links", async () => {
    const key = { apiKey: account.apiKey };
    await ok("POST /deeplink/v1/callbacks", "/deeplink/v1/callbacks", {
      ...key,
      body: { url: "https://partner.example/cb" },
    });
    await ok("GET /deeplink/v1/callbacks", "/deeplink/v1/callbacks", key);
    await ok("POST /deeplink/v1/create_flight", "/deeplink/v1/create_flight", {
      ...key,
      body: { geometry: FALLON_CELL_AREA, callback_url: "https://partner.example/cb/done", altitude: 60 },
    });
    await fails("POST /deeplink/v1/create_flight", "/deeplink/v1/create_flight", 400, { ...key, body: {} });
  });

  it("rules, advisories and status", async () => {
    const key = { apiKey: account.apiKey };
    const area = JSON.stringify(FALLON_CELL_AREA);
    const rulesets = await ok("POST /rules/v1", "/rules/v1", {
      ...key,
      body: { geometry: FALLON_CELL_AREA },
    });
    const ids = rulesets.data.map((r: { id: string }) => r.id).join(",");
    await ok("GET /rules/v1/rule", `/rules/v1/rule?rulesets=${ids}`, key);
    await ok("GET /rules/v1", `/rules/v1?rulesets=${ids}`, key);
    await ok("GET /rules/v1/{ruleset_id}", `/rules/v1/${rulesets.data[0].id}`, key);
    await ok("POST /rules/v1/evaluation", "/rules/v1/evaluation", {
      ...key,
      body: { geometry: FALLON_CELL_AREA, rulesets: ids, flight_features: { flight_max_altitude_agl: 60 } },
    });
    await ok("GET /advisory/v1/airspace", `/advisory/v1/airspace?geometry=${enc(area)}&rulesets=${ids}`, key);
    await ok("POST /advisory/v1/airspace", "/advisory/v1/airspace", {
      ...key,
      body: { geometry: FALLON_CELL_AREA, rulesets: ids },
    });
    await ok("POST /advisory/v2/airspace", "/advisory/v2/airspace", {
      ...key,
      body: { geometry: FALLON_CELL_AREA, rulesets: ids },
    });
    const where = `latitude=${FALLON.latitude}&longitude=${FALLON.longitude}`;
    const line = JSON.stringify(FALLON_PATH);
    await ok("GET /status/v2/point", `/status/v2/point?${where}`, key);
    await ok("GET /map/status", `/map/status?${where}`);
    await ok("GET /", "/");
    const map = await call(`/map?${where}`, { headers: { Accept: "text/html" } });
    expect(map.status).toBe(200);
    expect(map.headers.get("content-type")).toContain(NOT_JSON["GET /map"]);
    checked.add("GET /map");
    await ok("GET /status/v2/polygon", `/status/v2/polygon?geometry=${enc(area)}`, key);
    await ok("POST /status/v2/polygon", "/status/v2/polygon", {
      ...key,
      body: { geometry: FALLON_CELL_AREA },
    });
    await ok("GET /status/v2/path", `/status/v2/path?geometry=${enc(line)}`, key);
    await ok("POST /status/v2/path", "/status/v2/path", { ...key, body: { geometry: FALLON_PATH } });
    await fails("GET /rules/v1/{ruleset_id}", "/rules/v1/no_such_ruleset", 404, key);
    await fails("POST /rules/v1/evaluation", "/rules/v1/evaluation", 400, { ...key, body: {} });
  });

  it("airspace records", async () => {
    const key = { apiKey: account.apiKey };
    const area = JSON.stringify(FALLON_CELL_AREA);
    const found = await ok(
      "GET /airspace/v2/search",
      `/airspace/v2/search?geometry=${enc(area)}&buffer=5000`,
      key,
    );
    await ok("POST /airspace/v2/search", "/airspace/v2/search", {
      ...key,
      body: { geometry: FALLON_CELL_AREA },
    });
    expect(found.data.length).toBeGreaterThan(0);
    const first = found.data[0].id as string;
    await ok("GET /airspace/v2/list", `/airspace/v2/list?ids=${enc(first)}`, key);
    await ok("GET /airspace/v2/{id}", `/airspace/v2/${enc(first)}`, key);
    await ok("GET /airspace/v2/sources", "/airspace/v2/sources", key);
    await fails("GET /airspace/v2/list", "/airspace/v2/list", 400, key);
  });

  it("weather, from a provider standing in for OpenWeather", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => Response.json(weatherFixture));
    const settings: Partial<Bindings> = { WEATHER_PROVIDER: "openweathermap", WEATHER_API_KEY: "owm-fake" };
    const ctx = createExecutionContext();
    const response = await app.fetch(
      new Request(
        `${BASE}/advisory/v1/weather?latitude=33.4342&longitude=-112.0116&start=2030-06-01T15:30:00Z&end=2030-06-01T16:10:00Z`,
        {
          headers: { "X-API-Key": account.apiKey },
        },
      ),
      { ...env, ...settings },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expectDocumented("GET /advisory/v1/weather", { status: 200, json: JSON.parse(text), text });
  });

  it("the SDKs' sign-in routes, through an identity provider standing in for the account's own", async () => {
    const signIn = await createAccount("openapi-sign-in");
    const now = Date.now();
    await env.DB.prepare(
      `INSERT INTO identity_providers (account_id, issuer, jwks_url, token_endpoint, audience, user_claim,
         client_id, allow_loopback, created_at, updated_at)
       VALUES (?, 'https://login.example.com/realms/pilots', 'https://login.example.com/jwks',
         'https://login.example.com/token', 'windsock', 'sub', 'windsock', 0, ?, ?)`,
    )
      .bind(signIn.accountId, now, now)
      .run();
    const tokens = {
      id_token: "eyJ.id.token",
      access_token: "eyJ.access.token",
      refresh_token: "refresh-1",
      token_type: "Bearer",
      expires_in: 300,
    };
    const asked: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      asked.push(String(input instanceof Request ? input.url : input));
      return Response.json(tokens);
    });
    const post = async (path: string, body: string, type: string) => {
      const ctx = createExecutionContext();
      const response = await app.fetch(
        new Request(`${BASE}${path}`, {
          method: "POST",
          headers: { "X-API-Key": signIn.apiKey, "Content-Type": type },
          body,
        }),
        env,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      const text = await response.text();
      expect(response.status, text).toBe(200);
      return { status: 200, json: JSON.parse(text), text };
    };
    const json = "application/json";
    const form = "application/x-www-form-urlencoded";
    expectDocumented(
      "POST /oauth/ro",
      await post(
        "/oauth/ro",
        JSON.stringify({ username: "p", password: "pw", grant_type: "password" }),
        json,
      ),
    );
    expectDocumented(
      "POST /delegation",
      await post("/delegation", "grant_type=refresh_token&refresh_token=refresh-1", form),
    );
    expectDocumented(
      "POST /realms/{realm}/protocol/openid-connect/token",
      await post(
        "/realms/airmap/protocol/openid-connect/token",
        "grant_type=password&username=p&password=pw&scopes=openid&device_id=d",
        form,
      ),
    );
    expect(asked).toEqual(Array(3).fill("https://login.example.com/token"));
    // Sign-out: this provider publishes no revocation endpoint, so its refresh token lapses on its own.
    const logoutCtx = createExecutionContext();
    const logout = await app.fetch(
      new Request(`${BASE}/realms/airmap/protocol/openid-connect/logout`, {
        method: "POST",
        headers: { "X-API-Key": signIn.apiKey, "Content-Type": form },
        body: "client_id=windsock&refresh_token=refresh-1",
      }),
      env,
      logoutCtx,
    );
    await waitOnExecutionContext(logoutCtx);
    expect(logout.status, await logout.clone().text()).toBe(204);
    expect(logout.headers.get("x-refresh-token-revoked")).toBe("false");
    checked.add("POST /realms/{realm}/protocol/openid-connect/logout");
    const ctx = createExecutionContext();
    const discovery = await app.fetch(
      new Request(`${BASE}/realms/airmap/.well-known/openid-configuration`, {
        headers: { "X-API-Key": signIn.apiKey },
      }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const text = await discovery.text();
    expect(discovery.status, text).toBe(200);
    expectDocumented("GET /realms/{realm}/.well-known/openid-configuration", {
      status: 200,
      json: JSON.parse(text),
      text,
    });
  });

  it("agreements (the Swift SDK's AgreementsClient)", async () => {
    await saveAgreement(drizzle(env.DB, { schema }), {
      id: "openapi-terms",
      authorityId: "faa-laanc",
      version: "1.0.0",
      type: "TERMS_AND_CONDITIONS",
      title: "Terms",
      text: "# Terms\n\nFly safely.",
    });
    const as = { apiKey: pilot.apiKey, token: pilot.token };
    const AGREEMENT = "/agreements/v2/agreement";
    await ok("GET /agreements/v2/authority/{authority_id}", "/agreements/v2/authority/faa-laanc", as);
    await ok("GET /agreements/v2/agreement/{agreement_id}", `${AGREEMENT}/openapi-terms?with_markdown=1`, as);
    await ok("GET /agreements/v2/agreement/{agreement_id}/agreed", `${AGREEMENT}/openapi-terms/agreed`, as);
    await ok("POST /agreements/v2/agreement/{agreement_id}/agree", `${AGREEMENT}/openapi-terms/agree`, {
      ...as,
      body: { agree_date: "2026-01-02T03:04:05.678+0000" },
    });
    await fails(
      "POST /agreements/v2/agreement/{agreement_id}/agree",
      `${AGREEMENT}/openapi-terms/agree`,
      400,
      {
        ...as,
        body: { agree_date: "yesterday" },
      },
    );
    await fails("GET /agreements/v2/agreement/{agreement_id}", `${AGREEMENT}/nope`, 404, as);
    await fails("GET /agreements/v2/agreement/{agreement_id}/pdf", `${AGREEMENT}/openapi-terms/pdf`, 401, {
      apiKey: pilot.apiKey,
    });
    const pdf = await SELF.fetch(`${BASE}${AGREEMENT}/openapi-terms/pdf`, {
      headers: { "X-API-Key": pilot.apiKey, Authorization: `Bearer ${pilot.token}` },
    });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe(NOT_JSON["GET /agreements/v2/agreement/{agreement_id}/pdf"]);
    await pdf.body?.cancel();
    checked.add("GET /agreements/v2/agreement/{agreement_id}/pdf");
  });

  it("InterUSS interfaces (their own JSON, not JSend)", async () => {
    const bearer = async (scope: string) => ({
      headers: { Authorization: `Bearer ${await interussToken([scope])}` },
    });
    const GEO = "/interuss/geospatial_map/v1";
    const PLAN = "/interuss/flight_planning/v1";
    await ok(`GET ${GEO}/status`, `${GEO}/status`, await bearer(SCOPES.geospatialMapDirect));
    await ok(`POST ${GEO}/map/queries`, `${GEO}/map/queries`, {
      ...(await bearer(SCOPES.geospatialMapQuery)),
      body: {
        checks: [
          {
            filter_sets: [
              {
                position: { location: { lat: 39.479, lng: -118.787 } },
                resulting_operational_impact: "Block",
              },
            ],
          },
        ],
      },
    });
    const source = crypto.randomUUID();
    const sourcePath = `${GEO}/geospatial_data_sources/${source}`;
    const sample = await import("../fixtures/interuss/cis_source_sample_ed269.json");
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => Response.json(sample.default));
    const direct = await bearer(SCOPES.geospatialMapDirect);
    await ok(`PUT ${GEO}/geospatial_data_sources/{geospatial_data_source_id}`, sourcePath, {
      ...direct,
      body: { https_source: { url: "https://caa.example.com/zones.json", format: "ED-269" } },
    });
    await ok(`GET ${GEO}/geospatial_data_sources/{geospatial_data_source_id}`, sourcePath, direct);
    await ok(`GET ${GEO}/geospatial_data_sources`, `${GEO}/geospatial_data_sources`, direct);
    await ok(`DELETE ${GEO}/geospatial_data_sources/{geospatial_data_source_id}`, sourcePath, direct);

    const planning = await bearer(SCOPES.flightPlanningPlan);
    const planDirect = await bearer(SCOPES.flightPlanningDirect);
    const volume = (start: number) => ({
      volume: {
        outline_polygon: {
          vertices: [
            { lat: 31.99, lng: -142.01 },
            { lat: 31.99, lng: -141.99 },
            { lat: 32.01, lng: -141.99 },
            { lat: 32.01, lng: -142.01 },
          ],
        },
        altitude_lower: { value: 0, reference: "W84", units: "M" },
        altitude_upper: { value: 50, reference: "W84", units: "M" },
      },
      time_start: { value: iso(start), format: "RFC3339" },
      time_end: { value: iso(start + hour), format: "RFC3339" },
    });
    await ok(`GET ${PLAN}/status`, `${PLAN}/status`, planDirect);
    const planPath = `${PLAN}/flight_plans/${crypto.randomUUID()}`;
    await ok(`PUT ${PLAN}/flight_plans/{flight_plan_id}`, planPath, {
      ...planning,
      body: {
        flight_plan: {
          basic_information: {
            usage_state: "Planned",
            uas_state: "Nominal",
            area: [volume(Date.now() + hour)],
          },
        },
        execution_style: "IfAllowed",
        request_id: crypto.randomUUID(),
      },
    });
    await ok(
      `GET ${PLAN}/user_notifications`,
      `${PLAN}/user_notifications?after=2024-04-22T16:36:50.52Z`,
      planning,
    );
    await ok(`DELETE ${PLAN}/flight_plans/{flight_plan_id}`, planPath, planDirect);
    await ok(`POST ${PLAN}/clear_area_requests`, `${PLAN}/clear_area_requests`, {
      ...planDirect,
      body: { request_id: crypto.randomUUID(), extent: volume(Date.now()) },
    });
  });

  it("Remote ID (F3411 display provider, ISA notifications, injection): their own JSON", async () => {
    const bearer = async (scope: string) => ({
      headers: { Authorization: `Bearer ${await interussToken([scope])}` },
    });
    const [lat, lng, now] = [46.95, 7.45, Date.now()];
    const telemetry = [-10, 0, 30].map((t) => ({
      timestamp: iso(now + t * 1000),
      timestamp_accuracy: 0.1,
      operational_status: "Airborne",
      position: { lat, lng: lng + t * 1e-4, alt: 600, extrapolated: false, pressure_altitude: 590 },
      height: { distance: 50, reference: "TakeoffLocation" },
      accuracy_h: "HA3m",
      accuracy_v: "VA10m",
      track: 90,
      speed: 8,
      speed_accuracy: "SA1mps",
      vertical_speed: 0,
    }));
    const flight = {
      injection_id: crypto.randomUUID(),
      aircraft_type: "Helicopter",
      telemetry,
      details_responses: [
        {
          effective_after: iso(now - 60_000),
          details: {
            id: "uss1.openapi",
            operator_id: "CHEm1234567abcdef",
            operator_location: { lat: lat - 0.001, lng },
            operation_description: "OpenAPI check",
            serial_number: "INTCJ123-4567-890",
            registration_number: "CHE87yth4irsi8w",
          },
        },
      ],
    };
    const inject = await bearer(RID_SCOPES.injectTestData);
    const display = await bearer(RID_SCOPES.displayProvider);
    const injected = await ok("PUT /interuss/rid/v1/tests/{test_id}", "/interuss/rid/v1/tests/openapi-1", {
      ...inject,
      body: { requested_flights: [flight] },
    });
    const flightId = injected.injected_flights[0].details_responses[0].details.id;
    const d = 0.004;
    await ok(
      "GET /rid/v2/uss/flights",
      `/rid/v2/uss/flights?view=${lat - d},${lng - d},${lat + d},${lng + d}`,
      display,
    );
    await ok("GET /rid/v2/uss/flights/{id}/details", `/rid/v2/uss/flights/${enc(flightId)}/details`, display);
    await ok(
      "POST /rid/v2/uss/identification_service_areas/{id}",
      `/rid/v2/uss/identification_service_areas/${crypto.randomUUID()}`,
      {
        ...(await bearer(RID_SCOPES.serviceProvider)),
        body: { subscriptions: [{ subscription_id: crypto.randomUUID() }] },
      },
    );
    await ok(
      "GET /interuss/rid/v1/user_notifications",
      `/interuss/rid/v1/user_notifications?after=${iso(now - hour)}`,
      inject,
    );
    await ok(
      "DELETE /interuss/rid/v1/tests/{test_id}/{version}",
      `/interuss/rid/v1/tests/openapi-1/${enc(injected.version)}`,
      inject,
    );
  });

  it("F3411-22a DSS (identification service areas and subscriptions): their own JSON", async () => {
    const bearer = async (scope: string) => ({
      headers: { Authorization: `Bearer ${await interussToken([scope], { sub: "openapi-uss" })}` },
    });
    const [sp, dp] = [await bearer(RID_SCOPES.serviceProvider), await bearer(RID_SCOPES.displayProvider)];
    const DSS = "/rid/v2/dss";
    const [lat, lng, d, now] = [41.3, 2.1, 0.005, Date.now()];
    const extents = dssVolume(lat, lng, d, now, now + hour);
    const area = [lat - d, lng - d, lat - d, lng + d, lat + d, lng + d, lat + d, lng - d].join(",");
    const [subId, isaId] = [crypto.randomUUID(), crypto.randomUUID()];
    const subscribed = await ok("PUT /rid/v2/dss/subscriptions/{id}", `${DSS}/subscriptions/${subId}`, {
      ...dp,
      body: { extents, uss_base_url: "https://dp.example/rid/v2" },
    });
    const resubscribed = await ok(
      "PUT /rid/v2/dss/subscriptions/{id}/{version}",
      `${DSS}/subscriptions/${subId}/${subscribed.subscription.version}`,
      { ...dp, body: { extents, uss_base_url: "https://dp.example/rid/v2" } },
    );
    await ok("GET /rid/v2/dss/subscriptions/{id}", `${DSS}/subscriptions/${subId}`, dp);
    await ok("GET /rid/v2/dss/subscriptions", `${DSS}/subscriptions?area=${area}`, dp);
    const created = await ok(
      "PUT /rid/v2/dss/identification_service_areas/{id}",
      `${DSS}/identification_service_areas/${isaId}`,
      { ...sp, body: { extents, uss_base_url: "https://sp.example/rid/v2" } },
    );
    const updated = await ok(
      "PUT /rid/v2/dss/identification_service_areas/{id}/{version}",
      `${DSS}/identification_service_areas/${isaId}/${created.service_area.version}`,
      { ...sp, body: { extents, uss_base_url: "https://sp.example/rid/v2" } },
    );
    await ok(
      "GET /rid/v2/dss/identification_service_areas/{id}",
      `${DSS}/identification_service_areas/${isaId}`,
      dp,
    );
    await ok(
      "GET /rid/v2/dss/identification_service_areas",
      `${DSS}/identification_service_areas?area=${area}`,
      dp,
    );
    await ok(
      "DELETE /rid/v2/dss/identification_service_areas/{id}/{version}",
      `${DSS}/identification_service_areas/${isaId}/${updated.service_area.version}`,
      sp,
    );
    await ok(
      "DELETE /rid/v2/dss/subscriptions/{id}/{version}",
      `${DSS}/subscriptions/${subId}/${resubscribed.subscription.version}`,
      dp,
    );
  });

  it("F3548-21 DSS (intents, constraints, subscriptions, reports, availability): their own JSON", async () => {
    const bearer = async (...scopes: string[]) => ({
      headers: { Authorization: `Bearer ${await interussToken(scopes, { sub: "openapi-uss" })}` },
    });
    const sc = await bearer("utm.strategic_coordination");
    const cm = await bearer("utm.constraint_management");
    const aa = await bearer("utm.availability_arbitration");
    const DSS = "/dss/v1";
    const [lat, lng, d, now] = [41.5, 2.3, 0.005, Date.now()];
    const volume = dssVolume(lat, lng, d, now, now + hour);
    const query = { body: { area_of_interest: volume } };
    const url = "https://uss.example/utm";
    const [oir, cr, sub] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const intent = {
      extents: [volume],
      state: "Accepted",
      uss_base_url: url,
      new_subscription: { uss_base_url: url },
    };
    const created = await ok(
      "PUT /dss/v1/operational_intent_references/{entityid}",
      `${DSS}/operational_intent_references/${oir}`,
      { ...sc, body: intent },
    );
    const updated = await ok(
      "PUT /dss/v1/operational_intent_references/{entityid}/{ovn}",
      `${DSS}/operational_intent_references/${oir}/${created.operational_intent_reference.ovn}`,
      { ...sc, body: intent },
    );
    await ok(
      "GET /dss/v1/operational_intent_references/{entityid}",
      `${DSS}/operational_intent_references/${oir}`,
      sc,
    );
    await ok(
      "POST /dss/v1/operational_intent_references/query",
      `${DSS}/operational_intent_references/query`,
      {
        ...sc,
        ...query,
      },
    );
    const conflict = await call(`${DSS}/operational_intent_references/${crypto.randomUUID()}`, {
      method: "PUT",
      ...sc,
      body: intent,
    });
    expect(conflict.status).toBe(409);
    expectDocumented("PUT /dss/v1/operational_intent_references/{entityid}", conflict);
    await ok(
      "DELETE /dss/v1/operational_intent_references/{entityid}/{ovn}",
      `${DSS}/operational_intent_references/${oir}/${updated.operational_intent_reference.ovn}`,
      sc,
    );
    const constraint = { extents: [volume], uss_base_url: url };
    const made = await ok(
      "PUT /dss/v1/constraint_references/{entityid}",
      `${DSS}/constraint_references/${cr}`,
      {
        ...cm,
        body: constraint,
      },
    );
    const changed = await ok(
      "PUT /dss/v1/constraint_references/{entityid}/{ovn}",
      `${DSS}/constraint_references/${cr}/${made.constraint_reference.ovn}`,
      { ...cm, body: constraint },
    );
    await ok("GET /dss/v1/constraint_references/{entityid}", `${DSS}/constraint_references/${cr}`, cm);
    await ok("POST /dss/v1/constraint_references/query", `${DSS}/constraint_references/query`, {
      ...cm,
      ...query,
    });
    await ok(
      "DELETE /dss/v1/constraint_references/{entityid}/{ovn}",
      `${DSS}/constraint_references/${cr}/${changed.constraint_reference.ovn}`,
      cm,
    );
    const subscription = { extents: volume, uss_base_url: url, notify_for_operational_intents: true };
    const subscribed = await ok("PUT /dss/v1/subscriptions/{subscriptionid}", `${DSS}/subscriptions/${sub}`, {
      ...sc,
      body: subscription,
    });
    const resubscribed = await ok(
      "PUT /dss/v1/subscriptions/{subscriptionid}/{version}",
      `${DSS}/subscriptions/${sub}/${subscribed.subscription.version}`,
      { ...sc, body: subscription },
    );
    await ok("GET /dss/v1/subscriptions/{subscriptionid}", `${DSS}/subscriptions/${sub}`, sc);
    await ok("POST /dss/v1/subscriptions/query", `${DSS}/subscriptions/query`, { ...sc, ...query });
    await ok(
      "DELETE /dss/v1/subscriptions/{subscriptionid}/{version}",
      `${DSS}/subscriptions/${sub}/${resubscribed.subscription.version}`,
      sc,
    );
    const exchange = {
      url: `${url}/uss/v1/operational_intents/${oir}`,
      method: "GET",
      recorder_role: "Client",
      request_time: { value: iso(now), format: "RFC3339" },
      request_source: "openapi-uss",
    };
    await ok("POST /dss/v1/reports", `${DSS}/reports`, { ...sc, body: { exchange } });
    const availability = await ok(
      "GET /dss/v1/uss_availability/{uss_id}",
      `${DSS}/uss_availability/openapi-uss`,
      aa,
    );
    await ok("PUT /dss/v1/uss_availability/{uss_id}", `${DSS}/uss_availability/openapi-uss`, {
      ...aa,
      body: { old_version: availability.version, availability: "Normal" },
    });
  });

  it("F3548-21 USS (details, telemetry, notifications, reports): their own JSON", async () => {
    const bearer = async (...scopes: string[]) => ({
      headers: { Authorization: `Bearer ${await interussToken(scopes, { sub: "openapi-peer" })}` },
    });
    const sc = await bearer("utm.strategic_coordination");
    const cmsa = await bearer("utm.conformance_monitoring_sa");
    const planning = await bearer(SCOPES.flightPlanningPlan);
    // A flight in use gone off-nominal: Windsock's Nonconforming intent, with a reported position.
    const [lat, lng, now] = [41.7, 2.6, Date.now()];
    const planId = crypto.randomUUID();
    const planned = await call(`/interuss/flight_planning/v1/flight_plans/${planId}`, {
      method: "PUT",
      ...planning,
      body: {
        flight_plan: {
          basic_information: {
            usage_state: "InUse",
            uas_state: "OffNominal",
            area: [dssVolume(lat, lng, 0.005, now - 60_000, now + hour)],
          },
        },
        execution_style: "IfAllowed",
        request_id: crypto.randomUUID(),
      },
    });
    expect(planned.json.flight_plan_status, planned.text).toBe("OffNominal");
    const link = await env.DB.prepare("SELECT flight_id FROM interuss_flight_plans WHERE id = ?")
      .bind(planId)
      .first<{ flight_id: string }>();
    await env.DB.prepare(
      "INSERT INTO live_positions (flight_id, cell_y, cell_x, latitude, longitude, reported_at) VALUES (?, ?, ?, ?, ?, ?)",
    )
      .bind(link!.flight_id, Math.floor(lat * 100), Math.floor(lng * 100), lat, lng, now)
      .run();
    const intentId = await intentIdOf(planId);
    const details = await ok(
      "GET /uss/v1/operational_intents/{entityid}",
      `/uss/v1/operational_intents/${intentId}`,
      sc,
    );
    await ok(
      "GET /uss/v1/operational_intents/{entityid}/telemetry",
      `/uss/v1/operational_intents/${intentId}/telemetry`,
      cmsa,
    );
    const theirs = crypto.randomUUID();
    await ok("POST /uss/v1/operational_intents", "/uss/v1/operational_intents", {
      ...sc,
      body: {
        operational_intent_id: theirs,
        operational_intent: {
          reference: { ...details.operational_intent.reference, id: theirs, manager: "openapi-peer" },
          details: details.operational_intent.details,
        },
        subscriptions: [{ subscription_id: crypto.randomUUID(), notification_index: 1 }],
      },
    });
    const exchange = {
      url: `http://127.0.0.1/uss/v1/operational_intents/${theirs}`,
      method: "GET",
      recorder_role: "Client",
      request_time: { value: iso(now), format: "RFC3339" },
    };
    await ok("POST /uss/v1/reports", "/uss/v1/reports", { ...sc, body: { exchange } });
  });

  it("CORS origins of the account", async () => {
    const key = { apiKey: account.apiKey };
    await ok("GET /auth/v1/cors_origins", "/auth/v1/cors_origins", key);
    await ok("PUT /auth/v1/cors_origins", "/auth/v1/cors_origins", {
      ...key,
      body: { origins: ["https://app.example"] },
    });
    await fails("PUT /auth/v1/cors_origins", "/auth/v1/cors_origins", 400, {
      ...key,
      body: { origins: ["nope"] },
    });
  });

  it("revoking a key (last: the key stops working)", async () => {
    const revoking = await createAccount("openapi-revoke");
    await ok("POST /auth/v1/key/revoke", "/auth/v1/key/revoke", { apiKey: revoking.apiKey });
    await fails("POST /auth/v1/key/revoke", "/auth/v1/key/revoke", 401, { apiKey: revoking.apiKey });
  });

  it("covered every documented operation with a successful call", () => {
    expect(documentedOperations().filter((op) => !checked.has(op))).toEqual([]);
  });

  it("provoked for real every 409 the document declares", () => {
    expect(Object.keys(CONFLICT).filter((op) => !provoked.has(`409 ${op}`))).toEqual([]);
  });
});
