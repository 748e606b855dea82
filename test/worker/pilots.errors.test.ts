import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_SENDS_PER_WINDOW } from "../../worker/domain/verification";
import { call, createAccount } from "./helpers";
import { asPilot, latestCode, newPilot, type TestPilot } from "./pilotFixtures";

function fieldNames(res: { json: any }): string[] {
  return res.json.data.errors.map((e: { name: string }) => e.name);
}

function patch(pilot: TestPilot, body: unknown) {
  return asPilot(pilot, pilot.path, { method: "PATCH", body });
}

async function pilotWithPhone() {
  const pilot = await newPilot();
  await patch(pilot, { phone: "+13105551212" });
  return pilot;
}

function verify(pilot: TestPilot, token: unknown, channel = "phone") {
  return asPilot(pilot, `${pilot.path}/${channel}/verify_token`, { method: "POST", body: { token } });
}

function send(pilot: TestPilot, channel = "phone") {
  return asPilot(pilot, `${pilot.path}/${channel}/send_token`, { method: "POST", body: {} });
}

/** A code that is certainly not the one sent. */
function wrong(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, "0");
}

describe("reading a pilot that is not there", () => {
  it("is 404 for an unknown id", async () => {
    const pilot = await newPilot();
    const res = await call("/pilot/v2/pilot%7CnoSuchPilot", { apiKey: pilot.apiKey });
    expect(res.status).toBe(404);
    expect(res.json.status).toBe("fail");
  });

  it("is 404 for a pilot of another account", async () => {
    const pilot = await newPilot();
    const otherAccount = await createAccount();
    const res = await call(pilot.path, { apiKey: otherAccount.apiKey });
    expect(res.status).toBe(404);
  });

  it("names statistics when it is not a boolean", async () => {
    const pilot = await newPilot();
    const res = await asPilot(pilot, `${pilot.path}?statistics=maybe`);
    expect(res.status).toBe(400);
    expect(fieldNames(res)).toEqual(["statistics"]);
  });
});

describe("PATCH refuses what a pilot may not change", () => {
  it("names unknown fields; app_metadata, which the SDKs always send, is ignored, never set by the pilot", async () => {
    const pilot = await newPilot();
    const res = await patch(pilot, { app_metadata: { role: "admin" }, verification_status: { phone: true } });
    expect(res.status).toBe(400);
    expect(fieldNames(res)).toEqual(["verification_status"]);
    const ignored = await patch(pilot, { app_metadata: { role: "admin" } });
    expect(ignored.status).toBe(200);
    expect(ignored.json.data.app_metadata).toEqual({});
    const unchanged = await asPilot(pilot, pilot.path);
    expect(unchanged.json.data.app_metadata).toEqual({});
  });

  it("names every invalid field at once and changes nothing", async () => {
    const pilot = await newPilot();
    const res = await patch(pilot, {
      first_name: "Ada",
      username: "",
      email: "not-an-email",
      phone: "310 555 1212",
      picture_url: "http://example.com/a.png",
      user_metadata: ["not", "an", "object"],
      last_name: 42,
    });
    expect(res.status).toBe(400);
    expect(fieldNames(res).sort()).toEqual([
      "email",
      "last_name",
      "phone",
      "picture_url",
      "user_metadata",
      "username",
    ]);
    const unchanged = await asPilot(pilot, pilot.path);
    expect(unchanged.json.data.first_name).toBeNull();
  });

  it("refuses phone numbers that cannot be E.164", async () => {
    const pilot = await newPilot();
    for (const phone of ["5551212", "+0123456789", "+1 310 555 1212 ext 4", "+1234567890123456", ""]) {
      const res = await patch(pilot, { phone });
      expect(res.status, phone).toBe(400);
      expect(fieldNames(res)).toEqual(["phone"]);
    }
  });

  it("refuses user_metadata that would grow past 16 Ki characters", async () => {
    const pilot = await newPilot();
    const tooBig = await patch(pilot, { user_metadata: { blob: "x".repeat(17_000) } });
    expect(tooBig.status).toBe(400);
    expect(fieldNames(tooBig)).toEqual(["user_metadata"]);
    // Each patch fits, but together they would not: the stored object stays as it was.
    expect((await patch(pilot, { user_metadata: { a: "x".repeat(9_000) } })).status).toBe(200);
    const merged = await patch(pilot, { user_metadata: { b: "x".repeat(9_000) } });
    expect(merged.status).toBe(400);
    expect(fieldNames(merged)).toEqual(["user_metadata"]);
    const stored = await asPilot(pilot, pilot.path);
    expect(Object.keys(stored.json.data.user_metadata)).toEqual(["a"]);
  });

  it("refuses user_metadata nested deeper than the database can merge", async () => {
    const pilot = await newPilot();
    for (const nested of [
      "[".repeat(1500) + "]".repeat(1500),
      `${'{"b":'.repeat(1100)}1${"}".repeat(1100)}`,
    ]) {
      const res = await patch(pilot, `{"user_metadata":{"a":${nested}}}`);
      expect(res.status).toBe(400);
      expect(fieldNames(res)).toEqual(["user_metadata"]);
    }
    expect((await patch(pilot, { user_metadata: { a: { b: { c: [1, [2]] } } } })).status).toBe(200);
  });

  it("answers 400 for a body that is not a JSON object and 415 for another content type", async () => {
    const pilot = await newPilot();
    const malformed = await patch(pilot, "{not json");
    expect(malformed.status).toBe(400);
    const notObject = await patch(pilot, [1, 2]);
    expect(notObject.status).toBe(400);
    const wrongType = await asPilot(pilot, pilot.path, {
      method: "PATCH",
      body: "first_name=Ada",
      headers: { "Content-Type": "text/plain" },
    });
    expect(wrongType.status).toBe(415);
  });
});

