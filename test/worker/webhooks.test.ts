import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { HYSTERESIS } from "../../worker/domain/conformance";
import { egm96, geoidHeight } from "../../worker/domain/geoid";
import {
  MAX_ATTEMPTS,
  MAX_EVENTS_PER_DELIVERY,
  MAX_WAITING_DELIVERIES,
  verifySignature,
} from "../../worker/domain/webhooks";
import type { WebhookOutbox } from "../../worker/telemetry/webhookOutbox";
import { objectsOf, tileOf } from "../domain/elevationFixtures";
import { activeFlight, iso } from "./flightFixtures";
import { call, createAccount, type TestAccount, tokenFor } from "./helpers";

const GROUND = 100;
// Deliveries go to a fake receiver (fakeEndpoint): the host only has to be public.
const HOOK = "https://hooks.example.com/windsock-hook";

const stubOf = (id: string) => env.FLIGHT_TELEMETRY.get(env.FLIGHT_TELEMETRY.idFromName(id));

let account: TestAccount;
let token: string;
beforeAll(async () => {
  const objects = await objectsOf([tileOf(10, 20, 3, () => GROUND)]);
  for (const [key, bytes] of objects) await env.ELEVATION.put(key, bytes);
  account = await createAccount();
  ({ token } = await tokenFor(account, "webhook-pilot"));
});

interface Received {
  url: string;
  headers: Headers;
  body: string;
}

/** A receiver for the flight's Durable Object: answers with `status` (or throws) and records what it got. */
async function fakeEndpoint(flightId: string, answer: () => number | Error): Promise<Received[]> {
  const received: Received[] = [];
  await runInDurableObject(stubOf(flightId), (instance) => {
    (instance as unknown as { outbox: WebhookOutbox }).outbox.fetcher = async (input, init) => {
      const request = new Request(input, init);
      received.push({ url: request.url, headers: request.headers, body: await request.text() });
      const outcome = answer();
      if (outcome instanceof Error) throw outcome;
      return new Response("ok", { status: outcome });
    };
  });
  return received;
}

async function register(body: Record<string, unknown>, apiKey = account.apiKey) {
  return call("/webhooks/v1/conformance", { method: "PUT", apiKey, body });
}

function flight(): Promise<string> {
  return activeFlight({ apiKey: account.apiKey, token });
}

/**
 * F3411 states at 10 m above the ground; each `outside` entry is two states 11 km north of the area,
 * held long enough to raise left_area (HYSTERESIS), each inside one a state that clears it. Starts
 * at `from` and answers when the next state may start.
 */
async function sendStates(id: string, outside: boolean[], from = Date.now() - 30_000): Promise<number> {
  let at = from;
  const states = [];
  for (const out of outside) {
    const lat = out ? 10.6 : 10.5;
    const lng = 20.5;
    for (let i = 0; i < (out ? 2 : 1); i++) {
      states.push({
        timestamp: { value: iso(at), format: "RFC3339" },
        position: { lat, lng, alt: GROUND + 10 + geoidHeight(egm96(), lat, lng), accuracy_h: "HA3m" },
        track: 0,
        speed: 10,
        vertical_speed: 0,
      });
      at += out ? HYSTERESIS.left_area.holdMs : 1000;
    }
  }
  const sent = await call(`/flight/v2/${encodeURIComponent(id)}/telemetry`, {
    method: "POST",
    apiKey: account.apiKey,
    token,
    body: { states },
  });
  expect(sent.status, sent.text).toBe(200);
  return at;
}

const sendOutOfArea = (id: string) => sendStates(id, [true]);

/** Makes every waiting delivery of the flight due now, and the account's receiver unpaused. */
async function makeDue(id: string): Promise<void> {
  await env.DB.prepare("UPDATE conformance_webhooks SET paused_until = 0").run();
  await runInDurableObject(stubOf(id), async (_, ctx) => {
    ctx.storage.sql.exec("UPDATE webhook_outbox SET next_at = ? WHERE status = 'pending'", Date.now() - 1);
    await ctx.storage.setAlarm(Date.now());
  });
}

/**
 * Runs the flight's alarm and waits until the receiver got `count` requests and the outbox recorded
 * them: the alarm set at once by the ingest may also fire on its own, concurrently.
 */
