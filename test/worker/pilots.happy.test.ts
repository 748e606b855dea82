import { describe, expect, it } from "vitest";
import fixture from "../fixtures/client-fixtures/pilot_authorized_get_success.json";
import { call } from "./helpers";
import { asPilot, insertFlight, latestCode, newPilot } from "./pilotFixtures";

const HOUR = 3_600_000;

/** The JSON type of every leaf, by path: what a client's decoder checks. */
function shapeOf(value: unknown, path = ""): Record<string, string> {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { [path]: value === null ? "null" : Array.isArray(value) ? "array" : typeof value };
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return { [path]: "object" };
  return Object.assign({}, ...entries.map(([k, v]) => shapeOf(v, path ? `${path}.${k}` : k)));
}

describe("reading a pilot", () => {
  it("gives the pilot their full profile", async () => {
    const pilot = await newPilot();
    const res = await asPilot(pilot, pilot.path);
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("success");
    expect(res.json.data).toMatchObject({
      id: pilot.pilotId,
      email: null,
      phone: null,
      user_metadata: {},
      app_metadata: {},
      verification_status: { email: false, phone: false },
      statistics: { flight: { total: 0, last_flight_time: null }, aircraft: { total: 0 } },
    });
    expect(res.json.data.username).toMatch(/^pilot_/);
    expect(res.json.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("shows anyone else exactly id, username and statistics", async () => {
    const pilot = await newPilot();
    await asPilot(pilot, pilot.path, {
      method: "PATCH",
      body: { phone: "+13105551212", email: "a@b.example" },
    });
    const stranger = await newPilot("bob", pilot.account);
    for (const res of [
      await call(pilot.path, { apiKey: pilot.apiKey }),
      await call(pilot.path, { apiKey: pilot.apiKey, token: stranger.token }),
    ]) {
      expect(res.status).toBe(200);
      expect(Object.keys(res.json.data).sort()).toEqual(["id", "statistics", "username"]);
      expect(res.json.data.id).toBe(pilot.pilotId);
    }
  });

  it("answers /pilot/v2/profile for the token's own pilot", async () => {
    const pilot = await newPilot();
    const byProfile = await asPilot(pilot, "/pilot/v2/profile");
    const byId = await asPilot(pilot, pilot.path);
    expect(byProfile.status).toBe(200);
    expect(byProfile.json).toEqual(byId.json);
  });

  it("accepts the id with a raw or a percent-encoded |", async () => {
    const pilot = await newPilot();
    const raw = await asPilot(pilot, `/pilot/v2/${pilot.pilotId}`);
    const encoded = await asPilot(pilot, `/pilot/v2/${pilot.pilotId.replace("|", "%7C")}`);
    expect(raw.status).toBe(200);
    expect(raw.json.data.id).toBe(pilot.pilotId);
    expect(encoded.json).toEqual(raw.json);
  });

  it("leaves statistics out with statistics=false", async () => {
    const pilot = await newPilot();
    const without = await asPilot(pilot, `${pilot.path}?statistics=false`);
    const withStats = await asPilot(pilot, `${pilot.path}?statistics=true`);
    expect(without.json.data.statistics).toBeUndefined();
    expect(withStats.json.data.statistics).toBeDefined();
    const publicWithout = await call(`${pilot.path}?statistics=false`, { apiKey: pilot.apiKey });
    expect(Object.keys(publicWithout.json.data).sort()).toEqual(["id", "username"]);
  });

  it("counts the pilot's flights and aircraft from their records", async () => {
    const pilot = await newPilot();
    const other = await newPilot("bob", pilot.account);
    const now = Date.now();
    const lastStart = Math.floor((now - 2 * HOUR) / 1000) * 1000;
    await insertFlight(pilot, now - 48 * HOUR);
    await insertFlight(pilot, lastStart);
    await insertFlight(pilot, now + 24 * HOUR); // planned: counted, but not a flight already flown
    await insertFlight(other, now - HOUR);
    for (const nickname of ["One", "Two"]) {
      await asPilot(pilot, `${pilot.path}/aircraft`, {
        method: "POST",
        body: { nickname, model_id: "model|dji-mini-2" },
      });
    }
    const res = await call(pilot.path, { apiKey: pilot.apiKey });
    expect(res.json.data.statistics).toEqual({
      flight: { total: 3, last_flight_time: new Date(lastStart).toISOString() },
      aircraft: { total: 2 },
    });
  });

  it("has every field of the real client's fixture, with the same JSON types", async () => {
    const pilot = await newPilot();
    await asPilot(pilot, pilot.path, {
      method: "PATCH",
      body: {
        first_name: "Davey",
        last_name: "Dronehead",
        username: "daveyd",
        email: "davey@example.com",
        phone: "+13105551212",
        picture_url: "https://cdn.example.com/photo.jpg",
      },
    });
    await insertFlight(pilot, Date.now() - HOUR);
    const res = await asPilot(pilot, pilot.path);
    const ours = shapeOf(res.json.data);
    const theirs = shapeOf(fixture.data);
    // The fixture's app_metadata carries a key only the platform sets; ours is empty, still an object.
    delete theirs["app_metadata.faa_registration_number"];
    theirs.app_metadata = "object";
    for (const [path, type] of Object.entries(theirs))
      expect({ path, type: ours[path] }).toEqual({ path, type });
  });
});

describe("changing the profile", () => {
  it("stores each field and answers with the changed fields as stored", async () => {
    const pilot = await newPilot();
    const res = await asPilot(pilot, pilot.path, {
      method: "PATCH",
      body: {
        first_name: " Ada ",
        last_name: "Lovelace",
        username: "ada",
        email: "ada@example.com",
        phone: "+44 (20) 7946-0958",
        picture_url: "https://example.com/ada.png",
        user_metadata: { faa_registration_number: "FA3XXXXXXX" },
      },
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      first_name: "Ada",
      last_name: "Lovelace",
      username: "ada",
      email: "ada@example.com",
      phone: "+442079460958",
      picture_url: "https://example.com/ada.png",
      user_metadata: { faa_registration_number: "FA3XXXXXXX" },
      verification_status: { email: false, phone: false },
    });
    const stored = await asPilot(pilot, pilot.path);
    expect(stored.json.data).toMatchObject(res.json.data);
  });

  it("answers only what was sent", async () => {
    const pilot = await newPilot();
    const res = await asPilot(pilot, pilot.path, { method: "PATCH", body: { last_name: "Hopper" } });
    expect(res.json.data).toEqual({ last_name: "Hopper" });
    const nothing = await asPilot(pilot, pilot.path, { method: "PATCH", body: {} });
    expect(nothing.json.data).toEqual({});
  });

  it("normalizes phone numbers to E.164", async () => {
    const pilot = await newPilot();
    for (const [sent, stored] of [
      ["+1 (310) 555-1212", "+13105551212"],
      ["0049 30 123456", "+4930123456"],
      ["+33.1.23.45.67.89", "+33123456789"],
    ]) {
      const res = await asPilot(pilot, pilot.path, { method: "PATCH", body: { phone: sent } });
      expect(res.json.data.phone).toBe(stored);
    }
  });

  it("merges user_metadata key by key; null removes a key", async () => {
    const pilot = await newPilot();
    await asPilot(pilot, pilot.path, {
      method: "PATCH",
      body: { user_metadata: { a: 1, b: { x: 1 }, c: "keep" } },
    });
    const res = await asPilot(pilot, pilot.path, {
      method: "PATCH",
      body: { user_metadata: { a: null, b: { y: 2 }, d: [1, 2] } },
    });
    expect(res.json.data.user_metadata).toEqual({ b: { x: 1, y: 2 }, c: "keep", d: [1, 2] });
  });

  it("clears a field sent as null", async () => {
    const pilot = await newPilot();
    await asPilot(pilot, pilot.path, { method: "PATCH", body: { first_name: "Ada", phone: "+13105551212" } });
    const res = await asPilot(pilot, pilot.path, {
      method: "PATCH",
      body: { first_name: null, phone: null },
    });
    expect(res.json.data).toMatchObject({ first_name: null, phone: null });
  });

  it("resets verification when the phone or email changes, and keeps it when they do not", async () => {
    const pilot = await newPilot();
    await asPilot(pilot, pilot.path, {
      method: "PATCH",
      body: { phone: "+13105551212", email: "a@example.com" },
    });
    for (const channel of ["phone", "email"] as const) {
      await asPilot(pilot, `${pilot.path}/${channel}/send_token`, { method: "POST", body: {} });
      const code = await latestCode(pilot, channel);
      await asPilot(pilot, `${pilot.path}/${channel}/verify_token`, {
        method: "POST",
        body: { token: code },
      });
    }
    const same = await asPilot(pilot, pilot.path, {
      method: "PATCH",
      body: { phone: "+1 310 555 1212", email: "a@example.com" },
    });
    expect(same.json.data.verification_status).toEqual({ email: true, phone: true });
    const changedPhone = await asPilot(pilot, pilot.path, {
      method: "PATCH",
      body: { phone: "+13105550000" },
    });
    expect(changedPhone.json.data.verification_status).toEqual({ email: true, phone: false });
    const changedEmail = await asPilot(pilot, pilot.path, {
      method: "PATCH",
      body: { email: "b@example.com" },
    });
    expect(changedEmail.json.data.verification_status).toEqual({ email: false, phone: false });
  });
});

describe("verifying phone and email", () => {
  it("verifies the phone with the code sent to it (token as a string)", async () => {
    const pilot = await newPilot();
    await asPilot(pilot, pilot.path, { method: "PATCH", body: { phone: "+13105551212" } });
    const sent = await asPilot(pilot, `${pilot.path}/phone/send_token`, { method: "POST", body: {} });
    expect(sent.status).toBe(200);
    expect(sent.json).toEqual({ status: "success", data: {} });
    const code = await latestCode(pilot, "phone");
    expect(code).toMatch(/^\d{6}$/);
    const res = await asPilot(pilot, `${pilot.path}/phone/verify_token`, {
      method: "POST",
      body: { token: code },
    });
    expect(res.json).toEqual({ status: "success", data: { verified: true } });
    const profile = await asPilot(pilot, pilot.path);
    expect(profile.json.data.verification_status).toEqual({ phone: true, email: false });
  });

  it("takes the token as a number, as the iOS SDK sends it", async () => {
    const pilot = await newPilot();
    await asPilot(pilot, pilot.path, { method: "PATCH", body: { phone: "+13105551212" } });
    // A send without any body, as the SDK posts it.
    const sent = await call(`${pilot.path}/phone/send_token`, {
      method: "POST",
      apiKey: pilot.apiKey,
      token: pilot.token,
    });
    expect(sent.status).toBe(200);
    const code = await latestCode(pilot, "phone");
    const res = await call(`${pilot.path}/phone/verify_token`, {
      method: "POST",
      apiKey: pilot.apiKey,
      token: pilot.token,
      body: `{"token":${Number(code)}}`,
    });
    expect(res.json.data).toEqual({ verified: true });
  });

  it("takes a form-encoded token", async () => {
    const pilot = await newPilot();
    await asPilot(pilot, pilot.path, { method: "PATCH", body: { phone: "+13105551212" } });
    await asPilot(pilot, `${pilot.path}/phone/send_token`, { method: "POST" });
    const code = await latestCode(pilot, "phone");
    const res = await asPilot(pilot, `${pilot.path}/phone/verify_token`, {
      method: "POST",
      body: `token=${code}`,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(res.json.data).toEqual({ verified: true });
  });

  it("verifies the email the same way", async () => {
    const pilot = await newPilot();
    await asPilot(pilot, pilot.path, { method: "PATCH", body: { email: "ada@example.com" } });
    await asPilot(pilot, `${pilot.path}/email/send_token`, { method: "POST", body: {} });
    const code = await latestCode(pilot, "email");
    const res = await asPilot(pilot, `${pilot.path}/email/verify_token`, {
      method: "POST",
      body: { token: code },
    });
    expect(res.json.data).toEqual({ verified: true });
    const profile = await asPilot(pilot, pilot.path);
    expect(profile.json.data.verification_status).toEqual({ phone: false, email: true });
  });

  it("accepts the newest code after sending again", async () => {
    const pilot = await newPilot();
    await asPilot(pilot, pilot.path, { method: "PATCH", body: { phone: "+13105551212" } });
    await asPilot(pilot, `${pilot.path}/phone/send_token`, { method: "POST" });
    await asPilot(pilot, `${pilot.path}/phone/send_token`, { method: "POST" });
    const code = await latestCode(pilot, "phone");
    const res = await asPilot(pilot, `${pilot.path}/phone/verify_token`, {
      method: "POST",
      body: { token: code },
    });
    expect(res.json.data).toEqual({ verified: true });
  });
});

describe("the development outbox", () => {
  it("lists what was delivered to the pilot, newest first", async () => {
    const pilot = await newPilot();
    await asPilot(pilot, pilot.path, {
      method: "PATCH",
      body: { phone: "+13105551212", email: "ada@example.com" },
    });
    await asPilot(pilot, `${pilot.path}/phone/send_token`, { method: "POST" });
    await asPilot(pilot, `${pilot.path}/email/send_token`, { method: "POST" });
    const res = await call(`/dev/v1/outbox?pilot_id=${encodeURIComponent(pilot.pilotId)}`, {
      apiKey: pilot.apiKey,
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(2);
    expect(res.json.data[0]).toMatchObject({
      pilot_id: pilot.pilotId,
      channel: "email",
      to: "ada@example.com",
    });
    expect(res.json.data[1]).toMatchObject({ pilot_id: pilot.pilotId, channel: "phone", to: "+13105551212" });
    expect(res.json.data[0].token).toMatch(/^\d{6}$/);
    expect(Date.parse(res.json.data[0].created_at)).toBeGreaterThanOrEqual(
      Date.parse(res.json.data[1].created_at),
    );
  });

  it("shows nothing of another account's pilots", async () => {
    const pilot = await newPilot();
    await asPilot(pilot, pilot.path, { method: "PATCH", body: { phone: "+13105551212" } });
    await asPilot(pilot, `${pilot.path}/phone/send_token`, { method: "POST" });
    const stranger = await newPilot("mallory");
    const res = await call(`/dev/v1/outbox?pilot_id=${encodeURIComponent(pilot.pilotId)}`, {
      apiKey: stranger.apiKey,
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual([]);
  });
});

describe("documentation", () => {
  it("documents the pilot and aircraft routes and exactly the fields PATCH takes", async () => {
    const doc = await call("/openapi.json");
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining([
        "/pilot/v2/profile",
        "/pilot/v2/{id}",
        "/pilot/v2/{id}/phone/send_token",
        "/pilot/v2/{id}/phone/verify_token",
        "/pilot/v2/{id}/email/send_token",
        "/pilot/v2/{id}/email/verify_token",
        "/pilot/v2/{id}/aircraft",
        "/pilot/v2/{id}/aircraft/{aircraft_id}",
        "/aircraft/v2/manufacturer",
        "/aircraft/v2/model",
        "/aircraft/v2/model/{id}",
        "/dev/v1/outbox",
      ]),
    );
    const patch = doc.json.components.schemas.PilotPatch;
    expect(Object.keys(patch.properties).sort()).toEqual([
      "email",
      "first_name",
      "last_name",
      "phone",
      "picture_url",
      "user_metadata",
      "username",
    ]);
    expect(patch.additionalProperties).toBe(false);
  });
});
