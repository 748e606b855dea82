import { describe, expect, it } from "vitest";
import { decodeMessage, encodeRecords, telemetrySchema } from "../../proto/messages";
import { invalidField } from "../../proto/records";
import { RecordDecoder } from "../../relay/recordDecoder";

/** mulberry32: a seeded generator, so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the worker's own decodeMessage + invalidField make of the bytes, as the relay's decoder answers. */
function reference(typeId: number, bytes: Buffer, serial: number, index: number, receivedAt: number) {
  const kind = telemetrySchema.byId.get(typeId);
  if (!kind) return "unknown_type";
  const message = decodeMessage(kind, bytes);
  if (!message) return "malformed";
  if (invalidField(kind, message)) return "out_of_range";
  return [serial, index, message.type, message.timestamp, receivedAt, ...message.values];
}

describe("RecordDecoder", () => {
  it("answers like decodeMessage and invalidField for valid, mutated and random records", () => {
    const decoder = new RecordDecoder(telemetrySchema);
    const next = random(20261124);
    const int = (n: number) => Math.floor(next() * n);
    const valid = [
      encodeRecords([
        {
          type: "position",
          fields: {
            timestamp: 1_700_000_000_000,
            latitude: 47.1,
            longitude: 8.5,
            altitude_agl: 12.5,
            altitude_msl: 500,
            horizontal_accuracy: 1,
          },
        },
      ]),
      encodeRecords([
        { type: "speed", fields: { timestamp: 5, velocity_x: -1.5, velocity_y: 0, velocity_z: 2 } },
      ]),
      encodeRecords([{ type: "attitude", fields: { timestamp: 7, yaw: 359.5, pitch: -10, roll: 180 } }]),
      encodeRecords([{ type: "barometer", fields: { timestamp: 9, pressure: 1013.25 } }]),
      encodeRecords([{ type: "position", fields: { timestamp: 1, latitude: 91 } }]),
    ].map((record) => ({ typeId: record.readUInt16BE(0), bytes: record.subarray(4) }));
    let seen = 0;
    const outcomes = new Set<string>();
    for (let round = 0; round < 6000; round++) {
      const base = valid[int(valid.length)]!;
      let bytes = Buffer.from(base.bytes);
      let typeId = round % 50 === 0 ? int(8) : base.typeId;
      switch (int(6)) {
        case 0:
          break;
        case 1:
          for (let i = 0, n = 1 + int(3); i < n && bytes.length > 0; i++) bytes[int(bytes.length)] = int(256);
          break;
        case 2:
          bytes = bytes.subarray(0, int(bytes.length + 1));
          break;
        case 3:
          bytes = Buffer.concat([bytes, Buffer.from(Array.from({ length: 1 + int(12) }, () => int(256)))]);
          break;
        case 4:
          bytes = Buffer.from(Array.from({ length: int(40) }, () => int(256)));
          break;
        default:
          // A field repeated (the last one wins) or an unknown field appended.
          bytes = Buffer.concat([
            bytes,
            Buffer.from(base.bytes.subarray(0, 9)),
            Buffer.from([0x38, int(128)]),
          ]);
          typeId = base.typeId;
      }
      // Decoded from inside a larger buffer, as the intake does, to check the bounds are honoured.
      const frame = Buffer.concat([Buffer.from([0x08, 0x01]), bytes, Buffer.from([0x10, 0x7f])]);
      const got = decoder.decode(typeId, frame, 2, 2 + bytes.length, round, round % 3, 42);
      const want = reference(typeId, bytes, round, round % 3, 42);
      expect(typeof got === "string" ? got : [...got]).toEqual(want);
      outcomes.add(typeof want === "string" ? want : "ok");
      seen++;
    }
    expect(seen).toBe(6000);
    // The cases above reach every outcome, so the comparison covers each of them.
    expect([...outcomes].sort()).toEqual(["malformed", "ok", "out_of_range", "unknown_type"]);
  });

  it("reuses its row, so a caller must copy what it keeps", () => {
    const decoder = new RecordDecoder(telemetrySchema);
    const record = encodeRecords([{ type: "barometer", fields: { timestamp: 9, pressure: 1000 } }]);
    const first = decoder.decode(4, record, 4, record.length, 1, 0, 5);
    const second = decoder.decode(4, record, 4, record.length, 2, 0, 6);
    expect(first).toBe(second);
    expect(second).toEqual([2, 0, "barometer", 9, 6, 1000]);
  });
});
