import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Bindings } from "../../worker/env";
import worker from "../../worker/index";
import { BASE } from "./helpers";
import { newPilot, type TestPilot } from "./pilotFixtures";

const SMS = {
  SMS_API_URL: "https://sms.fake.test/",
  SMS_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef",
  SMS_AUTH_TOKEN: "fake-auth-token",
  SMS_FROM: "+15005550006",
};
const EMAIL = {
  EMAIL_API_URL: "https://mail.fake.test/emails",
  EMAIL_API_KEY: "re_fake_key",
  EMAIL_FROM: "Windsock <verify@windsock.example>",
};

interface Received {
  url: string;
  headers: Headers;
  body: string;
}

/**
 * A stand-in for the providers' HTTP APIs: records each request and answers as told —
 * accepted (201, as Twilio does), refused (Twilio's error shape) or unreachable.
 */
function fakeProvider(behaviour: "accept" | "refuse" | "unreachable") {
  const received: Received[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    received.push({
      url: request.url,
      headers: request.headers,
      body: new TextDecoder().decode(await request.arrayBuffer()),
    });
    if (behaviour === "unreachable") throw new TypeError("fetch failed");
    if (behaviour === "refuse") {
      return Response.json(
        { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 },
        { status: 400 },
      );
    }
    return Response.json({ sid: "SM0123", status: "queued" }, { status: 201 });
  });
  return received;
}

/** The worker as deployed: ENVIRONMENT=production and the given secrets. */
async function production(
  secrets: Partial<Bindings>,
  pilot: TestPilot,
  path: string,
  method = "POST",
  body?: unknown,
) {
  const headers: Record<string, string> = {
    "X-API-Key": pilot.apiKey,
    Authorization: `Bearer ${pilot.token}`,
  };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const request = new Request(`${BASE}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, { ...env, ENVIRONMENT: "production", ...secrets }, ctx);
  await waitOnExecutionContext(ctx);
  return { status: response.status, json: (await response.json()) as any };
}

async function pilotWithContacts() {
  const pilot = await newPilot();
  await production({}, pilot, pilot.path, "PATCH", { phone: "+13105551212", email: "ada@example.com" });
  return pilot;
}

function codeIn(text: string): string {
  const match = /\b(\d{6})\b/.exec(text);
  if (!match) throw new Error(`no code in ${text}`);
  return match[1]!;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("SMS through a Twilio-shaped API", () => {
  it("posts the code to Messages.json with basic auth, and the code verifies", async () => {
    const pilot = await pilotWithContacts();
    const received = fakeProvider("accept");
    const sent = await production(SMS, pilot, `${pilot.path}/phone/send_token`, "POST", {});
    expect(sent).toEqual({ status: 200, json: { status: "success", data: {} } });
    expect(received).toHaveLength(1);
    const request = received[0]!;
    expect(request.url).toBe(
      `https://sms.fake.test/2010-04-01/Accounts/${SMS.SMS_ACCOUNT_SID}/Messages.json`,
    );
    expect(request.headers.get("Authorization")).toBe(
      `Basic ${btoa(`${SMS.SMS_ACCOUNT_SID}:${SMS.SMS_AUTH_TOKEN}`)}`,
    );
    expect(request.headers.get("Content-Type")).toBe("application/x-www-form-urlencoded");
    const form = new URLSearchParams(request.body);
    expect(form.get("To")).toBe("+13105551212");
    expect(form.get("From")).toBe(SMS.SMS_FROM);
    const code = codeIn(form.get("Body")!);

    const verified = await production(SMS, pilot, `${pilot.path}/phone/verify_token`, "POST", {
      token: code,
    });
    expect(verified.json.data).toEqual({ verified: true });
  });

  it("sends through a Messaging Service when SMS_FROM is its SID", async () => {
    const pilot = await pilotWithContacts();
    const received = fakeProvider("accept");
    const service = "MG0123456789abcdef0123456789abcdef";
    await production({ ...SMS, SMS_FROM: service }, pilot, `${pilot.path}/phone/send_token`);
    const form = new URLSearchParams(received[0]!.body);
    expect(form.get("MessagingServiceSid")).toBe(service);
    expect(form.has("From")).toBe(false);
  });

  it("answers 502 when the provider refuses, and the undelivered code is void", async () => {
    const pilot = await pilotWithContacts();
    const received = fakeProvider("refuse");
    const sent = await production(SMS, pilot, `${pilot.path}/phone/send_token`);
    expect(sent.status).toBe(502);
    expect(sent.json).toMatchObject({ status: "error", code: 502 });
    expect(JSON.stringify(sent.json)).not.toContain("21211");
    const code = codeIn(new URLSearchParams(received[0]!.body).get("Body")!);
    const verified = await production(SMS, pilot, `${pilot.path}/phone/verify_token`, "POST", {
      token: code,
    });
    expect(verified.json.data).toEqual({ verified: false });
  });

  it("answers 502 when the provider cannot be reached", async () => {
    const pilot = await pilotWithContacts();
    fakeProvider("unreachable");
    const sent = await production(SMS, pilot, `${pilot.path}/phone/send_token`);
    expect(sent.status).toBe(502);
    expect(sent.json.status).toBe("error");
  });

  it("answers 503 when no SMS provider is configured, without using up a send", async () => {
    const pilot = await pilotWithContacts();
    const received = fakeProvider("accept");
    const sent = await production({}, pilot, `${pilot.path}/phone/send_token`);
    expect(sent.status).toBe(503);
    expect(sent.json).toMatchObject({ status: "error", code: 503 });
    expect(received).toHaveLength(0);
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM verification_tokens WHERE pilot_id = ?")
      .bind(pilot.pilotId)
      .first<{ n: number }>();
    expect(rows?.n).toBe(0);
  });
});

describe("email through a Resend-shaped API", () => {
  it("posts JSON with a bearer key, and the code verifies", async () => {
    const pilot = await pilotWithContacts();
    const received = fakeProvider("accept");
    const sent = await production(EMAIL, pilot, `${pilot.path}/email/send_token`);
    expect(sent.status).toBe(200);
    const request = received[0]!;
    expect(request.url).toBe(EMAIL.EMAIL_API_URL);
    expect(request.headers.get("Authorization")).toBe(`Bearer ${EMAIL.EMAIL_API_KEY}`);
    const message = JSON.parse(request.body);
    expect(message).toMatchObject({ from: EMAIL.EMAIL_FROM, to: ["ada@example.com"] });
    expect(message.subject).toContain("verification code");
    const verified = await production(EMAIL, pilot, `${pilot.path}/email/verify_token`, "POST", {
      token: codeIn(message.text),
    });
    expect(verified.json.data).toEqual({ verified: true });
  });

  it("answers 503 for email when only SMS is configured", async () => {
    const pilot = await pilotWithContacts();
    fakeProvider("accept");
    expect((await production(SMS, pilot, `${pilot.path}/email/send_token`)).status).toBe(503);
  });
});

describe("outside development", () => {
  it("has no outbox route and writes nothing to the outbox", async () => {
    const pilot = await pilotWithContacts();
    fakeProvider("accept");
    await production(SMS, pilot, `${pilot.path}/phone/send_token`);
    const outbox = await production(
      SMS,
      pilot,
      `/dev/v1/outbox?pilot_id=${encodeURIComponent(pilot.pilotId)}`,
      "GET",
    );
    expect(outbox.status).toBe(404);
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM outbox WHERE pilot_id = ?")
      .bind(pilot.pilotId)
      .first<{ n: number }>();
    expect(rows?.n).toBe(0);
  });
});
