import protobuf from "protobufjs";

/**
 * The telemetry messages of proto/telemetry.proto, shared by the relay (which decodes them) and the
 * worker (which validates what the relay posts and serves it back). Pure: the caller passes the proto's
 * text, read from disk in Node and bundled as text in the worker.
 */

/** One message type: its wire id, its record name (`position`) and its value fields after `timestamp`. */
export interface MessageKind {
  id: number;
  name: string;
  fields: readonly string[];
  type: protobuf.Type;
}

export interface TelemetrySchema {
  byId: ReadonlyMap<number, MessageKind>;
  byName: ReadonlyMap<string, MessageKind>;
}

/** A decoded record: its type name, its timestamp (ms) and its fields' values in the kind's order. */
export interface TelemetryMessage {
  type: string;
  timestamp: number;
  values: number[];
}

/**
 * A record as the relay posts it to the worker: [serial, index in the datagram, type, timestamp,
 * received_at, ...the values of the kind's fields]. Rows keep the relay's posts small.
 */
export type RecordRow = [number, number, string, number, number, ...number[]];

/** The body of the relay's posts (POST /internal/v1/telemetry): rows grouped by session. */
export interface SessionRecords {
  flight_id: string;
  session_id: string;
  records: RecordRow[];
  /**
   * Per row, the identity of its datagram: base64 of the ciphertext's last block, which chains from the
   * fresh IV and every block (the serial is outside the ciphertext and proves nothing). A record is
   * stored once per (session, datagram, index). Absent in posts of relays before it (and in their
   * spooled batches): then the serial stands in, as before.
   */
  datagrams?: string[];
}

/** The identity a row's datagram is stored under: the posted one, or `#<serial>` for older relays. */
export function datagramIdentity(datagrams: string[] | undefined, i: number, serial: number): string {
  return datagrams?.[i] ?? `#${serial}`;
}

const PACKAGE = "windsock.telemetry";

// uint64 decodes to a number rather than a Long object per record; a value beyond 2^53 comes out
// as an unsafe integer, which invalidField refuses, so nothing is silently rounded.
protobuf.util.Long = null as unknown as typeof protobuf.util.Long;
protobuf.configure();

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
    const type = root.lookupType(`${PACKAGE}.${messageName}`);
    const fields = [...type.fieldsArray]
      .sort((a, b) => a.id - b.id)
      .map((field) => field.name)
      .filter((name) => name !== "timestamp");
    kinds.push({ id, name: enumName.toLowerCase(), fields, type });
  }
  return {
    byId: new Map(kinds.map((kind) => [kind.id, kind])),
    byName: new Map(kinds.map((kind) => [kind.name, kind])),
  };
}

/** Decodes one record's protobuf bytes; undefined when they are not a valid message of that kind. */
export function decodeMessage(kind: MessageKind, bytes: Uint8Array): TelemetryMessage | undefined {
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

/** Bounds of the fields that have them (spec 2.8); every other field only has to be finite. */
const FIELD_RANGES: Record<string, (value: number) => boolean> = {
  latitude: (v) => v >= -90 && v <= 90,
  longitude: (v) => v >= -180 && v <= 180,
  yaw: (v) => v >= 0 && v < 360,
  pitch: (v) => v > -180 && v <= 180,
  roll: (v) => v > -180 && v <= 180,
  horizontal_accuracy: (v) => v >= 0,
  pressure: (v) => v >= 0,
};

/** The first field that is missing or out of range; undefined when the message is valid. */
export function invalidField(kind: MessageKind, message: Omit<TelemetryMessage, "type">): string | undefined {
  if (!Number.isSafeInteger(message.timestamp) || message.timestamp < 0) return "timestamp";
  const { values } = message;
  for (const [i, name] of kind.fields.entries()) {
    const value = values[i];
    if (typeof value !== "number" || !Number.isFinite(value)) return name;
    if (FIELD_RANGES[name] && !FIELD_RANGES[name](value)) return name;
  }
  return undefined;
}

/** The values as an object of field names, as records are stored and served. */
export function namedFields(kind: MessageKind, values: number[]): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const [i, name] of kind.fields.entries()) fields[name] = values[i]!;
  return fields;
}