async function alarmUntil(id: string, received: Received[], count: number, status = "delivered") {
  await makeDue(id);
  await runDurableObjectAlarm(stubOf(id));
  await vi.waitFor(async () => {
    expect(received).toHaveLength(count);
    const [row] = await deliveries(id);
    expect(row?.attempts).toBe(count);
    expect(row?.status).toBe(status);
  });
}

function deliveries(id: string) {
  return runInDurableObject(stubOf(id), (instance) =>
    (instance as unknown as { outbox: WebhookOutbox }).outbox.deliveries(),
  );
}

describe("registration", () => {
  it("stores the webhook, returns a generated secret once, shows it without, and removes it", async () => {
    const own = await createAccount();
    expect((await call("/webhooks/v1/conformance", { apiKey: own.apiKey })).status).toBe(404);
    const put = await register({ url: "https://hooks.example.com/windsock" }, own.apiKey);
    expect(put.status, put.text).toBe(200);
    expect(put.json.data).toMatchObject({ url: "https://hooks.example.com/windsock" });
    expect(put.json.data.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const shown = await call("/webhooks/v1/conformance", { apiKey: own.apiKey });
    expect(shown.status).toBe(200);
    expect(shown.json.data).toEqual({
      url: "https://hooks.example.com/windsock",
      created_at: put.json.data.created_at,
      updated_at: put.json.data.updated_at,
    });
    // Replacing keeps the first registration time; a chosen secret is kept as given.
    const replaced = await register(
      { url: "https://hooks.example.com/v2", secret: "my-own-secret-0123456789" },
      own.apiKey,
    );
    expect(replaced.json.data).toMatchObject({
      url: "https://hooks.example.com/v2",
      secret: "my-own-secret-0123456789",
      created_at: put.json.data.created_at,
    });
    // Another account sees nothing of it.
    const other = await createAccount();
    expect((await call("/webhooks/v1/conformance", { apiKey: other.apiKey })).status).toBe(404);
    const removed = await call("/webhooks/v1/conformance", { method: "DELETE", apiKey: own.apiKey });
    expect(removed.status).toBe(200);
    expect((await call("/webhooks/v1/conformance", { apiKey: own.apiKey })).status).toBe(404);
    expect((await call("/webhooks/v1/conformance", { method: "DELETE", apiKey: own.apiKey })).status).toBe(
      404,
    );
  });

  it("refuses bad URLs and secrets with a 400 naming the field", async () => {
    const own = await createAccount();
    for (const [body, field] of [
      [{ url: "http://hooks.example.com/x" }, "url"],
      [{ url: "not a url" }, "url"],
      [{ url: "https://u:p@hooks.example.com/x" }, "url"],
      // The attacks of issue #27: private, metadata and loopback hosts, in any spelling.
      [{ url: "https://169.254.169.254/latest/meta-data/" }, "url"],
      [{ url: "https://10.0.0.1/" }, "url"],
      [{ url: "https://[::ffff:127.0.0.1]/" }, "url"],
      [{ url: "https://metadata.google.internal/" }, "url"],
      [{ url: "https://127.0.0.1:9464" }, "url"],
      [{ url: "https://2130706433/" }, "url"],
      [{ url: "https://0x7f.0.0.1/" }, "url"],
      [{ url: "https://intranet/hook" }, "url"],
      // Without OUTBOUND_ALLOW_LOOPBACK, development refuses this machine too.
      [{ url: "http://127.0.0.1:9/hook" }, "url"],
      [{ url: "https://hooks.example.com/x", secret: "short" }, "secret"],
      [{}, "url"],
    ] as const) {
      const res = await register(body, own.apiKey);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.status).toBe("fail");
      expect(res.json.data.errors.map((e: { name: string }) => e.name)).toContain(field);
    }
    expect((await call("/webhooks/v1/conformance", { method: "PUT", body: { url: HOOK } })).status).toBe(401);
  });
});

