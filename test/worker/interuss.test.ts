import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import app from "../../worker/index";
import { SCOPES } from "../../worker/interuss/auth";
import { putSource } from "../../worker/interuss/geospatialMap";
import { base64url } from "../../worker/lib/hash";
import { intentIdOf, OWN_MANAGER } from "../../worker/services/operationalIntents";
import ed269Sample from "../fixtures/interuss/cis_source_sample_ed269.json";
import { loadAirspaceFixtures, loadSfoControlledAirspace } from "./airspaceFixtures";
import { BASE, call, createAccount, interussToken, tokenFor } from "./helpers";
import { DOCS, requestErrors, responseErrors } from "./interussSchema";

/**
 * The InterUSS interfaces as uss_qualifier drives them: its bearer tokens (401/403), geospatial_map/v1
 * with a feature check table and flight_planning/v1 with a flight check table, both written from the
 * embedded airspace (SFO's Class B and facility map as `npm start` draws them) and ED-269 test data.
 * Every request and response is checked against the interfaces' own documents.
 */

const GEO = "/interuss/geospatial_map/v1";
const PLAN = "/interuss/flight_planning/v1";

let queryToken: string;
let geoDirectToken: string;
let planToken: string;
let planDirectToken: string;

beforeAll(async () => {
  await loadAirspaceFixtures();
  await loadSfoControlledAirspace();
  queryToken = await interussToken([SCOPES.geospatialMapQuery]);
  geoDirectToken = await interussToken([SCOPES.geospatialMapDirect]);
  planToken = await interussToken([SCOPES.flightPlanningPlan]);
  planDirectToken = await interussToken([SCOPES.flightPlanningDirect]);
});

