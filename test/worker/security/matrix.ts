import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { base64url, fromBase64url } from "../../../worker/lib/hash";
import { signingKey, signToken, type TokenClaims } from "../../../worker/lib/jwt";
import { createPlan, flightAt, hour, iso } from "../flightFixtures";
import { call, createAccount, type TestAccount } from "../helpers";
import { asPilot, newPilot, type TestPilot } from "../pilotFixtures";
import { type Guard, OTHER_ACCOUNT, type ProtectedRoute, SAME_ACCOUNT } from "./routes";

/** The cast of a row: the victim pilot, a second pilot of the same account, another account. */
export interface Fixture {
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
    name: SAME_ACCOUNT,
    credentials: (f) => ({ apiKey: f.victim.apiKey, token: f.samePilotAccount.token }),
    expected: { optionalToken: 200, ownPilot: 403 },
  },
  {
    name: OTHER_ACCOUNT,
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

/** The record names a path uses: `{plan}` and the like. */
const namesIn = (path: string) => new Set([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!));

/**
 * A fresh cast per route, so a route that changes or deletes the victim's records affects no other
 * row. Only what the row can use is made (the records its path names; other pilots and forged
 * tokens for the token guards): the matrix's time goes into these requests. Without a route,
 * the whole cast.
 */
export async function fixture(route?: ProtectedRoute): Promise<Fixture> {
  const names = route
    ? namesIn(route.path)
    : new Set(["pilot", "aircraft", "plan", "flight", "planned", "submitted"]);
  const tokenGuarded = !route || TOKEN_GUARDS.includes(route.guard);
  const needs = (caseName: string) => tokenGuarded || route?.overrides?.[caseName] !== undefined;
  const victim = await newPilot("victim");
  const ids: Record<string, string> = { pilot: victim.pilotId };
  if (names.has("pilot")) {
    await asPilot(victim, victim.path, {
      method: "PATCH",
      body: { phone: "+13105551212", email: "v@example.com" },
    });
  }
  if (names.has("aircraft")) {
    const aircraft = await asPilot(victim, `${victim.path}/aircraft`, {
      method: "POST",
      body: { nickname: "Victim's", model_id: "model|dji-mini-2" },
    });
    ids.aircraft = aircraft.json.data.id;
  }
  if (names.has("plan")) ids.plan = (await createPlan(victim.account, victim.token)).id;
  if (names.has("flight")) {
    const active = await flightAt(victim.account, victim.token, { start_time: iso(Date.now() - hour) });
    ids.flight = active.id;
  }
  if (names.has("planned")) {
    const planned = await flightAt(victim.account, victim.token, { start_time: iso(Date.now() + hour) });
    ids.planned = planned.id;
  }
  if (names.has("submitted")) {
    const plan = await createPlan(victim.account, victim.token);
    const submitted = await asPilot(victim, `/flight/v2/plan/${encodeURIComponent(plan.id)}/submit`, {
      method: "POST",
    });
    ids.submitted = submitted.json.data.flight_id;
  }
  // Cases that do not apply to the row never read these: left unset rather than made for nothing.
  const samePilotAccount = needs(SAME_ACCOUNT) ? await newPilot("neighbour", victim.account) : undefined;
  const otherAccount = needs(OTHER_ACCOUNT) ? await newPilot("victim") : undefined;
  return {
    victim,
    ids,
    samePilotAccount: samePilotAccount!,
    otherAccount: otherAccount!,
    revoked: await revokedAccount(),
    forged: tokenGuarded ? await forgeries(victim, samePilotAccount!) : {},
  };
}

function pathFor(route: ProtectedRoute, f: Fixture): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const id = f.ids[name];
    if (id === undefined) throw new Error(`no fixture record for {${name}} in ${route.path}`);
    return encodeURIComponent(id);
  });
}

/** Every case of CASES against each route, with the status its guard (or its override) expects. */
export function securityMatrix(routes: ProtectedRoute[]): void {
  describe.each(routes)("$method $path ($guard)", (route) => {
    let f: Fixture;
    beforeAll(async () => {
      f = await fixture(route);
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
}