describe("delivery", () => {
  it("POSTs a signed conformance event when a flight leaves its area", async () => {
    const put = await register({ url: HOOK });
    expect(put.status, put.text).toBe(200);
    const secret = put.json.data.secret as string;
    const id = await flight();
    const received = await fakeEndpoint(id, () => 200);
    await sendOutOfArea(id);
    // Ingest only queued it; the alarm delivers (it may already have fired on its own).
    await alarmUntil(id, received, 1);
    const [got] = received;
    const body = JSON.parse(got!.body);
    expect(body.flight_id).toBe(id);
    expect(body.events).toHaveLength(1);
    expect(body.events[0]).toMatchObject({ type: "left_area", latitude: 10.6, longitude: 20.5 });
    const conformance = await call(`/flight/v2/${encodeURIComponent(id)}/conformance`, {
      apiKey: account.apiKey,
      token,
    });
    expect(body.events).toEqual(conformance.json.data.results);
    expect(got!.headers.get("content-type")).toBe("application/json");
    expect(got!.headers.get("windsock-event-id")).toMatch(new RegExp(`^${id.replace(/[|]/g, "\\|")}#\\d+$`));
    const signature = got!.headers.get("windsock-signature")!;
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(await verifySignature(secret, got!.body, signature, Math.floor(Date.now() / 1000))).toBe(true);
    expect(
      await verifySignature(
        "whsec_wrong_secret_0000000",
        got!.body,
        signature,
        Math.floor(Date.now() / 1000),
      ),
    ).toBe(false);
    expect((await deliveries(id)).map((d) => [d.status, d.attempts])).toEqual([["delivered", 1]]);
    // The alarm goes back to watching for telemetry_lost, 15 s after the record.
    const alarm = await runInDurableObject(stubOf(id), (_, ctx) => ctx.storage.getAlarm());
    expect(alarm! - Date.now()).toBeGreaterThan(5_000);
    // Delivered once: another alarm sends nothing more.
    await runDurableObjectAlarm(stubOf(id));
    expect(received).toHaveLength(1);
  });

  it("retries a failing endpoint on later alarms with backoff, then gives up and records it", async () => {
    expect((await register({ url: HOOK })).status).toBe(200);
    let failures = 0;
    const id = await flight();
    const received = await fakeEndpoint(id, () =>
      failures++ % 2 === 0 ? 503 : new Error("connection refused"),
    );
    await sendOutOfArea(id);
    await alarmUntil(id, received, 1, "pending");
    let [row] = await deliveries(id);
    expect(row).toMatchObject({ status: "pending", attempts: 1, last_error: "HTTP 503" });
    expect(row!.next_at - Date.now()).toBeGreaterThan(20_000);
    // The alarm is armed for the retry (no later than it).
    const alarm = await runInDurableObject(stubOf(id), (_, ctx) => ctx.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(row!.next_at);
    // Not due yet: an early alarm does not attempt it again.
    await runDurableObjectAlarm(stubOf(id));
    expect(received).toHaveLength(1);
    for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt++) {
      await alarmUntil(id, received, attempt, attempt < MAX_ATTEMPTS ? "pending" : "failed");
    }
    [row] = await deliveries(id);
    expect(row).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS });
    expect(row!.last_error).toMatch(/connection refused|HTTP 503/);
    // Every attempt carried the same event id and body.
    expect(new Set(received.map((r) => r.headers.get("windsock-event-id"))).size).toBe(1);
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
  });

  it("checks the URL again at delivery: one stored before the check is never contacted", async () => {
    expect((await register({ url: HOOK })).status).toBe(200);
    await env.DB.prepare("UPDATE conformance_webhooks SET url = ? WHERE account_id = ?")
      .bind("https://169.254.169.254/latest/meta-data/", account.accountId)
      .run();
    const id = await flight();
    const received = await fakeEndpoint(id, () => 200);
    await sendOutOfArea(id);
    await makeDue(id);
    await runDurableObjectAlarm(stubOf(id));
    await vi.waitFor(async () => expect((await deliveries(id))[0]?.status).toBe("failed"));
    expect((await deliveries(id))[0]?.last_error).toMatch(/^url refused: must name a public host/);
    expect(received).toEqual([]);
  });

  it("sends nothing for an account without a webhook, nor after it was removed", async () => {
    expect(
      (await call("/webhooks/v1/conformance", { method: "DELETE", apiKey: account.apiKey })).status,
    ).toBe(200);
    const id = await flight();
    const received = await fakeEndpoint(id, () => 200);
    await sendOutOfArea(id);
    await runDurableObjectAlarm(stubOf(id));
    expect(received).toEqual([]);
    expect(await deliveries(id)).toEqual([]);
  });
});

