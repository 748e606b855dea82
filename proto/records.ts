/**
 * The telemetry record types of telemetry.proto as TypeScript sees them: names, wire ids and value
 * fields. Pure (no protobuf, no Node): the worker validates and serves records by it, the relay and the
 * tools encode and decode through ./messages, which refuses to load a .proto that disagrees with it.
 */

/** Per record type: the Message Type ID of its record header and its fields after `timestamp`, in field-number order. */
const KINDS = {
  position: {
    id: 1,
    fields: ["latitude", "longitude", "altitude_agl", "altitude_msl", "horizontal_accuracy"],
  },
  speed: { id: 2, fields: ["velocity_x", "velocity_y", "velocity_z"] },
  attitude: { id: 3, fields: ["yaw", "pitch", "roll"] },
  barometer: { id: 4, fields: ["pressure"] },
} as const;

/** A record type's name: the lower-case MessageType enum value (POSITION → position). */
export type RecordType = keyof typeof KINDS;

/** A record as a client sends it, fields by name; proto3 leaves absent fields at 0, so any may be left out. */
export interface OutgoingRecord {
  type: RecordType;
  fields: Record<string, number>;
}

export interface RecordKind {
  id: number;
  name: RecordType;
  fields: readonly string[];
}

/** A decoded record: its type, its timestamp (ms) and its fields' values in the kind's order. */
export interface TelemetryMessage {
  type: RecordType;
  timestamp: number;
  values: number[];
}

const kinds: RecordKind[] = Object.entries(KINDS).map(([name, { id, fields }]) => ({
  id,
  name: name as RecordType,
  fields,
}));

/** The record types in wire-id order. */
export const RECORD_TYPES = kinds.map((kind) => kind.name) as [RecordType, ...RecordType[]];

/** The record kinds by wire id and by name (a string, as it arrives in a query or a post). */
export const recordKinds: { byId: ReadonlyMap<number, RecordKind>; byName: ReadonlyMap<string, RecordKind> } =
  {
    byId: new Map(kinds.map((kind) => [kind.id, kind])),
    byName: new Map(kinds.map((kind) => [kind.name, kind])),
  };

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

/**
 * The first field that is missing or out of range; undefined when the record is valid. The values
 * are read from `values` starting at `from` (a row's values start at 5: no copy of them is made).
 */
export function invalidField(
  kind: Pick<RecordKind, "fields">,
  message: { timestamp: number; values: readonly unknown[] },
  from = 0,
): string | undefined {
  if (!Number.isSafeInteger(message.timestamp) || message.timestamp < 0) return "timestamp";
  const { values } = message;
  const names = kind.fields;
  // Indexed loops: these run per record on the relay's and the worker's hot paths.
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const value = values[from + i];
    if (typeof value !== "number" || !Number.isFinite(value)) return name;
    const inRange = FIELD_RANGES[name];
    if (inRange && !inRange(value)) return name;
  }
  return undefined;
}

/** The values (from index `from` on) as an object of field names, as records are stored and served. */
export function namedFields(
  kind: Pick<RecordKind, "fields">,
  values: readonly unknown[],
  from = 0,
): Record<string, number> {
  const fields: Record<string, number> = {};
  const names = kind.fields;
  for (let i = 0; i < names.length; i++) fields[names[i]!] = values[from + i] as number;
  return fields;
}