describe("verification limits", () => {
  it("is 409 to send or verify without a phone or email", async () => {
    const pilot = await newPilot();
    for (const channel of ["phone", "email"]) {
      const sent = await send(pilot, channel);
      expect(sent.status).toBe(409);
      expect(sent.json.data.message).toContain(channel);
      expect((await verify(pilot, "123456", channel)).status).toBe(409);
    }
  });

  it(`allows ${MAX_SENDS_PER_WINDOW} sends an hour, then 429 with Retry-After`, async () => {
    const pilot = await pilotWithPhone();
    for (let i = 0; i < MAX_SENDS_PER_WINDOW; i++) expect((await send(pilot)).status).toBe(200);
    const limited = await send(pilot);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // The other channel has its own allowance.
    await patch(pilot, { email: "ada@example.com" });
    expect((await send(pilot, "email")).status).toBe(200);
  });

  it("counts only the last hour's sends", async () => {
    const pilot = await pilotWithPhone();
    for (let i = 0; i < MAX_SENDS_PER_WINDOW; i++) await send(pilot);
    await env.DB.prepare(
      "UPDATE verification_tokens SET created_at = created_at - 3600001 WHERE pilot_id = ?",
    )
      .bind(pilot.pilotId)
      .run();
    expect((await send(pilot)).status).toBe(200);
  });

  it("lets a wrong guess consume the code", async () => {
    const pilot = await pilotWithPhone();
    await send(pilot);
    const code = await latestCode(pilot, "phone");
    expect((await verify(pilot, wrong(code))).json.data).toEqual({ verified: false });
    expect((await verify(pilot, code)).json.data).toEqual({ verified: false });
    const profile = await asPilot(pilot, pilot.path);
    expect(profile.json.data.verification_status.phone).toBe(false);
  });

  it("admits one attempt per code even when attempts race", async () => {
    const pilot = await pilotWithPhone();
    await send(pilot);
    const code = await latestCode(pilot, "phone");
    const answers = await Promise.all(Array.from({ length: 6 }, () => verify(pilot, code)));
    expect(answers.filter((a) => a.json.data.verified === true)).toHaveLength(1);
  });

  it("refuses a code after 10 minutes", async () => {
    const pilot = await pilotWithPhone();
    await send(pilot);
    const code = await latestCode(pilot, "phone");
    await env.DB.prepare("UPDATE verification_tokens SET expires_at = ? WHERE pilot_id = ?")
      .bind(Date.now() - 1, pilot.pilotId)
      .run();
    expect((await verify(pilot, code)).json.data).toEqual({ verified: false });
  });

  it("refuses an older code once a newer one was sent", async () => {
    const pilot = await pilotWithPhone();
    await send(pilot);
    const first = await latestCode(pilot, "phone");
    await send(pilot);
    const second = await latestCode(pilot, "phone");
    if (first === second) return; // one chance in a million: nothing to tell apart
    expect((await verify(pilot, first)).json.data).toEqual({ verified: false });
  });

  it("refuses a code sent to a number the pilot has since changed", async () => {
    const pilot = await pilotWithPhone();
    await send(pilot);
    const code = await latestCode(pilot, "phone");
    await patch(pilot, { phone: "+13105550000" });
    expect((await verify(pilot, code)).json.data).toEqual({ verified: false });
  });

  it("names a malformed or missing token without consuming the code", async () => {
    const pilot = await pilotWithPhone();
    await send(pilot);
    const code = await latestCode(pilot, "phone");
    for (const token of ["12345", "abcdef", "1234567", 1_000_000, -1, 12.5, true, null]) {
      const res = await verify(pilot, token);
      expect(res.status, JSON.stringify(token)).toBe(400);
      expect(fieldNames(res)).toEqual(["token"]);
    }
    const missing = await asPilot(pilot, `${pilot.path}/phone/verify_token`, { method: "POST", body: {} });
    expect(missing.status).toBe(400);
    expect(fieldNames(missing)).toEqual(["token"]);
    const noBody = await asPilot(pilot, `${pilot.path}/phone/verify_token`, { method: "POST" });
    expect(noBody.status).toBe(400);
    expect((await verify(pilot, code)).json.data).toEqual({ verified: true });
  });

  it("answers false when no code was ever sent", async () => {
    const pilot = await pilotWithPhone();
    expect((await verify(pilot, "123456")).json.data).toEqual({ verified: false });
  });
});

