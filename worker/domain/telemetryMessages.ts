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

/** A decoded record: its type name, its timestamp (ms) and every value field (absent ones are 0). */
export interface TelemetryMessage {
  type: string;
  timestamp: number;
  fields: Record<string, number>;
}

const PACKAGE = "windsock.telemetry";

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
    decoded = kind.type.toObject(kind.type.decode(bytes), { longs: String, defaults: true });
  } catch {
    return undefined;
  }
  const fields: Record<string, number> = {};
  for (const name of kind.fields) fields[name] = decoded[name] as number;
  return { type: kind.name, timestamp: Number(decoded.timestamp), fields };
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

/** The first field that is missing, out of range or not of this kind; undefined when all are valid. */
export function invalidField(kind: MessageKind, message: Omit<TelemetryMessage, "type">): string | undefined {
  // A uint64 beyond 2^53 cannot be held exactly as a number, so it is refused rather than rounded.
  if (!Number.isSafeInteger(message.timestamp) || message.timestamp < 0) return "timestamp";
  for (const name of kind.fields) {
    const value = message.fields[name];
    if (typeof value !== "number" || !Number.isFinite(value)) return name;
    if (FIELD_RANGES[name] && !FIELD_RANGES[name](value)) return name;
  }
  const names = Object.keys(message.fields);
  return names.length === kind.fields.length ? undefined : names.find((name) => !kind.fields.includes(name));
}
