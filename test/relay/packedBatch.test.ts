import { describe, expect, it } from "vitest";
import { IngestRequest, PackedIngestRequest, type RecordRow } from "../../proto/ingest";
import {
  ByteWriter,
  isPackedBatch,
  PackedBatchError,
  packBatchHeader,
  packRecord,
  packSession,
  unpackBatch,
} from "../../proto/packedBatch";

function batch(sessions: [string, string, RecordRow[]][]): Uint8Array {
  const out = new ByteWriter(8);
  packBatchHeader(out);
  for (const [flightId, sessionId, rows] of sessions) {
    packSession(out, flightId, sessionId, rows.length);
    for (const row of rows) packRecord(out, row, Buffer.from([row[0], 0xff]));
  }
  return out.written().slice();
}

describe("packed batches (proto/packedBatch.ts)", () => {
  it("round-trip every record type, several sessions, and values JSON could not tell apart", () => {
    const rows: RecordRow[] = [
      [
        4_294_967_295,
        65_535,
        "position",
        2 ** 53 - 1,
        1_700_000_000_123,
        -90,
        180,
        Math.fround(0.1),
        -0,
        5e-324,
      ],
      [2, 0, "speed", 0, 1, 1.5e300, -3, 0],
      [3, 1, "attitude", 7, 8, 359.999, -179.5, 180],
    ];
    const baro: RecordRow[] = [[9, 0, "barometer", 10, 11, 1013.25]];
    const bytes = batch([
      ["flight|ü", "session|a", rows],
      ["flight|b", "session|b", baro],
    ]);
    expect(isPackedBatch(bytes)).toBe(true);
    const sessions = unpackBatch(bytes);
    expect(sessions.map((s) => [s.flight_id, s.session_id, s.records])).toEqual([
      ["flight|ü", "session|a", rows],
      ["flight|b", "session|b", baro],
    ]);
    expect(Object.is(sessions[0]!.records[0]![8], -0)).toBe(true);
    expect(sessions[0]!.datagrams).toEqual(rows.map((r) => Buffer.from([r[0], 0xff]).toString("base64")));
  });

  it("refuses damaged bytes with where and why, never a wrong record", () => {
    const whole = batch([["flight|a", "session|a", [[1, 0, "barometer", 1, 2, 3]]]]);
    expect(() => unpackBatch(new TextEncoder().encode('[{"flight_id":"x"}]'))).toThrow(PackedBatchError);
    for (let cut = 5; cut < whole.length; cut++)
      expect(() => unpackBatch(whole.subarray(0, cut))).toThrow(/truncated at byte \d+/);
    const unknownType = whole.slice();
    // The type id sits 6 bytes into the record, after 4 + 2 + 8 + 2 + 9 + 4 bytes of headers.
    const recordAt = 4 + 1 + "flight|a".length + 1 + "session|a".length + 4;
    unknownType[recordAt + 6] = 99;
    expect(() => unpackBatch(unknownType)).toThrow(/record 0: unknown type id 99/);
    const badText = whole.slice();
    badText[5] = 0xff;
    expect(() => unpackBatch(badText)).toThrow(/flight_id at byte 5 is not UTF-8/);
    // received_at must be whole milliseconds (IngestRow), which a double does not guarantee.
    for (const receivedAt of [-1, 1.5, Number.NaN, 2 ** 53]) {
      const odd = batch([["flight|a", "session|a", [[1, 0, "barometer", 1, receivedAt, 3]]]]);
      expect(() => unpackBatch(odd)).toThrow(/record 0: received_at at byte \d+ is not whole milliseconds/);
    }
  });

  it("with PackedIngestRequest, hold the same rules as a JSON post (IngestRequest)", () => {
    const check = (rows: RecordRow[], sessionId = "session|a") => {
      const sessions = unpackBatch(batch([["flight|a", sessionId, rows]]));
      const packed = PackedIngestRequest.safeParse({ sessions });
      const json = IngestRequest.safeParse({ sessions });
      expect(packed.success).toBe(json.success);
      return packed.success ? [] : packed.error.issues.map((i) => i.path.join("."));
    };
    expect(check([[1, 0, "position", 1000, 2000, 47.3, 8.5, 1, 1, 1]])).toEqual([]);
    expect(check([[1, 0, "position", 1000, 2000, 91, 8.5, 1, 1, 1]])).toEqual([
      "sessions.0.records.0.latitude",
    ]);
    expect(check([[1, 0, "position", -5, 2000, 47.3, 8.5, 1, 1, 1]])).toEqual([
      "sessions.0.records.0.timestamp",
    ]);
    expect(check([[1, 0, "barometer", 1, 2, Number.POSITIVE_INFINITY]])).toEqual([
      "sessions.0.records.0.pressure",
    ]);
    expect(check([])).toEqual(["sessions.0.records"]);
    expect(check([[1, 0, "barometer", 1, 2, 3]], "s".repeat(65))).toEqual(["sessions.0.session_id"]);
  });

  it("refuses to pack an id longer than its one length byte", () => {
    expect(() => batch([["f".repeat(256), "s", []]])).toThrow(RangeError);
  });
});
