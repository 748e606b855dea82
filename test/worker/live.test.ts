import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { egm96, geoidHeight } from "../../worker/domain/geoid";
import { EXPENSIVE_CONCURRENCY, withAccountWork } from "../../worker/middleware/accountWork";
import { accountStreamsOf } from "../../worker/telemetry/accountStreams";
import {
  MAX_BACKLOG_BYTES,
  MAX_STREAMS_PER_ACCOUNT,
  MAX_STREAMS_PER_FLIGHT,
  MAX_STREAMS_PER_HOLDER,
} from "../../worker/telemetry/liveFeed";
import { objectsOf, tileOf } from "../domain/elevationFixtures";
import { activeFlight, hour, iso } from "./flightFixtures";
import { BASE, call, createAccount, type TestAccount, tokenFor } from "./helpers";

/** Flat ground at 100 m (EGM96) over the whole tile N10E020; nothing loaded anywhere else. */
const GROUND = 100;

interface Pilot {
  account: TestAccount;
  token: string;
  pilotId: string;
}

let pilot: Pilot;
let neighbour: Pilot;
beforeAll(async () => {
  const objects = await objectsOf([tileOf(10, 20, 3, () => GROUND)]);
  for (const [key, bytes] of objects) await env.ELEVATION.put(key, bytes);
  const account = await createAccount();
  pilot = { account, ...(await tokenFor(account, "live-pilot")) };
  neighbour = { account, ...(await tokenFor(account, "live-neighbour")) };
});

const as = (p: Pilot) => ({ apiKey: p.account.apiKey, token: p.token });

/** An active flight: a 200 m circle around the point, ceiling 60 m above ground. */
function flight(options: Record<string, unknown> = {}, p = pilot): Promise<string> {
  return activeFlight(as(p), options);
}

/** An ASTM F3411 RIDAircraftState `height` meters above our flat ground, as an ellipsoid height. */
function state(height: number, options: { lat?: number; lng?: number; at?: number; ground?: number } = {}) {
  const lat = options.lat ?? 10.5;
  const lng = options.lng ?? 20.5;
  return {
    timestamp: { value: iso(options.at ?? Date.now()), format: "RFC3339" },
    position: {
      lat,
      lng,
      alt: (options.ground ?? GROUND) + height + geoidHeight(egm96(), lat, lng),
      accuracy_h: "HA3m",
    },
    track: 90,
    speed: 10,
    vertical_speed: 1.5,
  };
}

function send(flightId: string, states: unknown[], p = pilot) {
  return call(`/flight/v2/${encodeURIComponent(flightId)}/telemetry`, {
    method: "POST",
    ...as(p),
    body: { states },
  });
}

async function conformance(flightId: string, p = pilot) {
  const res = await call(`/flight/v2/${encodeURIComponent(flightId)}/conformance`, as(p));
  expect(res.status, res.text).toBe(200);
  return res.json.data.results as Record<string, any>[];
}

interface SseEvent {
  id: number;
  event: string;
  data: any;
}

