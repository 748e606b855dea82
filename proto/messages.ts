import { readFileSync } from "node:fs";
import protobuf from "protobufjs";
import { frameRecords } from "./datagram";
import { type OutgoingRecord, type RecordKind, recordKinds, type TelemetryMessage } from "./records";

/**
 * The protobuf side of the records, for Node (the relay decodes with it, tools and tests encode):
 * telemetry.proto loaded and checked against records.ts, so the two cannot drift apart.
 */

/** A record kind with its protobuf message type. */
export interface MessageKind extends RecordKind {
  type: protobuf.Type;
}

export interface TelemetrySchema {
  byId: ReadonlyMap<number, MessageKind>;
  byName: ReadonlyMap<string, MessageKind>;
}

const PACKAGE = "windsock.telemetry";

// uint64 decodes to a number rather than a Long object per record; a value beyond 2^53 comes out
// as an unsafe integer, which invalidField refuses, so nothing is silently rounded.
protobuf.util.Long = null as unknown as typeof protobuf.util.Long;
protobuf.configure();

/** The message types of a .proto's text; throws when its record types are not those of records.ts. */
export function loadTelemetrySchema(protoText: string): TelemetrySchema {
  const root = protobuf.parse(protoText, { keepCase: true }).root;
  const ids = root.lookupEnum(`${PACKAGE}.MessageType`).values;
  const kinds: MessageKind[] = [];
  for (const [enumName, id] of Object.entries(ids)) {
    if (id === 0) continue;
    // POSITION names the message Position; GPS_FIX would name GpsFix.
    const messageName = enumName
      .toLowerCase()
      .split("_")
      .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
      .join("");
    const kind = recordKinds.byId.get(id);
    if (kind?.name !== enumName.toLowerCase())
      throw new Error(
        `telemetry.proto's MessageType ${enumName} = ${id} is not a record type of proto/records.ts`,
      );
    const type = root.lookupType(`${PACKAGE}.${messageName}`);
    const fields = [...type.fieldsArray]
      .sort((a, b) => a.id - b.id)
      .map((field) => field.name)
      .join(", ");
    const expected = ["timestamp", ...kind.fields].join(", ");
    if (fields !== expected)
      throw new Error(`telemetry.proto's ${messageName} has ${fields}; proto/records.ts says ${expected}`);
    kinds.push({ ...kind, type });
  }
  if (kinds.length !== recordKinds.byId.size)
    throw new Error("proto/records.ts names record types that telemetry.proto lacks");
  return {
    byId: new Map(kinds.map((kind) => [kind.id, kind])),
    byName: new Map(kinds.map((kind) => [kind.name, kind])),
  };
}

// The path holds both from this file and from the relay's bundle, whose import.meta.url is relay/main.ts.
export const telemetrySchema = loadTelemetrySchema(
  readFileSync(new URL("../proto/telemetry.proto", import.meta.url), "utf8"),
);

/** Decodes one record's protobuf bytes; undefined when they are not a valid message of that kind (or empty). */
export function decodeMessage(kind: MessageKind, bytes: Uint8Array): TelemetryMessage | undefined {
  // An empty record carries no timestamp and no value (all would read as 0: 1970 at 0,0): malformed.
  if (bytes.length === 0) return undefined;
  let decoded: Record<string, unknown>;
  try {
    decoded = kind.type.decode(bytes) as unknown as Record<string, unknown>;
  } catch {
    return undefined;
  }
  // Absent proto3 fields read as their default, 0, from the message's prototype.
  const values = kind.fields.map((name) => decoded[name] as number);
  return { type: kind.name, timestamp: decoded.timestamp as number, values };
}

/** Records as a datagram's payload (each behind its header), as a client encodes them. */
export function encodeRecords(records: readonly OutgoingRecord[]): Buffer {
  return frameRecords(
    records.map(({ type, fields }) => {
      const kind = telemetrySchema.byName.get(type);
      if (!kind) throw new Error(`no record type ${type}`);
      return { typeId: kind.id, bytes: kind.type.encode(kind.type.fromObject(fields)).finish() };
    }),
  );
}
