import { createCipheriv, randomBytes } from "node:crypto";
import { telemetrySchema } from "../../relay/messages";

/** Builds telemetry datagrams as a client does (spec 4.6), for tests and benchmarks. */

export interface OutgoingRecord {
  type: string;
  fields: Record<string, number>;
}

/** Records as a payload: type u16 | length u16 | protobuf bytes, each. */
export function encodeRecords(records: OutgoingRecord[]): Buffer {
  return Buffer.concat(
    records.map(({ type, fields }) => {
      const kind = telemetrySchema.byName.get(type);
      if (!kind) throw new Error(`no message type ${type}`);
      const bytes = kind.type.encode(kind.type.fromObject(fields)).finish();
      const header = Buffer.alloc(4);
      header.writeUInt16BE(kind.id, 0);
      header.writeUInt16BE(bytes.length, 2);
      return Buffer.concat([header, bytes]);
    }),
  );
}

/** serial u32 | id length u8 | flight id | 1 (AES-256-CBC) | IV | ciphertext, with a fresh IV. */
export function buildDatagram(options: {
  serial: number;
  flightId: string;
  key: Buffer;
  payload: Buffer;
}): Buffer {
  const iv = randomBytes(16);
  const cipher = createCipheriv("aes-256-cbc", options.key, iv);
  const ciphertext = Buffer.concat([cipher.update(options.payload), cipher.final()]);
  const id = Buffer.from(options.flightId);
  const head = Buffer.alloc(5);
  head.writeUInt32BE(options.serial, 0);
  head.writeUInt8(id.length, 4);
  return Buffer.concat([head, id, Buffer.from([1]), iv, ciphertext]);
}

export function position(timestamp: number, latitude = 47.3769251, longitude = 8.541694): OutgoingRecord {
  return {
    type: "position",
    fields: {
      timestamp,
      latitude,
      longitude,
      altitude_agl: 42.5,
      altitude_msl: 450.25,
      horizontal_accuracy: 1.5,
    },
  };
}