/** Opens the stream and reads its events one by one (each read fails after 5 s rather than hanging). */
async function openStream(flightId: string, headers: Record<string, string>, query = "") {
  const res = await SELF.fetch(`${BASE}/flight/v2/${encodeURIComponent(flightId)}/telemetry/stream${query}`, {
    headers,
  });
  if (res.status !== 200) throw new Error(`stream answered ${res.status}: ${await res.clone().text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  async function next(): Promise<SseEvent> {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = new Map<string, string>();
        for (const line of frame.split("\n")) {
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
        }
        if (!fields.has("event")) continue; // retry: and comments
        return {
          id: Number(fields.get("id")),
          event: fields.get("event")!,
          data: JSON.parse(fields.get("data")!),
        };
      }
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no event within 5 s")), 5000)),
      ]);
      if (chunk.done) throw new Error("stream ended");
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  }
  return { res, next, close: () => reader.cancel() };
}

const headersOf = (p: Pilot) => ({ "X-API-Key": p.account.apiKey, Authorization: `Bearer ${p.token}` });

describe("POST /flight/v2/{id}/telemetry (ASTM F3411 states) and conformance", () => {
  it("stores each state as Position and Speed records, EGM96 altitude, and monitors them", async () => {
    const id = await flight();
    const t = Date.now();
    const res = await send(id, [
      state(50, { at: t }),
      // 80 m above our ground for 2 s: over the 60 m ceiling by more than its margin, long enough
      state(80, { at: t + 1000 }),
      state(80, { at: t + 2000 }),
      state(80, { at: t + 3000 }),
      // about 1.1 km north, outside the 200 m circle, for 2 s
      state(50, { at: t + 4000, lat: 10.51 }),
      state(50, { at: t + 6000, lat: 10.51 }),
      state(50, { at: t + 7000 }),
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual({ stored: 14, duplicates: 0 });

    const back = await call(`/flight/v2/${encodeURIComponent(id)}/telemetry`, as(pilot));
    const records = back.json.data.results as Record<string, any>[];
    expect(records.map((r) => r.type)).toEqual(Array(7).fill(["position", "speed"]).flat());
    expect(records[0]!.altitude_msl).toBeCloseTo(150, 1);
    expect(records[0]).toMatchObject({
      latitude: 10.5,
      longitude: 20.5,
      horizontal_accuracy: 3,
      timestamp: t,
    });
    // Track 90° at 10 m/s is due east; 1.5 m/s up is -1.5 m/s in the NED frame.
    expect(records[1]!.velocity_x).toBeCloseTo(0, 3);
    expect(records[1]).toMatchObject({ velocity_y: 10, velocity_z: -1.5 });

    const events = await conformance(id);
    expect(events.map((e) => e.type)).toEqual([
      "above_ceiling",
      "back_in_conformance",
      "left_area",
      "back_in_conformance",
    ]);
    expect(events[0]).toMatchObject({
      at: iso(t + 3000),
      beyond_since: iso(t + 1000),
      latitude: 10.5,
      ground_elevation: GROUND,
      ceiling: 60,
    });
    expect(events[0]!.height_agl).toBeCloseTo(80, 1);
    // Down to 50 m at t + 4000 (under the ceiling by more than 2 m) while the exit is not yet held
    // long enough: back in conformance; the exit is confirmed at t + 6000, the return at t + 7000.
    expect(events[1]).toMatchObject({ at: iso(t + 4000), cleared: ["above_ceiling"] });
    expect(events[2]).toMatchObject({ at: iso(t + 6000), beyond_since: iso(t + 4000), latitude: 10.51 });
    expect(events[2]!.distance_m).toBeGreaterThan(800);
    expect(events[3]).toMatchObject({ at: iso(t + 7000), cleared: ["left_area"] });
  });

  it("says so in the event where no elevation is loaded", async () => {
    const id = await flight({ latitude: 30.5, longitude: 20.5 });
    const t = Date.now();
    await send(id, [
      state(500, { lat: 30.52, lng: 20.5, ground: 0, at: t }),
      state(500, { lat: 30.52, lng: 20.5, ground: 0, at: t + 2000 }),
    ]);
    const [event] = await conformance(id);
    expect(event).toMatchObject({ type: "left_area", ground_elevation: null, height_agl: null });
    expect(event!.elevation).toMatch(/no ground elevation is loaded/);
  });

  it("refuses a post with an invalid state, naming its index, and stores none of it", async () => {
    const id = await flight();
    const bad = state(10);
    bad.position.lat = 91;
    const res = await send(id, [state(10), bad]);
    expect(res.status).toBe(400);
    expect(res.json.data.errors.map((e: { name: string }) => e.name)).toEqual(["states.1.position.lat"]);
    const noFormat = await send(id, [{ ...state(10), timestamp: { value: "yesterday", format: "RFC3339" } }]);
    expect(noFormat.json.data.errors[0].name).toBe("states.0.timestamp.value");
    const back = await call(`/flight/v2/${encodeURIComponent(id)}/telemetry`, as(pilot));
    expect(back.json.data.results).toEqual([]);
  });

  it("refuses states dated 1970, 9999 or outside the flight's time with a 400 naming the state, and raises nothing", async () => {
    const now = Date.now();
    const [start, end] = [now - 60_000, now + hour];
    const id = await flight({ start_time: iso(start), end_time: iso(end) });
    for (const [at, index] of [
      [0, 1],
      [Date.UTC(9999, 11, 31, 23, 59, 59), 0],
      [end + 10 * 60_000, 1],
      [start - 2 * hour, 1],
    ] as const) {
      const states = index === 0 ? [state(500, { at }), state(10)] : [state(500), state(500, { at })];
      const res = await send(id, states);
      expect(res.status, res.text).toBe(400);
      expect(res.json.data.errors.map((e: { name: string }) => e.name)).toEqual([
        `states.${index}.timestamp.value`,
      ]);
      expect(res.json.data.errors[0].message).toMatch(/1 h before the flight's start to 5 min after its end/);
    }
    const back = await call(`/flight/v2/${encodeURIComponent(id)}/telemetry`, as(pilot));
    expect(back.json.data.results).toEqual([]);
    expect(await conformance(id)).toEqual([]);
    // The window's edges pass, states ahead of now within the flight's time too.
    const edges = await send(id, [
      state(10, { at: start - hour + 60_000 }),
      state(10, { at: now + 10 * 60_000 }),
      state(10, { at: end + 4 * 60_000 }),
    ]);
    expect(edges.status, edges.text).toBe(200);
  });

  it("answers another pilot 404 for a private flight and 403 for a public one", async () => {
    const secret = await flight();
    expect((await send(secret, [state(10)], neighbour)).status).toBe(404);
    const open = await flight({ public: true });
    expect((await send(open, [state(10)], neighbour)).status).toBe(403);
    // A public flight's conformance is readable by anyone of the account; a private one is not.
    expect((await call(`/flight/v2/${encodeURIComponent(open)}/conformance`, as(neighbour))).status).toBe(
      200,
    );
    expect((await call(`/flight/v2/${encodeURIComponent(secret)}/conformance`, as(neighbour))).status).toBe(
      404,
    );
  });
});

describe("GET /flight/v2/{id}/telemetry/stream", () => {
  it("pushes each stored record as GET …/telemetry returns it, and conformance events, with increasing ids", async () => {
    const id = await flight();
    const stream = await openStream(id, headersOf(pilot));
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const t = Date.now();
    await send(id, [state(90, { at: t }), state(90, { at: t + 2000 })]);
    const events = [];
    for (let i = 0; i < 5; i++) events.push(await stream.next());
    // A conformance event follows the record that caused it (the second position, before its speed).
    expect(events.map((e) => e.event)).toEqual(["record", "record", "record", "conformance", "record"]);
    const ids = events.map((e) => e.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(5);
    const back = await call(`/flight/v2/${encodeURIComponent(id)}/telemetry`, as(pilot));
    expect(events.filter((e) => e.event === "record").map((e) => e.data)).toEqual(back.json.data.results);
    expect(events[3]!.data).toMatchObject({ type: "above_ceiling", at: iso(t + 2000) });
    await stream.close();

    // Resuming after the first event replays every later one, ids and all.
    const resumed = await openStream(id, { ...headersOf(pilot), "Last-Event-ID": String(ids[0]) });
    const replayed = [];
    for (let i = 0; i < 4; i++) replayed.push(await resumed.next());
    expect(replayed).toEqual(events.slice(1));
    // …then continues live.
    await send(id, [state(20, { at: t + 3000 })]);
    const live = [await resumed.next(), await resumed.next(), await resumed.next()];
    expect(live.map((e) => [e.event, e.data.type])).toEqual([
      ["record", "position"],
      ["conformance", "back_in_conformance"],
      ["record", "speed"],
    ]);
    expect(live[0]!.id).toBeGreaterThan(ids[4]!);
    await resumed.close();
  });

  it("fans one event out to many watchers", async () => {
    const id = await flight({ public: true });
    const watchers = await Promise.all(
      Array.from({ length: 25 }, () => openStream(id, headersOf(neighbour))),
    );
    await send(id, [state(10)]);
    const first = await Promise.all(watchers.map((w) => w.next()));
    expect(new Set(first.map((e) => e.id)).size).toBe(1);
    expect(first.every((e) => e.event === "record" && e.data.type === "position")).toBe(true);
    await Promise.all(watchers.map((w) => w.close()));
  });

  it("lets a browser in with a short-lived ticket, never the API key; refuses bad tickets", async () => {
    const id = await flight();
    const other = await flight();
    const issued = await call(`/flight/v2/${encodeURIComponent(id)}/ticket`, {
      method: "POST",
      ...as(pilot),
    });
    expect(issued.status, issued.text).toBe(200);
    const { ticket, expires_at, stream_url, live_url } = issued.json.data;
    const lifetime = Date.parse(expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(4 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(5 * 60_000);
    expect(stream_url).toContain(`ticket=${ticket}`);
    expect(live_url).not.toContain(pilot.account.apiKey);

    const stream = await openStream(id, {}, `?ticket=${ticket}`);
    expect(stream.res.status).toBe(200);
    await send(id, [state(10)]);
    expect((await stream.next()).event).toBe("record");
    await stream.close();

    const refuse = async (flightId: string, query: string) => {
      const res = await SELF.fetch(
        `${BASE}/flight/v2/${encodeURIComponent(flightId)}/telemetry/stream${query}`,
      );
      return { status: res.status, json: (await res.json()) as any };
    };
    const tampered = ticket.replace(/\.(.)/, (_: string, ch: string) => `.${ch === "A" ? "B" : "A"}`);
    expect((await refuse(id, `?ticket=${tampered}`)).status).toBe(401);
    expect((await refuse(other, `?ticket=${ticket}`)).status).toBe(403);
    expect((await refuse(id, "")).status).toBe(401);
    // Another pilot cannot get a ticket for a private flight.
    const stranger = await call(`/flight/v2/${encodeURIComponent(id)}/ticket`, {
      method: "POST",
      ...as(neighbour),
    });
    expect(stranger.status).toBe(404);
  });
});

describe("stream caps", () => {
  async function ticketOf(id: string): Promise<string> {
    const issued = await call(`/flight/v2/${encodeURIComponent(id)}/ticket`, {
      method: "POST",
      ...as(pilot),
    });
    expect(issued.status, issued.text).toBe(200);
    return issued.json.data.ticket;
  }

  it("opens at most MAX_STREAMS_PER_HOLDER streams with one ticket: 429 with Retry-After, JSend", async () => {
    const id = await flight();
    const ticket = await ticketOf(id);
    const open = [];
    for (let i = 0; i < MAX_STREAMS_PER_HOLDER; i++) {
      const stream = await openStream(id, {}, `?ticket=${ticket}`);
      expect(stream.res.status).toBe(200);
      open.push(stream);
    }
    const refused = await SELF.fetch(
      `${BASE}/flight/v2/${encodeURIComponent(id)}/telemetry/stream?ticket=${ticket}`,
    );
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const body = (await refused.json()) as any;
    expect(body.status).toBe("fail");
    expect(body.data.message).toContain(`${MAX_STREAMS_PER_HOLDER} streams open, the most one ticket`);
    // Another ticket (issued a second later: tickets differ by their expiry) still gets in.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const other = await openStream(id, {}, `?ticket=${await ticketOf(id)}`);
    expect(other.res.status).toBe(200);
    await Promise.all([...open, other].map((s) => s.close()));
  });

  it("frees a departed reader's place at once, not at the next keep-alive", async () => {
    const id = await flight();
    const ticket = await ticketOf(id);
    const open = [];
    for (let i = 0; i < MAX_STREAMS_PER_HOLDER; i++) open.push(await openStream(id, {}, `?ticket=${ticket}`));
    const url = `${BASE}/flight/v2/${encodeURIComponent(id)}/telemetry/stream?ticket=${ticket}`;
    const full = await SELF.fetch(url);
    expect(full.status).toBe(429);
    await full.body?.cancel();
    await open.pop()!.close();
    // The reader's cancel reaches the flight's Durable Object itself: its place is free within a
    // moment (the keep-alive that used to reveal a departed reader comes every 20 s).
    const closedAt = Date.now();
    let again = await SELF.fetch(url);
    while (again.status === 429 && Date.now() - closedAt < 1000) {
      await again.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await SELF.fetch(url);
    }
    expect(again.status).toBe(200);
    await again.body?.cancel();
    await Promise.all(open.map((s) => s.close()));
  });

  it("caps the streams of one account across its flights, and frees a place when one closes", async () => {
    const account = await createAccount("stream-cap");
    const owner = { account, ...(await tokenFor(account, "stream-cap-pilot")) };
    const headers = headersOf(owner);
    const flights = await Promise.all(
      Array.from({ length: Math.ceil(MAX_STREAMS_PER_ACCOUNT / MAX_STREAMS_PER_FLIGHT) + 1 }, () =>
        flight({}, owner),
      ),
    );
    const last = flights.pop()!;
    const open = [];
    for (const id of flights) {
      const wanted = Math.min(MAX_STREAMS_PER_FLIGHT, MAX_STREAMS_PER_ACCOUNT - open.length);
      open.push(...(await Promise.all(Array.from({ length: wanted }, () => openStream(id, headers)))));
    }
    expect(open).toHaveLength(MAX_STREAMS_PER_ACCOUNT);
    const url = `${BASE}/flight/v2/${encodeURIComponent(last)}/telemetry/stream`;
    const refused = await SELF.fetch(url, { headers });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const body = (await refused.json()) as any;
    expect(body.status).toBe("fail");
    expect(body.data.message).toContain(`${MAX_STREAMS_PER_ACCOUNT} live streams open across its flights`);
    // Another account is not held by this one's streams.
    const elsewhere = await openStream(await flight(), headersOf(pilot));
    await elsewhere.close();
    await open.pop()!.close();
    await vi.waitFor(async () => {
      const again = await SELF.fetch(url, { headers });
      expect(again.status).toBe(200);
      await again.body?.cancel();
    }, 2_000);
    await Promise.all(open.map((s) => s.close()));
    await vi.waitFor(async () => {
      expect(await accountStreamsOf(env, account.accountId).openStreams()).toBe(0);
    }, 2_000);
  });

  it("caps the streams of one flight", async () => {
    const id = await flight({ public: true });
    const open = await Promise.all(
      Array.from({ length: MAX_STREAMS_PER_FLIGHT }, () => openStream(id, headersOf(neighbour))),
    );
    expect(open.every((s) => s.res.status === 200)).toBe(true);
    const refused = await SELF.fetch(`${BASE}/flight/v2/${encodeURIComponent(id)}/telemetry/stream`, {
      headers: headersOf(neighbour),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    await refused.body?.cancel();
    await Promise.all(open.map((s) => s.close()));
  });

  it("cuts a reader that leaves more than MAX_BACKLOG_BYTES unread", async () => {
    const id = await flight();
    const stub = env.FLIGHT_TELEMETRY.get(env.FLIGHT_TELEMETRY.idFromName(id));
    // The Durable Object's own side of a stream: HTTP and RPC buffers between it and a real reader
    // only delay the moment its queue grows.
    let slow: ReadableStream<Uint8Array> | null = null;
    await runInDurableObject(stub, async (instance) => {
      const opened = await instance.stream(null, {
        accountId: pilot.account.accountId,
        keyId: pilot.account.keyId,
        holder: "",
      });
      if ("stream" in opened) slow = opened.stream;
    });
    expect(slow).not.toBeNull();
    const start = Date.now() - 50_000;
    // 3 posts of 1,000 states: 6,000 records, about 1.5 MB of frames never read.
    for (let post = 0; post < 3; post++) {
      const res = await send(
        id,
        Array.from({ length: 1000 }, (_, i) => state(10, { at: start + (post * 1000 + i) * 10 })),
      );
      expect(res.status, res.text).toBe(200);
    }
    // What was queued before the cut is still read, then the stream ends.
    const text = await runInDurableObject(stub, () => new Response(slow!).text());
    const records = text.split("event: record").length - 1;
    expect(records).toBeGreaterThan(0);
    expect(records).toBeLessThan(6000);
    expect(text.length).toBeLessThan(MAX_BACKLOG_BYTES + 2048);
  });
});

describe("GET /flight/v2/{id}/live", () => {
  it("serves the page with a ticket or the API headers, without external assets", async () => {
    const id = await flight();
    const withHeaders = await call(`/flight/v2/${encodeURIComponent(id)}/live`, as(pilot));
    expect(withHeaders.status).toBe(200);
    expect(withHeaders.headers.get("content-type")).toMatch(/^text\/html/);
    expect(withHeaders.text).toContain(id);
    expect(withHeaders.text).not.toContain(pilot.account.apiKey);
    expect(withHeaders.text).not.toMatch(/(src|href)="https?:/);
    // The page carries a terrain grid from our tiles for its profile.
    expect(withHeaders.text).toContain('"terrain":{"south"');
    const { ticket } = (
      await call(`/flight/v2/${encodeURIComponent(id)}/ticket`, { method: "POST", ...as(pilot) })
    ).json.data;
    const res = await SELF.fetch(`${BASE}/flight/v2/${encodeURIComponent(id)}/live?ticket=${ticket}`);
    expect(res.status).toBe(200);
    expect((await SELF.fetch(`${BASE}/flight/v2/${encodeURIComponent(id)}/live`)).status).toBe(401);
  });

  it("allows its inline scripts by hash, never 'unsafe-inline' (issue 37, item 8)", async () => {
    const id = await flight();
    const page = await call(`/flight/v2/${encodeURIComponent(id)}/live`, as(pilot));
    const policy = page.headers.get("content-security-policy") ?? "";
    const scriptSrc = policy.split(";").find((d) => d.trim().startsWith("script-src")) ?? "";
    expect(scriptSrc).not.toContain("unsafe-inline");
    // Every script the browser would run inline (not the JSON model) is allowed by its own hash.
    const inline = [...page.text.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>([\s\S]*?)<\/script>/g)].filter(
      ([, attributes]) => !/type="application\/json"/.test(attributes!),
    );
    expect(inline.length).toBeGreaterThan(0);
    for (const [, , text] of inline) {
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
      const hash = btoa(String.fromCharCode(...new Uint8Array(digest)));
      expect(scriptSrc).toContain(`'sha256-${hash}'`);
    }
  });

  it("opened by a ticket, waits its turn in the account's share of expensive work", async () => {
    const id = await flight();
    const { ticket } = (
      await call(`/flight/v2/${encodeURIComponent(id)}/ticket`, { method: "POST", ...as(pilot) })
    ).json.data;
    // The account's expensive work is all taken (EXPENSIVE_CONCURRENCY turns held)...
    let releaseHeld!: () => void;
    const held = new Promise<void>((resolve) => {
      releaseHeld = resolve;
    });
    const holders = Array.from({ length: EXPENSIVE_CONCURRENCY }, () =>
      withAccountWork(env, pilot.account.accountId, () => held),
    );
    let settled = false;
    const page = SELF.fetch(`${BASE}/flight/v2/${encodeURIComponent(id)}/live?ticket=${ticket}`).then(
      (res) => {
        settled = true;
        return res;
      },
    );
    await new Promise((r) => setTimeout(r, 300));
    // ...so the page waits, although no API key named the account; it is served once a turn frees.
    expect(settled).toBe(false);
    releaseHeld();
    await Promise.all(holders);
    expect((await page).status).toBe(200);
  });
});

describe("telemetry_lost", () => {
  it("is raised by the Durable Object's alarm after 15 s without a record, and cleared by the next", async () => {
    const id = await flight();
    const t = Date.now();
    await send(id, [state(10, { at: t })]);
    const stub = env.FLIGHT_TELEMETRY.get(env.FLIGHT_TELEMETRY.idFromName(id));
    const alarm = await runInDurableObject(stub, (_, ctx) => ctx.storage.getAlarm());
    expect(alarm! - t).toBeGreaterThanOrEqual(15_000);
    expect(alarm! - t).toBeLessThan(20_000);
    // Not yet due: the alarm finds no silence.
    await runDurableObjectAlarm(stub);
    expect(await conformance(id)).toEqual([]);
    // Pretend the last record arrived 20 s ago (the instance keeps its state in memory too: a reset
    // one reads the rewritten row), then run the alarm. It is set a minute ahead: one due now may
    // fire by itself between two steps of the test, before the reset, and find no silence.
    await runInDurableObject(stub, async (instance, ctx) => {
      const row = ctx.storage.sql.exec<{ v: string }>("SELECT v FROM live_state WHERE k = 'monitor'").one();
      const monitor = JSON.parse(row.v);
      monitor.lastReceivedAt -= 20_000;
      ctx.storage.sql.exec("UPDATE live_state SET v = ? WHERE k = 'monitor'", JSON.stringify(monitor));
      (instance as unknown as { live: { reset(): void } }).live.reset();
      await ctx.storage.setAlarm(Date.now() + 60_000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const lost = await conformance(id);
    expect(lost.map((e) => e.type)).toEqual(["telemetry_lost"]);
    expect(lost[0]).toMatchObject({ latitude: 10.5, longitude: 20.5 });
    await send(id, [state(10, { at: Date.now() })]);
    expect((await conformance(id)).map((e) => e.type)).toEqual(["telemetry_lost", "back_in_conformance"]);
  });
});
