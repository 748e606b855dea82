import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildDatagram, CIPHER_BLOCK_BYTES, IV_BYTES } from "../../proto/datagram";
import { encodeRecords } from "../../proto/messages";
import { datagramIdentity, identityKeyOf } from "../../relay/datagramIdentity";
import { position } from "../../tools/lib/sampleRecords";
import { flightIdOf, intakeHarness, RELAY_DEFAULTS, settle } from "./harness";

/**
 * What an on-path attacker can do to AES-CBC without a MAC (issue #27 item 6), and the records no
 * session can have sent (item 7).
 */

/**
 * The identity the relay posts a datagram's records under: SipHash-2-4-128 of its IV and ciphertext
 * under the session's identity key (relay/datagramIdentity.ts), 16 bytes.
 */
function identityOf(datagram: Buffer, flightId: string, key: Buffer): string {
  const ivStart = 5 + Buffer.byteLength(flightId) + 1;
  const tag = new Int32Array(4);
  datagramIdentity(identityKeyOf(key), datagram, ivStart, tag);
  return Buffer.from(tag.buffer).toString("base64");
}

/** A copy of the datagram with bit `bit` of byte `byte` (counted from the IV's first) flipped. */
function flipped(datagram: Buffer, flightId: string, byte: number, bit: number): Buffer {
  const copy = Buffer.from(datagram);
  copy[5 + Buffer.byteLength(flightId) + 1 + byte]! ^= 1 << bit;
  return copy;
}

function sessionFor(relay: ReturnType<typeof intakeHarness>, tag: string) {
  const flight = flightIdOf(tag);
  const key = randomBytes(32);
  relay.sessions.set(flight, { id: `session|${tag}`, key, openedAt: Date.now() - 60_000 });
  return { flight, key };
}

