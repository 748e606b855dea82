import protobuf from "protobufjs";
import type { RecordRow } from "../proto/ingest";
import type { MessageKind, TelemetrySchema } from "../proto/messages";
import { invalidField } from "../proto/records";

type Reader = protobuf.Reader;

/**
 * Wire type and reader of each scalar type the telemetry messages may use. One small function per type
 * keeps each call site monomorphic (a look-up of the reader's method by name was megamorphic).
 */
const SCALARS: Record<string, { wire: number; read: (reader: Reader) => number }> = {
  uint64: { wire: 0, read: (r) => Number(r.uint64()) },
  int64: { wire: 0, read: (r) => Number(r.int64()) },
  sint64: { wire: 0, read: (r) => Number(r.sint64()) },
  uint32: { wire: 0, read: (r) => r.uint32() },
  int32: { wire: 0, read: (r) => r.int32() },
  sint32: { wire: 0, read: (r) => r.sint32() },
  bool: { wire: 0, read: (r) => (r.bool() ? 1 : 0) },
  double: { wire: 1, read: (r) => r.double() },
  fixed64: { wire: 1, read: (r) => Number(r.fixed64()) },
  sfixed64: { wire: 1, read: (r) => Number(r.sfixed64()) },
  float: { wire: 5, read: (r) => r.float() },
  fixed32: { wire: 5, read: (r) => r.fixed32() },
  sfixed32: { wire: 5, read: (r) => r.sfixed32() },
};

interface Field {
  /** Position in the row: 3 for timestamp, 5 + i for the kind's i-th value field. */
  slot: number;
  wire: number;
  read: (reader: Reader) => number;
}

/** One kind's decoder: fields by number, and a row reused for every record of the kind. */
interface KindDecoder {
  kind: MessageKind;
  fields: (Field | undefined)[];
  row: RecordRow;
  /** The object invalidField checks: the row's timestamp, and the row itself (values from index 5). */
  message: { timestamp: number; values: RecordRow };
}

/**
 * Decodes records straight into a row, without the message object, values array and row that
 * `decodeMessage` and a fresh RecordRow cost per record. It reads exactly what protobufjs's decoder
 * for the kind reads: a field of the wrong wire type or an unknown field is skipped, absent fields are
 * 0, the last occurrence of a field wins, and truncated or malformed bytes fail (test/relay/decoder
 * checks it against decodeMessage). The row it returns is reused: the caller copies what it keeps.
 */
export class RecordDecoder {
  private readonly kinds = new Map<number, KindDecoder>();
  private readonly reader = protobuf.Reader.create(new Uint8Array(0));

  constructor(schema: TelemetrySchema) {
    for (const kind of schema.byId.values()) {
      const fields: (Field | undefined)[] = [];
      for (const field of kind.type.fieldsArray) {
        const slot = field.name === "timestamp" ? 3 : 5 + kind.fields.indexOf(field.name);
        const scalar = SCALARS[field.type];
        if (scalar === undefined || field.repeated || field.map)
          throw new Error(`${kind.name}.${field.name}: type ${field.type} is not supported by the relay`);
        fields[field.id] = { slot, ...scalar };
      }
      const row = [0, 0, kind.name, 0, 0, ...kind.fields.map(() => 0)] as RecordRow;
      const message = { timestamp: 0, values: row };
      this.kinds.set(kind.id, { kind, fields, row, message });
    }
  }

  /**
   * The record in `bytes` from `start` to `end` as a row (reused: valid until the next call), or why
   * it was dropped: "unknown_type", "malformed" (also an empty record) or "out_of_range".
   */
  decode(
    typeId: number,
    bytes: Uint8Array,
    start: number,
    end: number,
    serial: number,
    index: number,
    receivedAt: number,
  ): RecordRow | "unknown_type" | "malformed" | "out_of_range" {
    const decoder = this.kinds.get(typeId);
    if (!decoder) return "unknown_type";
    // An empty record has no timestamp and no value: it decoded as all zeros, 1970 at 0,0.
    if (start === end) return "malformed";
    const { row, fields, message } = decoder;
    for (let i = 3; i < row.length; i++) row[i] = 0;
    const reader = this.reader;
    reader.buf = bytes;
    reader.pos = start;
    reader.len = end;
    try {
      while (reader.pos < reader.len) {
        const tag = reader.tag();
        const wire = tag & 7;
        const field = fields[tag >>> 3];
        if (field && field.wire === wire) row[field.slot] = field.read(reader);
        else reader.skipType(wire, 0, tag >>> 3);
      }
    } catch {
      return "malformed";
    }
    message.timestamp = row[3];
    if (invalidField(decoder.kind, message, 5)) return "out_of_range";
    row[0] = serial;
    row[1] = index;
    row[4] = receivedAt;
    return row;
  }
}
