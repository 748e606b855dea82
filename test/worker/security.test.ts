import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { base64url, fromBase64url } from "../../worker/lib/hash";
import { signingKey, signToken, type TokenClaims } from "../../worker/lib/jwt";
import { clearKeyCache } from "../../worker/middleware/apiKey";
import { createPlan, flightAt, hour, iso, planBody, square } from "./flightFixtures";
import { call, createAccount, type TestAccount } from "./helpers";
import { asPilot, newPilot, type TestPilot } from "./pilotFixtures";

/**
 * How a route is guarded:
 * - key: an API key only;
 * - optionalToken: an API key, and a token that must be valid when sent (reads that show more to the owner);
 * - token: an API key and a valid token of the calling account;
 * - ownPilot: a token whose pilot is the `{pilot}` in the path.
 */
type Guard = "key" | "optionalToken" | "token" | "ownPilot";

interface ProtectedRoute {
  method: string;
  /** `{name}` is replaced by the victim's record id of that name (see `Fixture.ids`). */
  path: string;
  guard: Guard;
  body?: unknown;
  /** Statuses that differ from the guard's, by case name. */
  overrides?: Record<string, number>;
}

const OTHER_ACCOUNT = "another account, with its own key and pilot";
const SAME_ACCOUNT = "another pilot of the same account";
const OTHER_ACCOUNT_404 = { [OTHER_ACCOUNT]: 404 };

/**
 * Every route that takes an API key or a token. Adding a route is adding a line (and, when its path
 * names a new kind of record, creating the victim's one in `fixture()`).
 */
/** A path along the test square's edges, for the path queries. */
const SANTA_MONICA_PATH = { type: "LineString", coordinates: square.coordinates[0]!.slice(0, 3) };

