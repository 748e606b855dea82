import { createCipheriv, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildDatagram } from "../../proto/datagram";
import { encodeRecords, telemetrySchema } from "../../proto/messages";
import { invalidField } from "../../proto/records";
import { position } from "../../tools/lib/sampleRecords";
import { flightIdOf, intakeHarness, settle } from "./harness";

const FLIGHT = flightIdOf("fuzz");
/** Valid datagrams between the rounds of fuzz go to another flight, so each can be told apart. */
const PROBE = flightIdOf("probe");

/** mulberry32: a seeded generator, so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("fuzzing the intake", () => {
  it("survives random and mutated datagrams and still accepts every valid one after them", async () => {
    const seed = 20260421;
    const next = random(seed);
    const int = (n: number) => Math.floor(next() * n);
    const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)));
    const relay = intakeHarness();
    const key = randomBytes(32);
    relay.sessions.set(FLIGHT, { id: "session|fuzz", key });
    const probeKey = randomBytes(32);
    relay.sessions.set(PROBE, { id: "session|probe", key: probeKey });
    const encrypt = (serial: number, payload: Buffer) => {
      const iv = bytes(16);
      const cipher = createCipheriv("aes-256-cbc", key, iv);
      const head = Buffer.alloc(5);
      head.writeUInt32BE(serial);
      head.writeUInt8(FLIGHT.length, 4);
      return Buffer.concat([
        head,
        Buffer.from(FLIGHT),
        Buffer.from([1]),
        iv,
        cipher.update(payload),
        cipher.final(),
      ]);
    };
    const mutate = (valid: Buffer): Buffer => {
      const copy = Buffer.from(valid);
      switch (int(5)) {
        case 0:
          for (let i = 0, n = 1 + int(4); i < n; i++) copy[int(copy.length)] = int(256);
          return copy;
        case 1:
          return copy.subarray(0, int(copy.length));
        case 2:
          return Buffer.concat([copy, bytes(1 + int(40))]);
        case 3:
          copy[4] = int(256);
          return copy;
        default:
          copy[5 + FLIGHT.length] = int(256);
          return copy;
      }
    };
    // Records with real headers but random bodies, encrypted with the right key: the decoder's turn.
    const garbageRecords = () =>
      Buffer.concat(
        Array.from({ length: 1 + int(4) }, () => {
          const body = bytes(int(60));
          const header = Buffer.alloc(4);
          header.writeUInt16BE(int(6));
          header.writeUInt16BE(int(10) === 0 ? int(65536) : body.length, 2);
          return Buffer.concat([header, body]);
        }),
      );

    let serial = 0;
    let probeSerial = 0;
    const valid: number[] = [];
    for (let round = 0; round < 40; round++) {
      for (let i = 0; i < 100; i++) {
        const kind = int(4);
        const datagram =
          kind === 0
            ? bytes(int(300))
            : kind === 1
              ? mutate(
                  buildDatagram({
                    serial: ++serial,
                    flightId: FLIGHT,
                    key,
                    payload: encodeRecords([position(serial)]),
                  }),
                )
              : kind === 2
                ? encrypt(++serial, garbageRecords())
                : encrypt(++serial, bytes(int(200)));
        expect(() => relay.intake.handle(datagram, `203.0.113.${int(255)}`)).not.toThrow();
      }
      await settle();
      for (let i = 0; i < 5; i++) {
        valid.push(++probeSerial);
        const payload = encodeRecords([position(probeSerial)]);
        relay.intake.handle(
          buildDatagram({ serial: probeSerial, flightId: PROBE, key: probeKey, payload }),
          "192.0.2.1",
        );
      }
      await settle();
    }

    const forwardedSerials = new Set(
      relay.forwarded.filter((r) => r.flight_id === PROBE).map((r) => r.serial),
    );
    expect(valid.filter((s) => !forwardedSerials.has(s))).toEqual([]);
    expect(relay.dropped("internal_error")).toBe(0);
    for (const record of relay.forwarded) {
      const kind = telemetrySchema.byName.get(record.type)!;
      const values = kind.fields.map((name) => record.fields[name]!);
      expect(invalidField(kind, { timestamp: record.timestamp, values })).toBeUndefined();
    }
    // The fuzz really reached the deep checks, not just the framing.
    expect(relay.metrics.datagramsReceived.value()).toBe(40 * 105);
    for (const reason of ["decrypt_failed", "bad_payload_framing", "bad_flight_id_length"]) {
      expect(relay.dropped(reason)).toBeGreaterThan(0);
    }
    for (const reason of ["malformed", "unknown_type"])
      expect(relay.droppedRecords(reason)).toBeGreaterThan(0);
  });
});
