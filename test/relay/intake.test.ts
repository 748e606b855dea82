import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildDatagram } from "../../proto/datagram";
import { encodeRecords } from "../../proto/messages";
import { datagramIdentity, identityKeyOf } from "../../relay/datagramIdentity";
import { position } from "../../tools/lib/sampleRecords";
import { flightIdOf, intakeHarness, settle } from "./harness";

const FLIGHT = flightIdOf("intake");

function datagram(serial: number, key: Buffer, flightId = FLIGHT) {
  return buildDatagram({ serial, flightId, key, payload: encodeRecords([position(1000 + serial)]) });
}

describe("Intake", () => {
  it("looks the key up once, then accepts in any order but each datagram only once", async () => {
    const relay = intakeHarness();
    const key = randomBytes(32);
    relay.sessions.set(FLIGHT, { id: "session|a", key });
    const sent = new Map([1, 2, 3, 4, 5].map((serial) => [serial, datagram(serial, key)]));
    for (const serial of [1, 3, 2, 3, 1, 5, 4]) {
      relay.intake.handle(sent.get(serial)!, "192.0.2.1");
      await settle();
    }
    expect(relay.forwarded.map((r) => r.serial)).toEqual([1, 3, 2, 5, 4]);
    expect(relay.dropped("replayed")).toBe(2);
    expect(relay.lookups).toEqual([FLIGHT]);
  });

  it("holds the first datagrams of a flight until its key arrives", async () => {
    const relay = intakeHarness();
    const key = randomBytes(32);
    relay.sessions.set(FLIGHT, { id: "session|a", key });
    for (const serial of [1, 2, 3]) relay.intake.handle(datagram(serial, key), "192.0.2.1");
    await settle();
    expect(relay.forwarded.map((r) => r.serial)).toEqual([1, 2, 3]);
    expect(relay.lookups).toHaveLength(1);
  });

  it("follows a session rotation: a datagram that fails to decrypt looks the key up again", async () => {
    const relay = intakeHarness();
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    relay.sessions.set(FLIGHT, { id: "session|old", key: oldKey });
    relay.intake.handle(datagram(7, oldKey), "192.0.2.1");
    await settle();
    relay.sessions.set(FLIGHT, { id: "session|new", key: newKey });
    // Serials restart at 1 in the new session: its own replay window.
    const rotated = datagram(1, newKey);
    relay.intake.handle(rotated, "192.0.2.1");
    await settle();
    relay.intake.handle(datagram(2, newKey), "192.0.2.1");
    // A late datagram of the old session no longer decrypts.
    relay.intake.handle(datagram(8, oldKey), "192.0.2.1");
    await settle();
    expect(relay.forwarded.map((r) => [r.session_id, r.serial])).toEqual([
      ["session|old", 7],
      ["session|new", 1],
      ["session|new", 2],
    ]);
    expect(relay.dropped("decrypt_failed") + relay.dropped("bad_payload_framing")).toBe(1);
    // The new session's datagram is named under the new session's identity key, not under the old
    // one it was first tried with (relay/datagramIdentity.ts).
    const tag = new Int32Array(4);
    datagramIdentity(identityKeyOf(newKey), rotated, 5 + Buffer.byteLength(FLIGHT) + 1, tag);
    expect(relay.forwarded[1]!.datagram).toBe(Buffer.from(tag.buffer).toString("base64"));
  });

  it("holds datagrams of a rotated session until the key may be looked up again", async () => {
    const relay = intakeHarness({ retryAfterMs: 100 });
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    relay.sessions.set(FLIGHT, { id: "session|old", key: oldKey });
    relay.intake.handle(datagram(1, oldKey), "192.0.2.1");
    await settle();
    relay.sessions.set(FLIGHT, { id: "session|new", key: newKey });
    for (const serial of [1, 2, 3]) relay.intake.handle(datagram(serial, newKey), "192.0.2.1");
    await settle();
    expect(relay.forwarded).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 150));
    await settle();
    expect(relay.forwarded.map((r) => [r.session_id, r.serial])).toEqual([
      ["session|old", 1],
      ["session|new", 1],
      ["session|new", 2],
      ["session|new", 3],
    ]);
    expect(relay.lookups).toHaveLength(2);
  });

  it("caches an unknown flight negatively: a flood costs one look-up", async () => {
    const relay = intakeHarness();
    const key = randomBytes(32);
    for (let serial = 1; serial <= 50; serial++)
      relay.intake.handle(datagram(serial, key, flightIdOf("unknown")), "192.0.2.1");
    await settle();
    for (let serial = 51; serial <= 100; serial++)
      relay.intake.handle(datagram(serial, key, flightIdOf("unknown")), "192.0.2.1");
    expect(relay.lookups).toEqual([flightIdOf("unknown")]);
    expect(relay.dropped("unknown_flight")).toBe(100);
    expect(relay.forwarded).toHaveLength(0);
  });

  it("drops what cannot be decrypted because the worker is unreachable", async () => {
    const relay = intakeHarness();
    relay.keys.load = () => Promise.reject(new Error("down"));
    relay.intake.handle(datagram(1, randomBytes(32)), "192.0.2.1");
    await settle();
    expect(relay.dropped("key_unavailable")).toBe(1);
  });

  it("forwards every record of a datagram with its position in the payload", async () => {
    const relay = intakeHarness();
    const key = randomBytes(32);
    relay.sessions.set(FLIGHT, { id: "session|a", key });
    const payload = encodeRecords([
      position(1),
      { type: "attitude", fields: { timestamp: 2, yaw: 360, pitch: 0, roll: 0 } },
      { type: "barometer", fields: { timestamp: 3, pressure: 1013.25 } },
    ]);
    relay.intake.handle(buildDatagram({ serial: 1, flightId: FLIGHT, key, payload }), "192.0.2.1");
    await settle();
    expect(relay.forwarded.map((r) => [r.index, r.type])).toEqual([
      [0, "position"],
      [2, "barometer"],
    ]);
    expect(relay.droppedRecords("out_of_range")).toBe(1);
  });
});
