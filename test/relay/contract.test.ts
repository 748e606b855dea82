import { createDecipheriv } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  buildDatagram,
  datagramLayoutMarkdown,
  IV_BYTES,
  parseDatagram,
  splitRecords,
} from "../../proto/datagram";
import { IngestRequest, type RecordRow } from "../../proto/ingest";
import { decodeMessage, encodeRecords, loadTelemetrySchema, telemetrySchema } from "../../proto/messages";
import { namedFields, type OutgoingRecord, RECORD_TYPES, recordKinds } from "../../proto/records";
import { RecordDecoder } from "../../relay/recordDecoder";
import { vectors } from "./vectors";

const PROTO = readFileSync(new URL("../../proto/telemetry.proto", import.meta.url), "utf8");
/** Valid vectors whose records are all of known types, so a client can encode them. */
const encodable = vectors.filter(
  (v) => v.valid && v.messages.length > 0 && v.name !== "unknown-message-type-skipped",
);

function outgoing(messages: (typeof vectors)[number]["messages"]): OutgoingRecord[] {
  return messages.map(({ type, ...fields }) => ({
    type: type as OutgoingRecord["type"],
    fields: fields as Record<string, number>,
  }));
}

describe("the telemetry contract in proto/", () => {
  it("has test vectors to round-trip", () => {
    expect(encodable.map((v) => v.name)).toEqual(
      expect.arrayContaining(["single-position", "all-four-types"]),
    );
  });

  for (const vector of encodable) {
    it(`builds ${vector.name} byte for byte and parses it back`, () => {
      const v = vector as typeof vector & { iv_hex: string; plaintext_hex: string; serial: number };
      const key = Buffer.from(v.key, "base64");
      const payload = encodeRecords(outgoing(v.messages));
      expect(payload.toString("hex")).toBe(v.plaintext_hex);
      const iv = Buffer.from(v.iv_hex, "hex");
      const datagram = buildDatagram({ serial: v.serial, flightId: v.flight_id, key, payload, iv });
      expect(datagram.toString("hex")).toBe(v.datagram_hex);

      const parsed = parseDatagram(datagram);
      if (typeof parsed === "string") throw new Error(parsed);
      expect(parsed).toMatchObject({ serial: v.serial, flightId: v.flight_id, iv });
      const decipher = createDecipheriv("aes-256-cbc", key, parsed.iv);
      const plain = Buffer.concat([decipher.update(parsed.ciphertext), decipher.final()]);
      const decoded = splitRecords(plain)!.map(({ typeId, bytes }) => {
        const kind = telemetrySchema.byId.get(typeId)!;
        const message = decodeMessage(kind, bytes)!;
        return { type: message.type, timestamp: message.timestamp, ...namedFields(kind, message.values) };
      });
      expect(decoded).toEqual(v.messages);
    });
  }

  it("rows the relay decodes are what the worker's ingest schema accepts", () => {
    const vector = vectors.find((v) => v.name === "all-four-types")!;
    const payload = encodeRecords(outgoing(vector.messages));
    const decoder = new RecordDecoder(telemetrySchema);
    const rows = splitRecords(payload)!.map(({ typeId, bytes }, index) => {
      const row = decoder.decode(typeId, bytes, 0, bytes.length, 2, index, 1_763_700_000_500);
      if (typeof row === "string") throw new Error(row);
      return [...row] as RecordRow;
    });
    const post = { flight_id: vector.flight_id, session_id: "session|contract", records: rows };
    expect(IngestRequest.safeParse({ sessions: [post] }).success).toBe(true);
    expect(rows.map((row) => row[2])).toEqual(["position", "speed", "attitude", "barometer"]);

    const issuePath = (records: unknown[], datagrams?: string[]) =>
      IngestRequest.safeParse({ sessions: [{ ...post, records, datagrams }] }).error?.issues[0]?.path;
    expect(issuePath([rows[0]!.slice(0, -1)])).toEqual(["sessions", 0, "records", 0, "horizontal_accuracy"]);
    expect(issuePath([[...rows[3]!, 1]])).toEqual(["sessions", 0, "records", 0]);
    expect(issuePath([rows[0]!, rows[1]!], ["one"])).toEqual(["sessions", 0, "datagrams"]);
  });

  it("refuses a telemetry.proto that disagrees with records.ts", () => {
    expect(loadTelemetrySchema(PROTO).byName.size).toBe(RECORD_TYPES.length);
    expect(() =>
      loadTelemetrySchema(PROTO.replace("float pressure = 2;", "float pressure_hpa = 2;")),
    ).toThrow(/Barometer has timestamp, pressure_hpa; proto\/records.ts says timestamp, pressure/);
    expect(() => loadTelemetrySchema(PROTO.replace("BAROMETER = 4;", "BAROMETER = 4;\n  WIND = 5;"))).toThrow(
      /WIND = 5/,
    );
    expect(() => loadTelemetrySchema(PROTO.replace(/\n\s*BAROMETER = 4;/, ""))).toThrow(/lacks/);
  });

  it("documents the layout that buildDatagram writes", () => {
    const flightId = "flight|7Qb2mZ0kP4wXz9LrTe3V";
    const iv = Buffer.alloc(IV_BYTES, 0xab);
    const datagram = buildDatagram({
      serial: 7,
      flightId,
      key: Buffer.alloc(32),
      payload: Buffer.alloc(0),
      iv,
    });
    const n = Buffer.byteLength(flightId);
    expect(datagram.indexOf(iv)).toBe(6 + n);
    expect(datagram[5 + n]).toBe(1);
    expect(datagram.length).toBe(22 + n + 16);
    expect(datagramLayoutMarkdown).toContain("| 6 + *n* | 16 | bytes | IV |");
    expect(datagramLayoutMarkdown).toContain("| 22 + *n* | rest | bytes | ciphertext |");
    expect(datagramLayoutMarkdown).toContain("| 5 + *n* | 1 | uint8 | encryption type | `1` = AES-256-CBC");
    for (const kind of recordKinds.byId.values())
      expect(datagramLayoutMarkdown).toContain(`| \`${kind.id}\` | \`${kind.name}\` | \`timestamp\`, `);
  });
});
