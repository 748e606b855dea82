import { createCipheriv, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { telemetrySchema } from "../../relay/messages";

/** Builds datagrams as a client does (spec 4.6), for tests and benchmarks. */

export interface OutgoingRecord {
  type: string;
  fields: Record<string, number>;
}

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

export interface VectorCase {
  name: string;
  valid: boolean;
  key: string;
  flight_id: string;
  serial?: number;
  datagram_hex: string;
  messages: ({ type: string; timestamp: number } & Record<string, unknown>)[];
  why?: string;
}

export const vectors: VectorCase[] = JSON.parse(
  readFileSync(new URL("../fixtures/telemetry-vectors/vectors.json", import.meta.url), "utf8"),
).cases;