describe("routes that do not exist", () => {
  it("is 404 for another verification channel and 405 for a wrong method", async () => {
    const pilot = await pilotWithPhone();
    expect((await send(pilot, "fax")).status).toBe(404);
    const wrongMethod = await asPilot(pilot, `${pilot.path}/phone/send_token`);
    expect(wrongMethod.status).toBe(405);
    const outbox = await call("/dev/v1/outbox", { apiKey: pilot.apiKey });
    expect(outbox.status).toBe(400);
    expect(fieldNames(outbox)).toEqual(["pilot_id"]);
  });
});

describe("odd input", () => {
  it("never answers 5xx, on any pilot or aircraft route", async () => {
    const pilot = await pilotWithPhone();
    const created = await asPilot(pilot, `${pilot.path}/aircraft`, {
      method: "POST",
      body: { nickname: "Odd", model_id: "model|dji-mini-2" },
    });
    const aircraft = `${pilot.path}/aircraft/${encodeURIComponent(created.json.data.id)}`;
    const targets: [string, string][] = [
      ["PATCH", pilot.path],
      ["POST", `${pilot.path}/phone/verify_token`],
      ["POST", `${pilot.path}/email/verify_token`],
      ["POST", `${pilot.path}/phone/send_token`],
      ["POST", `${pilot.path}/aircraft`],
      ["PATCH", aircraft],
    ];
    const bodies = [
      "",
      "null",
      "[]",
      '"text"',
      "42",
      "{",
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{}}}',
      JSON.stringify({
        first_name: "\u0000\ud800",
        user_metadata: { "": null, "\u0000": [] },
        token: "\u0661".repeat(6),
      }),
      JSON.stringify({ nickname: "x".repeat(100_000), model_id: "%" }),
      JSON.stringify({ username: { $gt: "" }, phone: ["+13105551212"], email: 1, token: { a: 1 } }),
    ];
    for (const [method, path] of targets) {
      for (const body of bodies) {
        const res = await asPilot(pilot, path, { method, body });
        expect(res.status, `${method} ${path} ${body.slice(0, 40)}`).toBeLessThan(500);
        expect(res.json?.status, res.text).toMatch(/^(success|fail)$/);
      }
    }
    for (const path of [
      `${pilot.path}?statistics=`,
      `${pilot.path}?statistics=true&statistics=false`,
      "/pilot/v2/%E0%A4%A",
      `/pilot/v2/${"x".repeat(300)}`,
      "/aircraft/v2/model?manufacturer=%00&q=%5C",
      "/aircraft/v2/model/%FF",
      "/dev/v1/outbox?pilot_id=%27%3B--",
    ]) {
      const res = await asPilot(pilot, path);
      expect(res.status, path).toBeLessThan(500);
    }
  });
});
