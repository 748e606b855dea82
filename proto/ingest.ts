import { z } from "zod";
import { invalidField, RECORD_TYPES, recordKinds } from "./records";

/**
 * The worker's internal API for the relay (/internal/v1, behind the relay credential): the flight's
 * session key, then posts of decoded records. The worker validates with these schemas; the relay only
 * imports their types (so it never loads zod).
 */

/** GET /internal/v1/flights/{flight_id}/session: the flight's open session (404 when none). */
export const RelaySession = z.object({
  session_id: z.string(),
  key: z.string().describe("base64 of the session's 32-byte AES key"),
  opened_at: z.number().optional().describe("when start-comm opened the session, ms since the epoch"),
});
export type RelaySession = z.infer<typeof RelaySession>;

/** Records a post holds at most (well under the worker's 1 MiB body limit). */
export const MAX_INGEST_RECORDS = 2000;

/**
 * A record as the relay posts it: [serial, index in the datagram, type, timestamp, received_at,
 * ...the values of the type's fields in records.ts order]. Rows keep the posts small.
 */
export const IngestRow = z.tuple(
  [
    z.number().int().min(0).max(0xffffffff),
    z.number().int().min(0).max(0xffff),
    z.enum(RECORD_TYPES),
    z.number(),
    z.number().int().min(0),
  ],
  z.number(),
);
export type RecordRow = z.infer<typeof IngestRow>;

/** One session's records of a post. */
export const SessionRecords = z.object({
  flight_id: z.string().min(1).max(255),
  session_id: z.string().min(1).max(64),
  records: z.array(IngestRow).min(1),
  /**
   * Per row, the identity of its datagram: base64 of 16 bytes of a keyed hash over its IV and
   * ciphertext (relay/datagramIdentity.ts), so a tampered copy is another datagram (the serial is outside the ciphertext and proves nothing).
   * A record is stored once per (session, datagram, index). Absent in posts of older relays (and in
   * their spooled batches): then the serial stands in.
   */
  datagrams: z.array(z.string().min(1).max(64)).optional(),
});
export type SessionRecords = z.infer<typeof SessionRecords>;

/** What every post's sessions must hold beyond each row's shape: rows in range, one identity each, a bounded total. */
function checkSessions(sessions: SessionRecords[], ctx: z.RefinementCtx): void {
  let total = 0;
  sessions.forEach((session, s) => {
    total += session.records.length;
    if (session.datagrams && session.datagrams.length !== session.records.length)
      ctx.addIssue({ code: "custom", path: [s, "datagrams"], message: "one per record" });
    const { records } = session;
    for (let r = 0; r < records.length; r++) {
      // The row's values are read in place (from index 5), not copied out per record.
      const row = records[r]!;
      const type = row[2];
      const kind = recordKinds.byName.get(type)!;
      const field = invalidField(kind, { timestamp: row[3], values: row }, 5);
      if (field) {
        ctx.addIssue({
          code: "custom",
          path: [s, "records", r, field],
          message: "missing or out of range",
        });
      } else if (row.length - 5 !== kind.fields.length) {
        const message = `a ${type} row holds serial, index, type, timestamp, received_at, ${kind.fields.join(", ")}`;
        ctx.addIssue({ code: "custom", path: [s, "records", r], message });
      }
    }
  });
  if (total > MAX_INGEST_RECORDS)
    ctx.addIssue({ code: "custom", message: `at most ${MAX_INGEST_RECORDS} records a post` });
}

/** POST /internal/v1/telemetry: rows grouped by session, each row whole and in range. */
export const IngestRequest = z.object({ sessions: z.array(SessionRecords).superRefine(checkSessions) });
export type IngestRequest = z.infer<typeof IngestRequest>;

/**
 * The sessions of a packed batch (proto/packedBatch.ts): its format already makes each row an
 * IngestRow (typed fields, the type's count of values, a whole received_at), so rows are not
 * parsed one element at a time again (that cost 2 ms a thousand rows); everything else is checked
 * as for a JSON post.
 */
export const PackedIngestRequest = z.object({
  sessions: z
    .array(SessionRecords.extend({ records: z.array(z.custom<RecordRow>()).min(1) }))
    .superRefine(checkSessions),
});

/** What a post stored; records of unknown or already closed sessions are refused, by session. */
export const IngestResult = z.object({
  stored: z.number(),
  duplicates: z.number(),
  refused: z.array(
    z.object({
      session_id: z.string(),
      reason: z
        .string()
        .describe(
          "unknown_session, session_closed, or a record time outside the session's window (proto/recordTime.ts): before_session, in_future",
        ),
      records: z.number(),
    }),
  ),
});
export type IngestResult = z.infer<typeof IngestResult>;

/** The identity a row's datagram is stored under: the posted one, or `#<serial>` for older relays. */
export function datagramIdentity(datagrams: string[] | undefined, i: number, serial: number): string {
  return datagrams?.[i] ?? `#${serial}`;
}