describe("InterUSS authentication", () => {
  it("refuses a request without a token with 401, in the interface's JSON (not JSend)", async () => {
    const res = await call(`${GEO}/status`);
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ message: expect.stringContaining("Bearer") });
    expect(res.headers.get("WWW-Authenticate")).toContain("invalid_token");
  });

  it("needs no API key, and answers the status with the right scope", async () => {
    const res = await call(`${GEO}/status`, { token: geoDirectToken });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("Ready");
    expect(responseErrors(DOCS.geospatialMap, "/status", "get", 200, res.json)).toEqual([]);
    const plan = await call(`${PLAN}/status`, { token: planDirectToken });
    expect(plan.json).toEqual({
      status: "Ready",
      api_name: "Flight Planning Automated Testing Interface",
      api_version: "v0.6.0",
    });
    expect(responseErrors(DOCS.flightPlanning, "/status", "get", 200, plan.json)).toEqual([]);
  });

  it("documents its routes and bearer scheme in /openapi.json", async () => {
    const doc = (await call("/openapi.json")).json;
    for (const path of [
      `${GEO}/map/queries`,
      `${PLAN}/flight_plans/{flight_plan_id}`,
      `${PLAN}/user_notifications`,
    ])
      expect(Object.keys(doc.paths)).toContain(path);
    expect(doc.components.securitySchemes.InterussBearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.paths[`${GEO}/map/queries`].post.security).toEqual([
      { InterussBearer: [SCOPES.geospatialMapQuery] },
    ]);
  });

  it("answers 403 for a valid token without the endpoint's scope", async () => {
    for (const [path, token] of [
      [`${GEO}/status`, queryToken],
      [`${PLAN}/status`, planToken],
      [`${PLAN}/user_notifications?after=2024-01-01T00:00:00Z`, planDirectToken],
    ] as const) {
      const res = await call(path, { token });
      expect(res.status, path).toBe(403);
      expect(res.json.message).toContain("scope");
    }
    const query = await call(`${GEO}/map/queries`, {
      method: "POST",
      token: geoDirectToken,
      body: { checks: [] },
    });
    expect(query.status).toBe(403);
  });

  it("answers 401 for tokens that are not the authority's", async () => {
    const pilot = (await tokenFor(await createAccount(), "pilot")).token;
    const cases: [string, string][] = [
      ["a pilot's token (another issuer)", pilot],
      ["another audience", await interussToken([SCOPES.geospatialMapDirect], { aud: "uss.example.com" })],
      [
        "expired",
        await interussToken([SCOPES.geospatialMapDirect], { exp: Math.floor(Date.now() / 1000) - 10 }),
      ],
      [
        "living over an hour",
        await interussToken([SCOPES.geospatialMapDirect], { exp: Math.floor(Date.now() / 1000) + 7200 }),
      ],
      ["a tampered signature", `${geoDirectToken.slice(0, -4)}AAAA`],
      [
        "alg none",
        `${base64url(new TextEncoder().encode('{"alg":"none"}'))}.${geoDirectToken.split(".")[1]}.`,
      ],
      ["garbage", "not-a-jwt"],
    ];
    for (const [name, token] of cases) {
      const res = await call(`${GEO}/status`, { token });
      expect(res.status, name).toBe(401);
    }
  });

  it("accepts RS256 tokens from the configured keys and issuer, and refuses the development key in production", async () => {
    const pair = (await crypto.subtle.generateKey(
      {
        name: "RSASSA-PKCS1-v1_5",
        modulusLength: 2048,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: "SHA-256",
      },
      true,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    const jwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
    const iat = Math.floor(Date.now() / 1000);
    const rs256 = async (claims: Record<string, unknown>) => {
      const enc = (o: unknown) => base64url(new TextEncoder().encode(JSON.stringify(o)));
      const input = `${enc({ alg: "RS256", typ: "JWT", kid: "authority-1" })}.${enc(claims)}`;
      const sig = await crypto.subtle.sign(
        "RSASSA-PKCS1-v1_5",
        pair.privateKey,
        new TextEncoder().encode(input),
      );
      return `${input}.${base64url(new Uint8Array(sig))}`;
    };
    const claims = {
      iss: "https://auth.example",
      sub: "qualifier",
      aud: "uss.example.com",
      iat,
      exp: iat + 600,
      scope: `${SCOPES.flightPlanningDirect} ${SCOPES.flightPlanningPlan}`,
    };
    const production = {
      ...env,
      ENVIRONMENT: "production",
      INTERUSS_PUBLIC_KEYS: JSON.stringify({ keys: [{ ...jwk, kid: "authority-1", alg: "RS256" }] }),
      INTERUSS_ISSUER: "https://auth.example",
      INTERUSS_AUDIENCE: "uss.example.com",
    };
    const fetchWith = async (token: string) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(`${BASE}${PLAN}/status`, { headers: { Authorization: `Bearer ${token}` } }),
        production,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res.status;
    };
    expect(await fetchWith(await rs256(claims))).toBe(200);
    expect(await fetchWith(await rs256({ ...claims, iss: "https://other.example" }))).toBe(401);
    expect(await fetchWith(await rs256({ ...claims, scope: SCOPES.geospatialMapQuery }))).toBe(403);
    expect(
      await fetchWith(await interussToken([SCOPES.flightPlanningDirect], { aud: "uss.example.com" })),
    ).toBe(401);
  });
});

const point = (lat: number, lng: number, altitudeM?: number) => ({
  location: { lat, lng },
  ...(altitudeM === undefined ? {} : { altitude: { value: altitudeM, reference: "W84", units: "M" } }),
});

/** Feature check table: where, how high, which impact, and whether such features are expected. */
const FEATURE_CHECKS: {
  name: string;
  at: ReturnType<typeof point>;
  impact: string;
  expect: "Present" | "Absent";
}[] = [
  {
    name: "SFO runways at 120 m: above the facility map",
    at: point(37.619, -122.375, 120),
    impact: "Block",
    expect: "Present",
  },
  {
    name: "0.1° east of SFO at 60 m: under the 400 ft ceiling",
    at: point(37.62, -122.276, 60),
    impact: "Block",
    expect: "Absent",
  },
  {
    name: "0.1° east of SFO at 60 m: controlled airspace within the ceiling (a condition)",
    at: point(37.62, -122.276, 60),
    impact: "Advise",
    expect: "Present",
  },
  {
    name: "0.1° east of SFO at 150 m: above 400 ft",
    at: point(37.62, -122.276, 150),
    impact: "Block",
    expect: "Present",
  },
  {
    name: "Pacific Ocean, far from everything",
    at: point(30, -140, 50),
    impact: "BlockOrAdvise",
    expect: "Absent",
  },
];