describe("bounded fan-out", () => {
  it("coalesces 999 states going in and out of the area (666 events) into at most the capped deliveries", async () => {
    expect((await register({ url: HOOK })).status).toBe(200);
    const id = await flight();
    const received = await fakeEndpoint(id, () => 200);
    // Issue #27: this gave 501 POSTs in 10 s.
    await sendStates(
      id,
      Array.from({ length: 666 }, (_, i) => i % 2 === 0),
    );
    const listed = await call(`/flight/v2/${encodeURIComponent(id)}/conformance?limit=1000`, {
      apiKey: account.apiKey,
      token,
    });
    expect(listed.json.data.results.length).toBeGreaterThan(MAX_EVENTS_PER_DELIVERY * MAX_WAITING_DELIVERIES);
    const waiting = await deliveries(id);
    expect(waiting).toHaveLength(MAX_WAITING_DELIVERIES);
    // Not due at once: later events of the window may still join.
    expect(Math.min(...waiting.map((d) => d.next_at))).toBeGreaterThan(Date.now());
    await makeDue(id);
    await runDurableObjectAlarm(stubOf(id));
    await vi.waitFor(() => expect(received).toHaveLength(MAX_WAITING_DELIVERIES));
    const events = received.flatMap((r) => JSON.parse(r.body).events as { at: string; type: string }[]);
    for (const r of received)
      expect(JSON.parse(r.body).events.length).toBeLessThanOrEqual(MAX_EVENTS_PER_DELIVERY);
    // The first events, in order, each once; the rest are left out, still listed by GET …/conformance.
    expect(events).toEqual(listed.json.data.results.slice(0, events.length));
    expect(new Set(received.map((r) => r.headers.get("windsock-event-id"))).size).toBe(received.length);
    // Nothing more is sent for them.
    await makeDue(id);
    await runDurableObjectAlarm(stubOf(id));
    expect(received).toHaveLength(MAX_WAITING_DELIVERIES);
  });

  it("joins events of later posts within the window to the waiting delivery", async () => {
    expect((await register({ url: HOOK })).status).toBe(200);
    const id = await flight();
    const received = await fakeEndpoint(id, () => 200);
    const next = await sendStates(id, [true]);
    await sendStates(id, [false], next);
    expect(await deliveries(id)).toHaveLength(1);
    await alarmUntil(id, received, 1);
    expect(JSON.parse(received[0]!.body).events.map((e: { type: string }) => e.type)).toEqual([
      "left_area",
      "back_in_conformance",
    ]);
  });

  it("pauses a failing receiver for every flight of the account: one probe per pause", async () => {
    expect((await register({ url: HOOK })).status).toBe(200);
    const ids = [await flight(), await flight(), await flight()];
    const received: Received[][] = [];
    for (const id of ids) {
      received.push(await fakeEndpoint(id, () => 503));
      await sendOutOfArea(id);
    }
    // The first flight's attempt fails and pauses the receiver.
    await alarmUntil(ids[0]!, received[0]!, 1, "pending");
    // The others' deliveries come due during the pause: they spend a turn without a request.
    for (const id of ids.slice(1)) {
      await runInDurableObject(stubOf(id), async (_, ctx) => {
        ctx.storage.sql.exec(
          "UPDATE webhook_outbox SET next_at = ? WHERE status = 'pending'",
          Date.now() - 1,
        );
        await ctx.storage.setAlarm(Date.now());
      });
      await runDurableObjectAlarm(stubOf(id));
      await vi.waitFor(async () => expect((await deliveries(id))[0]?.attempts).toBe(1));
      expect((await deliveries(id))[0]?.last_error).toMatch(/^receiver paused after 1 failed attempt/);
    }
    expect(received.flat()).toHaveLength(1);
    const paused = await env.DB.prepare(
      "SELECT failures, paused_until FROM conformance_webhooks WHERE account_id = ?",
    )
      .bind(account.accountId)
      .first<{ failures: number; paused_until: number }>();
    expect(paused!.failures).toBe(1);
    expect(paused!.paused_until - Date.now()).toBeGreaterThan(20_000);
    // Once the pause is over, one probe; a success clears the receiver's record.
    const ok = await fakeEndpoint(ids[1]!, () => 200);
    await makeDue(ids[1]!);
    await runDurableObjectAlarm(stubOf(ids[1]!));
    await vi.waitFor(async () => expect((await deliveries(ids[1]!))[0]?.status).toBe("delivered"));
    expect(ok).toHaveLength(1);
    const cleared = await env.DB.prepare("SELECT failures FROM conformance_webhooks WHERE account_id = ?")
      .bind(account.accountId)
      .first<{ failures: number }>();
    expect(cleared!.failures).toBe(0);
  });
});