const ROUTES: ProtectedRoute[] = [
  { method: "POST", path: "/auth/v1/anonymous/token", guard: "key", body: { user_id: "matrix" } },
  { method: "GET", path: "/pilot/v2/profile", guard: "token" },
  { method: "GET", path: "/pilot/v2/{pilot}", guard: "optionalToken" },
  { method: "PATCH", path: "/pilot/v2/{pilot}", guard: "ownPilot", body: { first_name: "Matrix" } },
  { method: "POST", path: "/pilot/v2/{pilot}/phone/send_token", guard: "ownPilot", body: {} },
  {
    method: "POST",
    path: "/pilot/v2/{pilot}/phone/verify_token",
    guard: "ownPilot",
    body: { token: "000000" },
  },
  { method: "POST", path: "/pilot/v2/{pilot}/email/send_token", guard: "ownPilot", body: {} },
  {
    method: "POST",
    path: "/pilot/v2/{pilot}/email/verify_token",
    guard: "ownPilot",
    body: { token: "000000" },
  },
  { method: "GET", path: "/pilot/v2/{pilot}/aircraft", guard: "ownPilot" },
  {
    method: "POST",
    path: "/pilot/v2/{pilot}/aircraft",
    guard: "ownPilot",
    body: { nickname: "Matrix", model_id: "model|dji-mini-2" },
  },
  { method: "GET", path: "/pilot/v2/{pilot}/aircraft/{aircraft}", guard: "ownPilot" },
  {
    method: "PATCH",
    path: "/pilot/v2/{pilot}/aircraft/{aircraft}",
    guard: "ownPilot",
    body: { nickname: "M" },
  },
  { method: "DELETE", path: "/pilot/v2/{pilot}/aircraft/{aircraft}", guard: "ownPilot" },
  { method: "GET", path: "/aircraft/v2/manufacturer", guard: "key" },
  { method: "GET", path: "/aircraft/v2/model", guard: "key" },
  { method: "GET", path: "/aircraft/v2/model/model%7Cdji-mini-2", guard: "key" },
  { method: "GET", path: "/dev/v1/outbox?pilot_id={pilot}", guard: "key" },
  // Flight plans and flights: another account never learns that a record exists (404).
  { method: "POST", path: "/flight/v2/plan", guard: "token", body: planBody() },
  { method: "GET", path: "/flight/v2/plan/{plan}", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  {
    method: "PATCH",
    path: "/flight/v2/plan/{plan}",
    guard: "ownPilot",
    body: { max_altitude_agl: 50 },
    overrides: OTHER_ACCOUNT_404,
  },
  { method: "POST", path: "/flight/v2/plan/{plan}/submit", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  { method: "POST", path: "/flight/v2/point", guard: "token", body: { latitude: 34.01, longitude: -118.48 } },
  { method: "GET", path: "/flight/v2/?limit=5", guard: "optionalToken", overrides: { [OTHER_ACCOUNT]: 200 } },
  {
    method: "GET",
    path: "/flight/v2/{flight}",
    guard: "optionalToken",
    // The victim's flight is private: whoever is not its pilot is told it does not exist.
    overrides: { "no token": 404, [SAME_ACCOUNT]: 404 },
  },
  { method: "POST", path: "/flight/v2/{flight}/start-comm", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  { method: "POST", path: "/flight/v2/{flight}/end-comm", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  {
    method: "GET",
    path: "/flight/v2/{flight}/telemetry",
    guard: "ownPilot",
    // Reading another pilot's private flight is 404, as for the flight itself.
    overrides: { ...OTHER_ACCOUNT_404, [SAME_ACCOUNT]: 404 },
  },
  { method: "POST", path: "/flight/v2/{flight}/end", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  // Live flights: a private flight's conformance, tickets, page and HTTP ingest are its pilot's alone.
  ...[
    "GET /flight/v2/{flight}/conformance",
    "POST /flight/v2/{flight}/ticket",
    "GET /flight/v2/{flight}/live",
  ].map((line) => {
    const [method, path] = line.split(" ") as [string, string];
    return {
      method,
      path,
      guard: "optionalToken" as const,
      overrides: { "no token": 404, [SAME_ACCOUNT]: 404 },
    };
  }),
  {
    method: "POST",
    path: "/flight/v2/{flight}/telemetry",
    guard: "ownPilot",
    body: {
      states: [
        {
          timestamp: { value: "2026-06-01T10:00:00Z", format: "RFC3339" },
          position: { lat: 34.015, lng: -118.485, alt: 60 },
          track: 0,
          speed: 0,
          vertical_speed: 0,
        },
      ],
    },
    overrides: { ...OTHER_ACCOUNT_404, [SAME_ACCOUNT]: 404 },
  },
  { method: "POST", path: "/flight/v2/{planned}/delete", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  // The SDKs' flight and plan routes (sdk-routes.md): another account never learns a record exists.
  {
    method: "POST",
    path: "/flight/v2/polygon",
    guard: "token",
    body: { latitude: 34.015, longitude: -118.485, geometry: square },
  },
  {
    method: "POST",
    path: "/flight/v2/path",
    guard: "token",
    body: {
      latitude: 34.015,
      longitude: -118.485,
      geometry: { type: "LineString", coordinates: square.coordinates[0]!.slice(0, 3) },
    },
  },
  { method: "DELETE", path: "/flight/v2/{planned}", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  {
    method: "GET",
    path: "/flight/v2/{submitted}/plan",
    guard: "ownPilot",
    // A private flight: whoever is not its pilot is told it does not exist.
    overrides: { ...OTHER_ACCOUNT_404, [SAME_ACCOUNT]: 404 },
  },
  { method: "DELETE", path: "/flight/v2/plan/{plan}", guard: "ownPilot", overrides: OTHER_ACCOUNT_404 },
  {
    method: "GET",
    path: "/archive/v1/telemetry/position?flight_id={flight}",
    guard: "ownPilot",
    overrides: { ...OTHER_ACCOUNT_404, [SAME_ACCOUNT]: 404 },
  },
  {
    method: "GET",
    path: "/flight/v2/plan/batch/authorizations?flight_plan_ids={plan}",
    guard: "ownPilot",
    overrides: OTHER_ACCOUNT_404,
  },
  // Rules and evaluation: the API key alone (the C++ SDK sends no token), the plan-id route included.
  // No rulesets in this database: the owner gets past the key to a 400/404.
  {
    method: "GET",
    path: "/rules/v1/{plan}/evaluation",
    guard: "key",
    overrides: { ...OTHER_ACCOUNT_404, "no token": 200 },
  },
  {
    method: "POST",
    path: "/rules/v1/evaluation",
    guard: "key",
    body: { geometry: square, rulesets: "usa_part_107" },
    overrides: { "own credentials": 400 },
  },
  {
    method: "GET",
    path: "/rules/v1/rule?rulesets=usa_part_107",
    guard: "key",
    overrides: { "own credentials": 400 },
  },
  { method: "GET", path: "/rules/v1/usa_part_107", guard: "key", overrides: { "own credentials": 404 } },
  // Advisories, status, airspace, weather, system: the API key alone (the C++ SDK sends no token).
  // No rulesets, airspace or weather provider in this database: the owner gets past the key to a 400/404/503.
  {
    method: "POST",
    path: "/advisory/v1/airspace",
    guard: "key",
    body: { geometry: square, rulesets: "usa_part_107" },
    overrides: { "own credentials": 400 },
  },
  // A plan's advisories: its account's key reads them without a token; another account's finds nothing.
  {
    method: "GET",
    path: "/advisory/v1/airspace/{plan}",
    guard: "key",
    overrides: { ...OTHER_ACCOUNT_404, "no token": 200 },
  },
  {
    method: "GET",
    path: "/advisory/v1/weather?latitude=34.01&longitude=-118.48",
    guard: "key",
    overrides: { "own credentials": 503 },
  },
  {
    method: "GET",
    path: `/status/v2/polygon?geometry=${encodeURIComponent(JSON.stringify(square))}`,
    guard: "key",
  },
  { method: "POST", path: "/status/v2/polygon", guard: "key", body: { geometry: square } },
  {
    method: "GET",
    path: `/status/v2/path?geometry=${encodeURIComponent(JSON.stringify(SANTA_MONICA_PATH))}`,
    guard: "key",
  },
  { method: "POST", path: "/status/v2/path", guard: "key", body: { geometry: SANTA_MONICA_PATH } },
  {
    method: "GET",
    path: `/airspace/v2/search?geometry=${encodeURIComponent(JSON.stringify(square))}`,
    guard: "key",
  },
  { method: "POST", path: "/airspace/v2/search", guard: "key", body: { geometry: square } },
  { method: "GET", path: "/airspace/v2/list?ids=ourairports:KSMO", guard: "key" },
  {
    method: "GET",
    path: "/airspace/v2/ourairports:KSMO",
    guard: "key",
    overrides: { "own credentials": 404 },
  },
  { method: "GET", path: "/system/v1/status", guard: "key" },
  // Conformance webhook: account-level, the API key alone; a fresh account has none to show or remove.
  {
    method: "PUT",
    path: "/webhooks/v1/conformance",
    guard: "key",
    body: { url: "https://hooks.example.com/windsock" },
  },
  { method: "GET", path: "/webhooks/v1/conformance", guard: "key", overrides: { "own credentials": 404 } },
  { method: "DELETE", path: "/webhooks/v1/conformance", guard: "key", overrides: { "own credentials": 404 } },
];

/** The cast of every row: the victim pilot, a second pilot of the same account, another account. */
interface Fixture {
  victim: TestPilot;
  /**
   * The victim's records that paths name: `{pilot}`, `{aircraft}`, `{plan}`, `{flight}` (active),
   * `{planned}`, `{submitted}` (a planned flight made from a plan).
   */
  ids: Record<string, string>;
  samePilotAccount: TestPilot;
  otherAccount: TestPilot;
  revoked: TestAccount;
  forged: Record<string, string>;
}

const TOKEN_GUARDS: Guard[] = ["optionalToken", "token", "ownPilot"];

/** What each kind of credential must get, per guard: a status, or skip when it does not apply. */
interface Case {
  name: string;
  credentials(f: Fixture): { apiKey?: string; token?: string; headers?: Record<string, string> };
  expected: Partial<Record<Guard, number>>;
}

const everyGuard = (status: number) => ({
  key: status,
  optionalToken: status,
  token: status,
  ownPilot: status,
});
const tokenGuards = (status: number) => Object.fromEntries(TOKEN_GUARDS.map((g) => [g, status]));

const FORGERIES = [
  "alg none",
  "HS256 keyed with the public key",
  "tampered payload",
  "expired",
  "another issuer",
  "signed by another key",
];

const CASES: Case[] = [
  { name: "own credentials", credentials: (f) => own(f), expected: everyGuard(200) },
  { name: "no API key", credentials: (f) => ({ token: f.victim.token }), expected: everyGuard(401) },
  {
    name: "unknown API key",
    credentials: (f) => ({ apiKey: "wsk_unknownunknownunknownunknownunknown00", token: f.victim.token }),
    expected: everyGuard(401),
  },
  {
    name: "revoked API key",
    credentials: (f) => ({ apiKey: f.revoked.apiKey, token: f.victim.token }),
    expected: everyGuard(401),
  },
  {
    name: "no token",
    credentials: (f) => ({ apiKey: f.victim.apiKey }),
    expected: { optionalToken: 200, token: 401, ownPilot: 401 },
  },
  {
    name: "malformed Authorization header",
    credentials: (f) => ({ apiKey: f.victim.apiKey, headers: { Authorization: `Basic ${f.victim.token}` } }),
    expected: tokenGuards(401),
  },
  ...FORGERIES.map((forgery) => ({
    name: `forged token: ${forgery}`,
    credentials: (f: Fixture) => ({ apiKey: f.victim.apiKey, token: f.forged[forgery] }),
    expected: tokenGuards(401),
  })),
  {
    name: "token of another account's pilot",
    credentials: (f) => ({ apiKey: f.victim.apiKey, token: f.otherAccount.token }),
    expected: tokenGuards(401),
  },
  {
    name: "another pilot of the same account",
    credentials: (f) => ({ apiKey: f.victim.apiKey, token: f.samePilotAccount.token }),
    expected: { optionalToken: 200, ownPilot: 403 },
  },
  {
    name: "another account, with its own key and pilot",
    credentials: (f) => ({ apiKey: f.otherAccount.apiKey, token: f.otherAccount.token }),
    expected: { optionalToken: 404, ownPilot: 403 },
  },
];

function own(f: Fixture) {
  return { apiKey: f.victim.apiKey, token: f.victim.token };
}

function claimsOf(token: string): TokenClaims {
  return JSON.parse(new TextDecoder().decode(fromBase64url(token.split(".")[1]!)));
}

function encodeJson(value: unknown): string {
  return base64url(new TextEncoder().encode(JSON.stringify(value)));
}

/** Tokens an attacker could make: each must be refused. */
async function forgeries(victim: TestPilot, attacker: TestPilot): Promise<Record<string, string>> {
  const claims = claimsOf(victim.token);
  const [header] = victim.token.split(".") as [string];
  const { kid } = JSON.parse(new TextDecoder().decode(fromBase64url(header)));
  const key = await signingKey(env.JWT_PRIVATE_KEY);
  const now = Math.floor(Date.now() / 1000);

  const hsHeader = encodeJson({ alg: "HS256", typ: "JWT", kid });
  const hmacKey = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(JSON.stringify(key.publicJwk)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const hsSigned = `${hsHeader}.${encodeJson(claims)}`;
  const hsSignature = new Uint8Array(
    await crypto.subtle.sign("HMAC", hmacKey, new TextEncoder().encode(hsSigned)),
  );

  // The attacker's own valid token, with the payload swapped for the victim's identity.
  const [attackerHeader, , attackerSignature] = attacker.token.split(".");
  const tampered = `${attackerHeader}.${encodeJson({ ...claimsOf(attacker.token), sub: victim.pilotId })}.${attackerSignature}`;

  const strangerKey = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const strangerSigned = await signToken(claims, { ...key, privateKey: strangerKey.privateKey });

  return {
    "alg none": `${encodeJson({ alg: "none", typ: "JWT" })}.${encodeJson(claims)}.`,
    "HS256 keyed with the public key": `${hsSigned}.${base64url(hsSignature)}`,
    "tampered payload": tampered,
    expired: await signToken({ ...claims, iat: now - 90_000, exp: now - 60 }, key),
    "another issuer": await signToken({ ...claims, iss: "https://evil.example/auth" }, key),
    "issued in the future": await signToken({ ...claims, iat: now + 3600, exp: now + 7200 }, key),
    "not valid yet (nbf)": await signToken({ ...claims, nbf: now + 3600 } as TokenClaims, key),
    "living over 24 hours": await signToken({ ...claims, iat: now, exp: now + 30 * 86_400 }, key),
    "signed by another key": strangerSigned,
  };
}

async function revokedAccount(): Promise<TestAccount> {
  const account = await createAccount("revoked");
  await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?")
    .bind(Date.now(), account.keyId)
    .run();
  return account;
}

/** A fresh cast per route, so a route that changes or deletes the victim's records affects no other row. */
async function fixture(): Promise<Fixture> {
  const victim = await newPilot("victim");
  await asPilot(victim, victim.path, {
    method: "PATCH",
    body: { phone: "+13105551212", email: "v@example.com" },
  });
  const aircraft = await asPilot(victim, `${victim.path}/aircraft`, {
    method: "POST",
    body: { nickname: "Victim's", model_id: "model|dji-mini-2" },
  });
  const samePilotAccount = await newPilot("neighbour", victim.account);
  const plan = await createPlan(victim.account, victim.token);
  const active = await flightAt(victim.account, victim.token, { start_time: iso(Date.now() - hour) });
  const planned = await flightAt(victim.account, victim.token, { start_time: iso(Date.now() + hour) });
  const submittedPlan = await createPlan(victim.account, victim.token);
  const submitted = await asPilot(victim, `/flight/v2/plan/${encodeURIComponent(submittedPlan.id)}/submit`, {
    method: "POST",
  });
  return {
    victim,
    ids: {
      pilot: victim.pilotId,
      aircraft: aircraft.json.data.id,
      plan: plan.id,
      flight: active.id,
      planned: planned.id,
      submitted: submitted.json.data.flight_id,
    },
    samePilotAccount,
    otherAccount: await newPilot("victim"),
    revoked: await revokedAccount(),
    forged: await forgeries(victim, samePilotAccount),
  };
}

function pathFor(route: ProtectedRoute, f: Fixture): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const id = f.ids[name];
    if (id === undefined) throw new Error(`no fixture record for {${name}} in ${route.path}`);
    return encodeURIComponent(id);
  });
}

describe.each(ROUTES)("$method $path ($guard)", (route) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  // "own credentials" runs last: DELETE succeeds once, and the refusals must see the record intact.
  const expectedFor = (c: Case) => route.overrides?.[c.name] ?? c.expected[route.guard];
  const cases = [...CASES.slice(1), CASES[0]!].filter((c) => expectedFor(c) !== undefined);
  it.each(cases)("$name", async (c) => {
    const res = await call(pathFor(route, f), {
      method: route.method,
      body: route.body,
      ...c.credentials(f),
    });
    const expected = expectedFor(c)!;
    expect(res.status, res.text).toBe(expected);
    // JSend: client errors are `fail`, server-side ones (503: a provider not configured) `error`.
    if (expected >= 500) expect(res.json).toMatchObject({ status: "error", code: expected });
    else if (expected >= 400) expect(res.json).toMatchObject({ status: "fail", data: { code: expected } });
  });
});

describe("revoking a key", () => {
  it("takes effect once the isolate's key cache expires (cleared here)", async () => {
    const account = await createAccount();
    const first = await call("/aircraft/v2/manufacturer", { apiKey: account.apiKey });
    expect(first.status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?")
      .bind(Date.now(), account.keyId)
      .run();
    clearKeyCache();
    const after = await call("/aircraft/v2/manufacturer", { apiKey: account.apiKey });
    expect(after.status).toBe(401);
  });
});

describe("what a refused caller learns", () => {
  it("gets no profile data from a 403 or 401", async () => {
    const f = await fixture();
    for (const credentials of [
      { apiKey: f.victim.apiKey, token: f.samePilotAccount.token },
      { apiKey: f.victim.apiKey, token: f.forged["alg none"] },
    ]) {
      const res = await call(f.victim.path, { method: "PATCH", body: { first_name: "x" }, ...credentials });
      expect(res.text).not.toContain("+13105551212");
      expect(res.text).not.toContain("v@example.com");
    }
  });

  it("sees only the public profile when reading another pilot with its own token", async () => {
    const f = await fixture();
    const res = await call(f.victim.path, { apiKey: f.victim.apiKey, token: f.samePilotAccount.token });
    expect(Object.keys(res.json.data).sort()).toEqual(["id", "statistics", "username"]);
  });

  it("validates nothing before authorizing: a stranger's invalid body is still 403", async () => {
    const f = await fixture();
    const res = await call(f.victim.path, {
      method: "PATCH",
      body: { app_metadata: { admin: true } },
      apiKey: f.victim.apiKey,
      token: f.samePilotAccount.token,
    });
    expect(res.status).toBe(403);
  });
});
