import { createCipheriv, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildDatagram } from "../../proto/datagram";
import { encodeRecords } from "../../proto/messages";
import { identityKeyOf } from "../../relay/datagramIdentity";
import { sipHash128 } from "../../relay/sipHash";
import { position } from "../../tools/lib/sampleRecords";
import { newId } from "../../worker/lib/ids";
import { flightIdOf, intakeHarness, RELAY_DEFAULTS, settle } from "./harness";

/** Failed look-ups the default budget allows one address since `started`: 200 at once, 20 a second. */
function budgetSince(started: number): number {
  return 200 + Math.floor((20 * (Date.now() - started)) / 1000);
}

function datagram(flightId: string, key: Buffer, serial: number) {
  return buildDatagram({ serial, flightId, key, payload: encodeRecords([position(1000 + serial)]) });
}

/** The same datagram with another serial: the serial is outside the ciphertext. */
function withSerial(bytes: Buffer, serial: number): Buffer {
  const copy = Buffer.from(bytes);
  copy.writeUInt32BE(serial, 0);
  return copy;
}

/** mulberry32: a seeded generator, so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("no valid telemetry is dropped for its address", () => {
  it("stores a burst of 5,000 datagrams of one session from one address whole", async () => {
    const relay = intakeHarness(RELAY_DEFAULTS);
    const flight = flightIdOf("burst");
    const key = randomBytes(32);
    relay.sessions.set(flight, { id: "session|burst", key });
    const burst = Array.from({ length: 5000 }, (_, i) => datagram(flight, key, i + 1));
    for (const bytes of burst) relay.intake.handle(bytes, "198.51.100.7");
    await settle();
    expect(relay.forwarded).toHaveLength(5000);
    expect(new Set(relay.forwarded.map((r) => r.serial)).size).toBe(5000);
  });

  it("loses nothing of 1,000 sessions at 10 Hz behind one address (carrier NAT, ground station)", async () => {
    const relay = intakeHarness({ ...RELAY_DEFAULTS, lookUpMs: 2 });
    const fleet = Array.from({ length: 1000 }, (_, i) => ({
      flight: flightIdOf(`nat${i}`),
      key: randomBytes(32),
    }));
    for (const [i, { flight, key }] of fleet.entries())
      relay.sessions.set(flight, { id: `session|${i}`, key });
    // One second of 10 Hz, one tick each 100 ms, compressed to 5 ms after the first: the first tick
    // waits for its 1,000 look-ups (a real tick gives them 100 ms).
    const waitFor = async (done: () => boolean) => {
      for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
    };
    for (let tick = 1; tick <= 10; tick++) {
      for (const { flight, key } of fleet) relay.intake.handle(datagram(flight, key, tick), "203.0.113.1");
      if (tick === 1) await waitFor(() => relay.forwarded.length === 1000);
      else await new Promise((r) => setTimeout(r, 5));
    }
    await waitFor(() => relay.forwarded.length === 10_000);
    expect(relay.forwarded).toHaveLength(10_000);
    expect(relay.lookups).toHaveLength(1000);
  });

  it("limits a session beyond its own rate without touching the other sessions of its address", async () => {
    const relay = intakeHarness({ ...RELAY_DEFAULTS, ratePerSession: 1, burstPerSession: 50 });
    const [a, b] = [flightIdOf("greedy"), flightIdOf("modest")];
    const keys = [randomBytes(32), randomBytes(32)] as const;
    relay.sessions.set(a, { id: "session|greedy", key: keys[0] });
    relay.sessions.set(b, { id: "session|modest", key: keys[1] });
    for (let serial = 1; serial <= 80; serial++)
      relay.intake.handle(datagram(a, keys[0], serial), "192.0.2.9");
    for (let serial = 1; serial <= 40; serial++)
      relay.intake.handle(datagram(b, keys[1], serial), "192.0.2.9");
    await settle();
    const greedy = relay.forwarded.filter((r) => r.flight_id === a);
    expect(greedy).toHaveLength(50);
    expect(relay.forwarded.filter((r) => r.flight_id === b)).toHaveLength(40);
    expect(relay.dropped("session_rate_limited")).toBe(30);
  });
});

describe("failing traffic is limited by its address", () => {
  it("caps the look-ups of a random-flight-id flood from one address; others are unaffected", async () => {
    const relay = intakeHarness({ ...RELAY_DEFAULTS, lookUpMs: 1 });
    const known = flightIdOf("known");
    const key = randomBytes(32);
    relay.sessions.set(known, { id: "session|known", key });
    relay.intake.handle(datagram(known, key, 1), "192.0.2.66");
    await settle();
    const started = Date.now();
    // 5,000 datagrams of made-up flights, 20 at a time (the socket hands over a few per turn).
    for (let i = 0; i < 5000; i++) {
      relay.intake.handle(datagram(newId("flight"), key, i), "192.0.2.66");
      if (i % 20 === 19) await new Promise((r) => setTimeout(r, 2));
    }
    await new Promise((r) => setTimeout(r, 50));
    // The failure budget: 200 at once, 20 a second (look-ups under way are paid for).
    const flood = relay.lookups.length - 1;
    expect(flood).toBeGreaterThanOrEqual(200);
    expect(flood).toBeLessThanOrEqual(budgetSince(started));
    expect(relay.dropped("rate_limited")).toBeGreaterThan(4000);
    // Valid traffic of the flooding address for a known flight still passes…
    relay.intake.handle(datagram(known, key, 2), "192.0.2.66");
    // …and another address still gets its new flight looked up.
    const other = flightIdOf("other");
    const otherKey = randomBytes(32);
    relay.sessions.set(other, { id: "session|other", key: otherKey });
    relay.intake.handle(datagram(other, otherKey, 1), "198.51.100.1");
    await new Promise((r) => setTimeout(r, 20));
    expect(relay.forwarded.map((r) => [r.flight_id, r.serial])).toEqual([
      [known, 1],
      [known, 2],
      [other, 1],
    ]);
  });

  it("holds a flood of unknown flight ids to 200 + 20/s look-ups however slowly the worker answers", async () => {
    // Each look-up takes 300 ms, so the whole burst is under way at once (the attack: 1,239 in 12 s).
    const relay = intakeHarness({ ...RELAY_DEFAULTS, lookUpMs: 300, maxPendingFetches: 2000 });
    const key = randomBytes(32);
    const started = Date.now();
    const ids = Array.from({ length: 600 }, () => newId("flight"));
    const counts: number[] = [];
    // 1.5 s of flood: each 50 ms, 300 datagrams of new ids and of ids already asked about.
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 300; i++) {
        const flightId = i % 2 === 0 ? newId("flight") : ids[(round * 7 + i) % ids.length]!;
        relay.intake.handle(datagram(flightId, key, i), "192.0.2.77");
      }
      await new Promise((r) => setTimeout(r, 50));
      counts.push(relay.lookups.length);
      expect(relay.lookups.length).toBeLessThanOrEqual(budgetSince(started));
    }
    await new Promise((r) => setTimeout(r, 400));
    expect(relay.lookups.length).toBeGreaterThanOrEqual(200);
    expect(relay.lookups.length).toBeLessThanOrEqual(budgetSince(started));
    expect(relay.forwarded).toEqual([]);
    expect(relay.dropped("rate_limited")).toBeGreaterThan(5000);
  });

  it("makes a flood that repeats its ids pay again once their 'no session' answers expire", async () => {
    const relay = intakeHarness({ ...RELAY_DEFAULTS, lookUpMs: 1, negativeTtlMs: 100 });
    const key = randomBytes(32);
    const ids = Array.from({ length: 250 }, () => newId("flight"));
    const started = Date.now();
    // 1.2 s: every id each 20 ms, so every cached answer is asked about again as soon as it expires.
    while (Date.now() - started < 1200) {
      for (const flightId of ids) relay.intake.handle(datagram(flightId, key, 1), "192.0.2.78");
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(relay.lookups.length).toBeGreaterThanOrEqual(200);
    expect(relay.lookups.length).toBeLessThanOrEqual(budgetSince(started));
  });

  it("checks the flight id's shape before any look-up", async () => {
    const relay = intakeHarness(RELAY_DEFAULTS);
    const key = randomBytes(32);
    const shapes = [
      "flight|short",
      `plane|${"a".repeat(22)}`,
      `flight|${"a".repeat(21)}-`,
      `flight|${"a".repeat(23)}`,
      `Flight|${"a".repeat(22)}`,
      `flight|${"é".repeat(11)}`,
    ];
    for (const flightId of shapes) relay.intake.handle(datagram(flightId, key, 1), "192.0.2.5");
    await settle();
    expect(relay.lookups).toEqual([]);
    expect(relay.dropped("bad_flight_id")).toBe(shapes.length);
    // The worker's own ids pass.
    relay.intake.handle(datagram(newId("flight"), key, 1), "192.0.2.5");
    await settle();
    expect(relay.lookups).toHaveLength(1);
  });

  it("spends one global look-up budget across all addresses", async () => {
    const relay = intakeHarness({ ...RELAY_DEFAULTS, lookUpsPerSecond: 10, lookUpBurst: 50 });
    const key = randomBytes(32);
    const started = Date.now();
    // Each address stays inside its own failure budget; together they would cost 1,000 look-ups.
    for (let source = 0; source < 100; source++)
      for (let i = 0; i < 10; i++)
        relay.intake.handle(datagram(newId("flight"), key, i), `10.0.${source >> 8}.${source & 255}`);
    await settle();
    expect(relay.lookups.length).toBeGreaterThanOrEqual(50);
    // The burst, and what the budget earned back meanwhile (10/s).
    expect(relay.lookups.length).toBeLessThanOrEqual(50 + Math.ceil((Date.now() - started) / 100));
    expect(relay.dropped("lookup_budget")).toBe(1000 - relay.lookups.length);
  });
});

describe("replays and serial tampering", () => {
  it("stores a datagram resent under 10 random serials (4,000,000,000 among them) once, and everything after it", async () => {
    for (const seed of [7, 8, 9]) {
      const next = random(seed);
      const relay = intakeHarness(RELAY_DEFAULTS);
      const flight = flightIdOf(`replay${seed}`);
      const key = randomBytes(32);
      relay.sessions.set(flight, { id: "session|r", key });
      const sent = Array.from({ length: 100 }, (_, i) => datagram(flight, key, i + 1));
      for (const bytes of sent.slice(0, 50)) relay.intake.handle(bytes, "192.0.2.1");
      await settle();
      const captured = sent[Math.floor(next() * 50)]!;
      const serials = [
        4_000_000_000,
        0xffffffff,
        0,
        ...Array.from({ length: 7 }, () => Math.floor(next() * 2 ** 32)),
      ];
      for (const serial of serials) relay.intake.handle(withSerial(captured, serial), "203.0.113.99");
      for (const bytes of sent.slice(50)) relay.intake.handle(bytes, "192.0.2.1");
      await settle();
      expect(relay.forwarded.map((r) => r.serial)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(relay.dropped("replayed")).toBe(10);
      expect(new Set(relay.forwarded.map((r) => r.datagram)).size).toBe(100);
    }
  });

  it("accepts serials that go back or jump (a client restart) as long as the datagrams are new", async () => {
    const relay = intakeHarness(RELAY_DEFAULTS);
    const flight = flightIdOf("restart");
    const key = randomBytes(32);
    relay.sessions.set(flight, { id: "session|restart", key });
    for (const serial of [1, 2, 3, 4_000_000_000, 1, 2, 5000])
      relay.intake.handle(datagram(flight, key, serial), "192.0.2.1");
    await settle();
    expect(relay.forwarded.map((r) => r.serial)).toEqual([1, 2, 3, 4_000_000_000, 1, 2, 5000]);
  });

  it("names the datagram by its keyed hash over IV and ciphertext, as the worker stores it", async () => {
    const relay = intakeHarness(RELAY_DEFAULTS);
    const flight = flightIdOf("identity");
    const key = randomBytes(32);
    relay.sessions.set(flight, { id: "session|identity", key });
    const iv = randomBytes(16);
    const cipher = createCipheriv("aes-256-cbc", key, iv);
    const ciphertext = Buffer.concat([
      cipher.update(encodeRecords([position(1), position(2)])),
      cipher.final(),
    ]);
    const head = Buffer.alloc(5);
    head.writeUInt32BE(9);
    head.writeUInt8(flight.length, 4);
    relay.intake.handle(
      Buffer.concat([head, Buffer.from(flight), Buffer.from([1]), iv, ciphertext]),
      "192.0.2.1",
    );
    await settle();
    // SipHash-2-4-128 (test/relay/sipHash.test.ts) under the session's identity key, over IV and ciphertext.
    const tag = new Int32Array(4);
    const named = Buffer.concat([iv, ciphertext]);
    sipHash128(identityKeyOf(key), named, 0, named.length, tag);
    const identity = Buffer.from(tag.buffer).toString("base64");
    expect(relay.forwarded.map((r) => [r.index, r.datagram])).toEqual([
      [0, identity],
      [1, identity],
    ]);
    // Another session's key names the same bytes otherwise: each session's identities are its own.
    sipHash128(identityKeyOf(randomBytes(32)), named, 0, named.length, tag);
    expect(Buffer.from(tag.buffer).toString("base64")).not.toBe(identity);
  });
});