describe("tampered copies never suppress the genuine datagram", () => {
  it("stores the genuine datagram after 200 copies with bits flipped in the IV, the first and the last block", async () => {
    const relay = intakeHarness(RELAY_DEFAULTS);
    const { flight, key } = sessionFor(relay, "tampered");
    const now = Date.now();
    const payload = encodeRecords([
      position(now, 57.67, 11.97),
      { type: "speed", fields: { timestamp: now, velocity_x: 3.5, velocity_y: -1, velocity_z: 0.5 } },
    ]);
    const genuine = buildDatagram({ serial: 7, flightId: flight, key, payload });
    const blocks = (genuine.length - (5 + flight.length + 1 + IV_BYTES)) / CIPHER_BLOCK_BYTES;
    expect(blocks).toBeGreaterThanOrEqual(4);
    const lastBlock = IV_BYTES + (blocks - 1) * CIPHER_BLOCK_BYTES;
    // 200 distinct flips: in turn the IV, the first ciphertext block and the last one.
    for (let k = 0; k < 200; k++) {
      const region = [0, IV_BYTES, lastBlock][k % 3]!;
      const at = Math.floor(k / 3);
      relay.intake.handle(flipped(genuine, flight, region + (at >> 3), at & 7), "203.0.113.5");
    }
    await settle();
    const before = relay.forwarded.length;
    relay.intake.handle(genuine, "192.0.2.1");
    await settle();
    const id = identityOf(genuine, flight, key);
    // No copy was stored under the genuine datagram's identity, and the genuine one is stored whole.
    expect(relay.forwarded.slice(0, before).filter((r) => r.datagram === id)).toEqual([]);
    const stored = relay.forwarded.slice(before);
    expect(stored.map((r) => [r.datagram, r.serial, r.type, r.timestamp])).toEqual([
      [id, 7, "position", now],
      [id, 7, "speed", now],
    ]);
    expect(stored[0]!.fields.latitude).toBe(57.67);
    // Replays of the genuine datagram are still dropped.
    relay.intake.handle(genuine, "203.0.113.5");
    await settle();
    expect(relay.dropped("replayed")).toBe(1);
  });

  it("stores the genuine datagram after an IV flip that changed a stored latitude", async () => {
    const relay = intakeHarness(RELAY_DEFAULTS);
    const { flight, key } = sessionFor(relay, "latitude");
    const now = Date.now();
    const genuine = buildDatagram({
      serial: 1,
      flightId: flight,
      key,
      payload: encodeRecords([position(now, 57.67, 11.97)]),
    });
    // The first block's last bytes are the latitude's low bytes: flipping their IV bits alters it slightly.
    for (let byte = 12; byte < 16; byte++)
      relay.intake.handle(flipped(genuine, flight, byte, 0), "203.0.113.5");
    await settle();
    const altered = relay.forwarded.map((r) => r.fields.latitude);
    expect(altered.length).toBeGreaterThan(0);
    for (const latitude of altered) {
      expect(latitude).not.toBe(57.67);
      expect(latitude).toBeCloseTo(57.67, 4);
    }
    relay.intake.handle(genuine, "192.0.2.1");
    await settle();
    const last = relay.forwarded.at(-1)!;
    expect(last.datagram).toBe(identityOf(genuine, flight, key));
    expect(last.fields.latitude).toBe(57.67);
    expect(relay.dropped("replayed")).toBe(0);
    expect(new Set(relay.forwarded.map((r) => r.datagram)).size).toBe(relay.forwarded.length);
  });

  it("remembers a datagram only once one of its records went on", async () => {
    const relay = intakeHarness(RELAY_DEFAULTS);
    const { flight, key } = sessionFor(relay, "nothing");
    // Decrypts and frames well, but its only record is out of range: nothing is stored…
    const outOfRange = buildDatagram({
      serial: 1,
      flightId: flight,
      key,
      payload: encodeRecords([position(Date.now(), 91, 0)]),
    });
    relay.intake.handle(outOfRange, "192.0.2.1");
    relay.intake.handle(outOfRange, "192.0.2.1");
    await settle();
    // …so it is not remembered either: the second copy is not a replay, only out of range again.
    expect(relay.forwarded).toEqual([]);
    expect(relay.dropped("replayed")).toBe(0);
    expect(relay.droppedRecords("out_of_range")).toBe(2);
  });
});

describe("records no session can have sent are dropped and counted", () => {
  it("drops empty records as malformed, and times before the session or in the future by reason", async () => {
    const relay = intakeHarness(RELAY_DEFAULTS);
    const { flight, key } = sessionFor(relay, "absurd");
    const now = Date.now();
    const emptyPosition = Buffer.from([0x00, 0x01, 0x00, 0x00]);
    const payload = Buffer.concat([
      emptyPosition,
      encodeRecords([
        position(0),
        position(Date.UTC(9999, 11, 31)),
        position(now - 2 * 3600_000),
        position(now + 10 * 60_000),
        position(now, 57.67, 11.97),
      ]),
    ]);
    relay.intake.handle(buildDatagram({ serial: 1, flightId: flight, key, payload }), "192.0.2.1");
    await settle();
    expect(relay.forwarded.map((r) => [r.index, r.timestamp, r.fields.latitude])).toEqual([[5, now, 57.67]]);
    expect(relay.droppedRecords("malformed")).toBe(1);
    expect(relay.droppedRecords("before_session")).toBe(2);
    expect(relay.droppedRecords("in_future")).toBe(2);
  });

  it("takes records from an hour before start-comm to five minutes ahead", async () => {
    const relay = intakeHarness(RELAY_DEFAULTS);
    const { flight, key } = sessionFor(relay, "edges");
    const now = Date.now();
    const openedAt = now - 60_000;
    const payload = encodeRecords([position(openedAt - 3600_000 + 1000), position(now + 4 * 60_000)]);
    relay.intake.handle(buildDatagram({ serial: 1, flightId: flight, key, payload }), "192.0.2.1");
    await settle();
    expect(relay.forwarded).toHaveLength(2);
  });
});