async function query(filterSets: Record<string, unknown>[]) {
  const body = { checks: [{ filter_sets: filterSets }] };
  expect(requestErrors(DOCS.geospatialMap, "/map/queries", "post", body)).toEqual([]);
  const res = await call(`${GEO}/map/queries`, { method: "POST", token: queryToken, body });
  expect(res.status, res.text).toBe(200);
  expect(responseErrors(DOCS.geospatialMap, "/map/queries", "post", 200, res.json)).toEqual([]);
  return res.json.results[0].features_selection_outcome as string;
}

describe("geospatial_map/v1 map queries (feature check table)", () => {
  for (const row of FEATURE_CHECKS) {
    it(row.name, async () => {
      expect(await query([{ position: row.at, resulting_operational_impact: row.impact }])).toBe(row.expect);
    });
  }

  it("answers one result per check and reads volumes4d", async () => {
    const square = {
      volume: {
        outline_polygon: {
          vertices: [
            { lat: 37.6145, lng: -122.3807 },
            { lat: 37.6145, lng: -122.3693 },
            { lat: 37.6235, lng: -122.3693 },
            { lat: 37.6235, lng: -122.3807 },
          ],
        },
        altitude_lower: { value: 0, reference: "W84", units: "M" },
        altitude_upper: { value: 120, reference: "W84", units: "M" },
      },
    };
    const body = {
      checks: [
        { filter_sets: [{ volumes4d: [square], resulting_operational_impact: "Block" }] },
        { filter_sets: [{ position: point(30, -140, 50) }] },
        { filter_sets: [{ resulting_operational_impact: "Block" }] },
      ],
    };
    const res = await call(`${GEO}/map/queries`, { method: "POST", token: queryToken, body });
    expect(res.status).toBe(200);
    expect(
      res.json.results.map((r: { features_selection_outcome: string }) => r.features_selection_outcome),
    ).toEqual(["Present", "Absent", "UnsupportedFilter"]);
    expect(res.json.results[2].message).toMatch(/position or volumes4d/);
    expect(responseErrors(DOCS.geospatialMap, "/map/queries", "post", 200, res.json)).toEqual([]);
  });

  it("refuses an invalid query with 400 naming the field", async () => {
    const res = await call(`${GEO}/map/queries`, {
      method: "POST",
      token: queryToken,
      body: { checks: [{ filter_sets: [{ position: { location: { lat: 95, lng: 0 } } }] }] },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain("checks.0.filter_sets.0.position.location.lat");
  });
});

describe("geospatial_map/v1 ED-269 data sources", () => {
  const id = "5c9a9a9e-1c53-4b5e-9f4a-2d1f2f0f6a01";
  const inZone = point(46.2155, 6.1685, 50);

  it("loads an ED-269 source, selects its zone by restriction and source, and forgets it when deleted", async () => {
    expect(await query([{ position: inZone, resulting_operational_impact: "Block" }])).toBe("Absent");
    const fetcher = (async () => new Response(JSON.stringify(ed269Sample))) as unknown as typeof fetch;
    const loaded = await putSource(
      env.DB,
      id,
      { https_source: { url: "https://caa.example.com/zones.json", format: "ED-269" } },
      { development: false, fetcher, now: Date.now() },
    );
    expect(loaded).toEqual({ id, status: "Ready" });

    const got = await call(`${GEO}/geospatial_data_sources/${id}`, { token: geoDirectToken });
    expect(got.json).toEqual({ data_source: { id, status: "Ready" } });
    expect(
      responseErrors(
        DOCS.geospatialMap,
        "/geospatial_data_sources/{geospatial_data_source_id}",
        "get",
        200,
        got.json,
      ),
    ).toEqual([]);

    // REQ_AUTHORISATION: a flight there needs an authorization → Block.
    expect(await query([{ position: inZone, resulting_operational_impact: "Block" }])).toBe("Present");
    expect(
      await query([{ position: inZone, ed269: { acceptable_restrictions: ["REQ_AUTHORISATION"] } }]),
    ).toBe("Present");
    expect(await query([{ position: inZone, ed269: { acceptable_restrictions: ["PROHIBITED"] } }])).toBe(
      "Absent",
    );
    expect(await query([{ position: inZone, restriction_source: id }])).toBe("Present");
    // Windsock's own airspace has nothing there; a name that is no source here (InterUSS's tables say
    // ThisRegulator) is the test designers' name for the data loaded through the interface.
    expect(await query([{ position: inZone, restriction_source: "windsock" }])).toBe("Absent");
    expect(await query([{ position: inZone, restriction_source: "ThisRegulator" }])).toBe("Present");
    expect(await query([{ position: point(46.25, 6.25, 50), resulting_operational_impact: "Block" }])).toBe(
      "Absent",
    );

    const conflict = await call(`${GEO}/geospatial_data_sources/${id}`, {
      method: "PUT",
      token: geoDirectToken,
      body: { https_source: { url: "https://elsewhere.example.com/zones.json", format: "ED-269" } },
    });
    expect(conflict.status).toBe(409);

    const deleted = await call(`${GEO}/geospatial_data_sources/${id}`, {
      method: "DELETE",
      token: geoDirectToken,
    });
    expect(deleted.json).toEqual({ data_source: { id, status: "Deactivated" } });
    expect(
      responseErrors(
        DOCS.geospatialMap,
        "/geospatial_data_sources/{geospatial_data_source_id}",
        "delete",
        200,
        deleted.json,
      ),
    ).toEqual([]);
    expect((await call(`${GEO}/geospatial_data_sources/${id}`, { token: geoDirectToken })).status).toBe(404);
    expect(await query([{ position: inZone, resulting_operational_impact: "Block" }])).toBe("Absent");
  });

  it("records why a source was not loaded: a plain http URL, another format, a document that is not ED-269", async () => {
    const put = async (sourceId: string, body: unknown) => {
      const res = await call(`${GEO}/geospatial_data_sources/${sourceId}`, {
        method: "PUT",
        token: geoDirectToken,
        body,
      });
      expect(res.status).toBe(200);
      expect(
        responseErrors(
          DOCS.geospatialMap,
          "/geospatial_data_sources/{geospatial_data_source_id}",
          "put",
          200,
          res.json,
        ),
      ).toEqual([]);
      return res.json.data_source;
    };
    const http = await put("5c9a9a9e-1c53-4b5e-9f4a-2d1f2f0f6a02", {
      https_source: { url: "http://caa.example.com/z.json" },
    });
    expect(http.status).toBe("Rejected");
    expect(http.message).toMatch(/https/);
    const other = await put("5c9a9a9e-1c53-4b5e-9f4a-2d1f2f0f6a03", {
      https_source: { url: "https://caa.example.com/z.json", format: "ED-318" },
    });
    expect(other.status).toBe("Unsupported");
    const notEd269 = await putSource(
      env.DB,
      "5c9a9a9e-1c53-4b5e-9f4a-2d1f2f0f6a04",
      { https_source: { url: "https://caa.example.com/x.json" } },
      {
        development: false,
        fetcher: (async () => new Response('{"type":"FeatureCollection"}')) as unknown as typeof fetch,
        now: Date.now(),
      },
    );
    expect(notEd269.status).toBe("Rejected");
    const bad = await call(`${GEO}/geospatial_data_sources/not-a-uuid`, {
      method: "PUT",
      token: geoDirectToken,
      body: {},
    });
    expect(bad.status).toBe(400);
  });

  it("lists the sources loaded through the interface with their statuses, and drops deleted ones", async () => {
    const ready = "5c9a9a9e-1c53-4b5e-9f4a-2d1f2f0f6a11";
    const unsupported = "5c9a9a9e-1c53-4b5e-9f4a-2d1f2f0f6a12";
    const fetcher = (async () => new Response(JSON.stringify(ed269Sample))) as unknown as typeof fetch;
    await putSource(
      env.DB,
      ready,
      { https_source: { url: "https://caa.example.com/list.json", format: "ED-269" } },
      { development: false, fetcher, now: Date.now() },
    );
    const put = await call(`${GEO}/geospatial_data_sources/${unsupported}`, {
      method: "PUT",
      token: geoDirectToken,
      body: { https_source: { url: "https://caa.example.com/list-318.json", format: "ED-318" } },
    });
    expect(put.json.data_source.status).toBe("Unsupported");

    const list = async () => {
      const res = await call(`${GEO}/geospatial_data_sources`, { token: geoDirectToken });
      expect(res.status, res.text).toBe(200);
      expect(responseErrors(DOCS.geospatialMap, "/geospatial_data_sources", "get", 200, res.json)).toEqual(
        [],
      );
      return (res.json.data_sources as { id: string }[]).filter((s) => [ready, unsupported].includes(s.id));
    };
    expect(await list()).toEqual([
      { id: ready, status: "Ready" },
      { id: unsupported, status: "Unsupported", message: expect.stringContaining("ED-318") },
    ]);

    await call(`${GEO}/geospatial_data_sources/${ready}`, { method: "DELETE", token: geoDirectToken });
    expect((await list()).map((s) => s.id)).toEqual([unsupported]);

    // The test director's scope, as for the other data-source routes.
    const wrongScope = await call(`${GEO}/geospatial_data_sources`, { token: queryToken });
    expect(wrongScope.status).toBe(403);
    expect((await call(`${GEO}/geospatial_data_sources`)).status).toBe(401);
  });
});

const volume = (
  west: number,
  south: number,
  east: number,
  north: number,
  upperM: number,
  startMs: number,
  endMs: number,
) => ({
  volume: {
    outline_polygon: {
      vertices: [
        { lat: south, lng: west },
        { lat: south, lng: east },
        { lat: north, lng: east },
        { lat: north, lng: west },
      ],
    },
    altitude_lower: { value: 0, reference: "W84", units: "M" },
    altitude_upper: { value: upperM, reference: "W84", units: "M" },
  },
  time_start: { value: new Date(startMs).toISOString(), format: "RFC3339" },
  time_end: { value: new Date(endMs).toISOString(), format: "RFC3339" },
});

const HOUR = 3_600_000;
const SFO = [-122.3807, 37.6145, -122.3693, 37.6235] as const;
const EAST = [-122.279, 37.6185, -122.273, 37.6215] as const;
const OCEAN = [-140.01, 29.99, -139.99, 30.01] as const;

function upsert(
  usage: string,
  box: readonly [number, number, number, number],
  upperM: number,
  style = "IfAllowed",
  startMs = Date.now() + HOUR,
  requestId = crypto.randomUUID(),
) {
  return {
    flight_plan: {
      basic_information: {
        usage_state: usage,
        uas_state: "Nominal",
        area: [volume(...box, upperM, startMs, startMs + HOUR)],
      },
    },
    execution_style: style,
    request_id: requestId,
  };
}

async function putPlan(id: string, body: ReturnType<typeof upsert>) {
  expect(requestErrors(DOCS.flightPlanning, "/flight_plans/{flight_plan_id}", "put", body)).toEqual([]);
  const res = await call(`${PLAN}/flight_plans/${id}`, { method: "PUT", token: planToken, body });
  expect(res.status, res.text).toBe(200);
  expect(responseErrors(DOCS.flightPlanning, "/flight_plans/{flight_plan_id}", "put", 200, res.json)).toEqual(
    [],
  );
  return res.json;
}

/** Flight check table: the plan, and the planning result and status the interface should report. */
const FLIGHT_CHECKS = [
  {
    name: "over SFO's runways at 120 m",
    box: SFO,
    upperM: 120,
    result: "Rejected",
    status: "NotPlanned",
    advisories: undefined,
  },
  {
    name: "east of SFO at 60 m (LAANC accepts at once)",
    box: EAST,
    upperM: 60,
    result: "Completed",
    status: "Planned",
    advisories: "AtLeastOneAdvisoryOrCondition",
  },
  {
    name: "east of SFO at 150 m (above 400 ft)",
    box: EAST,
    upperM: 150,
    result: "Rejected",
    status: "NotPlanned",
    advisories: undefined,
  },
  {
    name: "over the Pacific at 50 m (no rules apply)",
    box: OCEAN,
    upperM: 50,
    result: "Completed",
    status: "Planned",
    advisories: "NoAdvisoriesOrConditions",
  },
] as const;

describe("flight_planning/v1 (flight check table)", () => {
  for (const row of FLIGHT_CHECKS) {
    it(row.name, async () => {
      const res = await putPlan(crypto.randomUUID(), upsert("Planned", row.box, row.upperM));
      expect(res.planning_result).toBe(row.result);
      expect(res.flight_plan_status).toBe(row.status);
      if (row.result === "Rejected") expect(res.notes).toMatch(/Not authorized automatically/);
      else expect(res.includes_advisories).toBe(row.advisories);
    });
  }

  it("plans, activates, replays a request, closes, and creates the flight under the InterUSS account", async () => {
    const id = crypto.randomUUID();
    // Later than the check table's plans there, which it would meet (plans are deconflicted, own ones too).
    const planned = await putPlan(id, upsert("Planned", EAST, 60, "IfAllowed", Date.now() + 10 * HOUR));
    expect(planned.flight_plan_status).toBe("Planned");
    // The plan and its flight are a pilot's like any other, under the service account.
    const rows = await env.DB.prepare(
      `SELECT f.max_altitude, p.flight_description FROM flights f JOIN flight_plans p ON p.flight_id = f.id
       WHERE f.account_id = 'account|interuss' AND p.flight_description = ?`,
    )
      .bind(`InterUSS flight plan ${id}`)
      .all<{ max_altitude: number }>();
    expect(rows.results.map((r) => r.max_altitude)).toEqual([60]);

    const activate = upsert("InUse", EAST, 60, "IfAllowed", Date.now() - 60_000);
    const inUse = await putPlan(id, activate);
    expect(inUse.planning_result).toBe("Completed");
    expect(inUse.flight_plan_status).toBe("OkToFly");
    expect(await putPlan(id, activate)).toEqual(inUse);

    const closed = await call(`${PLAN}/flight_plans/${id}`, { method: "DELETE", token: planDirectToken });
    expect(closed.json).toEqual({
      planning_result: "Completed",
      flight_plan_status: "Closed",
      includes_advisories: "NoAdvisoriesOrConditions",
    });
    expect(
      responseErrors(DOCS.flightPlanning, "/flight_plans/{flight_plan_id}", "delete", 200, closed.json),
    ).toEqual([]);
    expect(
      (await call(`${PLAN}/flight_plans/${id}`, { method: "DELETE", token: planDirectToken })).status,
    ).toBe(404);
  });

  it("answers a hypothetical plan without keeping it", async () => {
    const id = crypto.randomUUID();
    const res = await putPlan(id, upsert("Planned", EAST, 60, "Hypothetical", Date.now() + 12 * HOUR));
    expect(res.planning_result).toBe("Completed");
    expect(
      (await call(`${PLAN}/flight_plans/${id}`, { method: "DELETE", token: planDirectToken })).status,
    ).toBe(404);
  });

  it("clears an area of the qualifier's plans", async () => {
    const id = crypto.randomUUID();
    await putPlan(id, upsert("Planned", OCEAN, 50));
    const body = {
      request_id: crypto.randomUUID(),
      extent: volume(-140.1, 29.9, -139.9, 30.1, 500, Date.now(), Date.now() + 3 * HOUR),
    };
    expect(requestErrors(DOCS.flightPlanning, "/clear_area_requests", "post", body)).toEqual([]);
    const res = await call(`${PLAN}/clear_area_requests`, { method: "POST", token: planDirectToken, body });
    expect(res.status).toBe(200);
    expect(res.json.outcome.success).toBe(true);
    expect(responseErrors(DOCS.flightPlanning, "/clear_area_requests", "post", 200, res.json)).toEqual([]);
    expect(
      (await call(`${PLAN}/flight_plans/${id}`, { method: "DELETE", token: planDirectToken })).status,
    ).toBe(404);
  });

  it("lists user notifications for a window, and needs `after`", async () => {
    const ok = await call(`${PLAN}/user_notifications?after=2024-04-22T16:36:50.52Z`, { token: planToken });
    expect(ok.status).toBe(200);
    expect(responseErrors(DOCS.flightPlanning, "/user_notifications", "get", 200, ok.json)).toEqual([]);
    const missing = await call(`${PLAN}/user_notifications`, { token: planToken });
    expect(missing.status).toBe(400);
    expect(missing.json.message).toContain("after");
  });

  it("refuses an invalid plan with 400 naming the field", async () => {
    const res = await call(`${PLAN}/flight_plans/${crypto.randomUUID()}`, {
      method: "PUT",
      token: planToken,
      body: {
        flight_plan: { basic_information: { usage_state: "Flying", uas_state: "Nominal" } },
        execution_style: "IfAllowed",
        request_id: "r",
      },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain("usage_state");
  });
});

describe("flight_planning/v1 and F3548 strategic coordination in the own DSS", () => {
  const scd = () => env.SCD_DSS.get(env.SCD_DSS.idFromName("f3548-21"));
  // Open ocean, away from the other tests' boxes.
  const HERE = [-150.01, 20.0, -149.99, 20.02] as const;
  const THERE = [-150.01, 21.0, -149.99, 21.02] as const;
  const box = (b: readonly [number, number, number, number]) => [
    { lat: b[1], lng: b[0] },
    { lat: b[1], lng: b[2] },
    { lat: b[3], lng: b[2] },
    { lat: b[3], lng: b[0] },
  ];

  it("makes a plan an Accepted operational intent managed by windsock, and removes it with the plan", async () => {
    const id = crypto.randomUUID();
    const planned = await putPlan(id, upsert("Planned", HERE, 50));
    expect(planned.flight_plan_status).toBe("Planned");
    const intentId = await intentIdOf(id);
    const intent = (await scd().getOperationalIntent(OWN_MANAGER, intentId)) as any;
    expect(intent.ok).toBe(true);
    expect(intent.value.operational_intent_reference).toMatchObject({
      manager: "windsock",
      state: "Accepted",
    });
    expect(intent.value.operational_intent_reference.ovn).not.toBe("Available from USS");

    const activated = await putPlan(id, upsert("InUse", HERE, 50, "IfAllowed", Date.now() - 60_000));
    expect(activated.flight_plan_status).toBe("OkToFly");
    const active = (await scd().getOperationalIntent(OWN_MANAGER, intentId)) as any;
    expect(active.value.operational_intent_reference.state).toBe("Activated");
    expect(active.value.operational_intent_reference.version).toBe(2);

    expect(
      (await call(`${PLAN}/flight_plans/${id}`, { method: "DELETE", token: planDirectToken })).status,
    ).toBe(200);
    expect(((await scd().getOperationalIntent(OWN_MANAGER, intentId)) as any).status).toBe(404);
  });

  it("refuses a plan whose area the DSS will not coordinate (over 2,500 km²) with notes, not a 500", async () => {
    const large = [-150.9, 25.0, -150.0, 25.9] as const;
    const res = await putPlan(crypto.randomUUID(), upsert("Planned", large, 50));
    expect(res.planning_result).toBe("Rejected");
    expect(res.flight_plan_status).toBe("NotPlanned");
    expect(res.notes).toMatch(/Strategic coordination is not possible/);
  });

  it("refuses a plan that meets another USS's intent, naming it, and plans beside it", async () => {
    const start = Date.now() + HOUR;
    const theirs = crypto.randomUUID();
    const made = (await scd().putOperationalIntent(
      { sub: "another-uss", scopes: ["utm.strategic_coordination"] },
      theirs,
      undefined,
      {
        extents: [
          {
            volume: {
              outline_polygon: { vertices: box(THERE) },
              altitude_lower: { value: 0 },
              altitude_upper: { value: 300 },
            },
            time_start: { value: new Date(start - HOUR / 2).toISOString() },
            time_end: { value: new Date(start + 2 * HOUR).toISOString() },
          },
        ],
        key: [],
        state: "Accepted",
        uss_base_url: "https://another-uss.example",
      },
    )) as any;
    expect(made.ok, JSON.stringify(made)).toBe(true);

    const id = crypto.randomUUID();
    const refused = await putPlan(id, upsert("Planned", THERE, 50, "IfAllowed", start));
    expect(refused.planning_result).toBe("Rejected");
    expect(refused.flight_plan_status).toBe("NotPlanned");
    expect(refused.notes).toContain(theirs);
    expect(refused.notes).toContain("another-uss");
    expect(((await scd().getOperationalIntent(OWN_MANAGER, await intentIdOf(id))) as any).status).toBe(404);
    // A hypothetical plan there is refused the same way.
    expect(
      (await putPlan(crypto.randomUUID(), upsert("Planned", THERE, 50, "Hypothetical", start)))
        .planning_result,
    ).toBe("Rejected");
    // After their intent ends, the same space is free.
    const later = await putPlan(id, upsert("Planned", THERE, 50, "IfAllowed", start + 3 * HOUR));
    expect(later.planning_result).toBe("Completed");
    expect(later.flight_plan_status).toBe("Planned");
  });
});
