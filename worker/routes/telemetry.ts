import { createRoute, z } from "@hono/zod-openapi";
import {
  datagramIdentity,
  IngestRequest,
  IngestResult,
  PackedIngestRequest,
  RelaySession,
} from "../../proto/ingest";
import { PACKED_BATCH_TYPE, PackedBatchError, unpackBatch } from "../../proto/packedBatch";
import { namedFields, RECORD_TYPES, recordKinds } from "../../proto/records";
import { recordTimeProblem, type TimeProblem } from "../../proto/recordTime";
import { createRouter, validationError } from "../app";
import { flightState } from "../domain/flightState";
import { decodeCursor, encodeCursor } from "../lib/cursor";
import { badRequest, conflict, notFound } from "../lib/errors";
import { toBase64 } from "../lib/hash";
import { newId } from "../lib/ids";
import { success } from "../lib/jsend";
import { recordId, responses, securityWithToken } from "../lib/openapi";
import { isoTime } from "../lib/time";
import { ownFlight, pilotsFlight } from "../middleware/ownFlight";
import { requireRelayCredential } from "../middleware/relayCredential";
import { requireToken } from "../middleware/token";
import { TelemetryPage } from "../schemas/telemetry";
import { closeLiveIsa } from "../services/liveIsa";
import { closeSessions, findOpenSession, findSessions, openSession } from "../store/telemetrySessions";
import { type TelemetryQuery, type TelemetryRecord, telemetryOf } from "../telemetry/flightTelemetry";
import { newSessionKey, sealKey, unsealKey } from "../telemetry/sessionKeys";

const MAX_PAGE = 10_000;
const DEFAULT_PAGE = 1000;

const flightParams = z.object({ flight_id: recordId("flight_id") });
const TYPE_NAMES = RECORD_TYPES;

const startComm = createRoute({
  method: "post",
  path: "/flight/v2/{flight_id}/start-comm",
  tags: ["Telemetry"],
  summary:
    "Open a telemetry session with a fresh AES-256 key (closes the previous one); serials restart at 1",
  security: securityWithToken,
  middleware: [requireToken, ownFlight] as const,
  request: { params: flightParams },
  responses: responses(z.object({ key: z.string() }), "`key`: base64 of the session's 32-byte AES key"),
});

const endComm = createRoute({
  method: "post",
  path: "/flight/v2/{flight_id}/end-comm",
  tags: ["Telemetry"],
  summary: "Close the open telemetry session (also 200 when none is open)",
  security: securityWithToken,
  middleware: [requireToken, ownFlight] as const,
  request: { params: flightParams },
  responses: responses(z.null(), "Closed"),
});

const TelemetryReadQuery = z.object({
  since: z
    .string()
    .regex(/^\d{1,15}$/, "milliseconds since the epoch")
    .transform(Number)
    .optional()
    .openapi({ description: "Only records with timestamp ≥ since (UNIX ms)" }),
  types: z
    .string()
    .optional()
    .openapi({ description: `Comma-separated record types: ${TYPE_NAMES.join(", ")}` }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE)
    .optional()
    .openapi({ description: `1..${MAX_PAGE}, default ${DEFAULT_PAGE}` }),
  cursor: z.string().optional().openapi({ description: "The previous page's `paging.next`" }),
});

const readTelemetry = createRoute({
  method: "get",
  path: "/flight/v2/{flight_id}/telemetry",
  tags: ["Telemetry"],
  summary: "The flight's stored telemetry, ordered by timestamp (the flight's pilot only)",
  security: securityWithToken,
  middleware: [requireToken, pilotsFlight("its telemetry")] as const,
  request: { params: flightParams, query: TelemetryReadQuery },
  responses: responses(TelemetryPage, "A page of records"),
});

const relaySession = createRoute({
  method: "get",
  path: "/internal/v1/flights/{flight_id}/session",
  hide: true,
  middleware: [requireRelayCredential] as const,
  request: { params: z.object({ flight_id: z.string().min(1).max(255) }) },
  responses: responses(RelaySession, "The flight's open session"),
});

const ingest = createRoute({
  method: "post",
  path: "/internal/v1/telemetry",
  hide: true,
  middleware: [requireRelayCredential] as const,
  request: {
    // Either: JSON, or the relay's packed batch (proto/packedBatch.ts), unpacked and validated alike.
    body: {
      content: {
        "application/json": { schema: IngestRequest },
        [PACKED_BATCH_TYPE]: { schema: z.string().openapi({ format: "binary" }) },
      },
      required: false,
    },
  },
  responses: responses(
    IngestResult,
    "What was stored; records of unknown or already closed sessions are refused",
  ),
});

export const telemetryRoutes = createRouter()
  .openapi(startComm, async (c) => {
    const now = Date.now();
    const { flight } = c.var;
    if (flightState(flight, now) === "ended")
      throw conflict("This flight has ended; start-comm needs a flight that is not over");
    const sessionId = newId("session");
    const key = newSessionKey();
    await openSession(c.var.db, {
      id: sessionId,
      flightId: flight.id,
      sealedKey: await sealKey(c.env.TELEMETRY_MASTER_KEY, sessionId, key),
      openedAt: now,
      closedAt: null,
    });
    return success(c, { key: toBase64(key) });
  })
  .openapi(endComm, async (c) => {
    const { flight } = c.var;
    await closeSessions(c.var.db, flight.id, Date.now());
    await closeLiveIsa(c.env, flight.id);
    return success(c, null);
  })
  .openapi(readTelemetry, async (c) => {
    const q = c.req.valid("query");
    const { flight } = c.var;
    const query: TelemetryQuery = {
      since: q.since ?? 0,
      types: q.types === undefined ? undefined : parseTypes(q.types),
      limit: q.limit ?? DEFAULT_PAGE,
      after:
        q.cursor === undefined
          ? undefined
          : decodeCursor(q.cursor, ([timestamp, id]) =>
              Number.isSafeInteger(timestamp) && Number.isSafeInteger(id)
                ? { timestamp: timestamp as number, id: id as number }
                : undefined,
            ),
    };
    const page = await telemetryOf(c.env, flight.id).read(query);
    const last = page.records.at(-1);
    return success(c, {
      results: page.records.map(({ type, timestamp, serial, receivedAt, fields }) => ({
        type,
        timestamp,
        serial,
        received_at: isoTime(receivedAt),
        ...fields,
      })),
      paging: {
        limit: query.limit,
        next: page.more && last ? encodeCursor([last.timestamp, last.id]) : null,
      },
    });
  })
  .openapi(relaySession, async (c) => {
    const session = await findOpenSession(c.var.db, c.req.valid("param").flight_id);
    if (!session) throw notFound("Open telemetry session");
    const key = await unsealKey(c.env.TELEMETRY_MASTER_KEY, session.id, session.sealedKey);
    return success(c, { session_id: session.id, key: toBase64(key), opened_at: session.openedAt });
  })
  .openapi(ingest, async (c) => {
    const json = c.req.valid("json");
    const posted = c.req.header("content-type")?.startsWith(PACKED_BATCH_TYPE)
      ? unpackedSessions(new Uint8Array(await c.req.arrayBuffer()))
      : typeof json === "object"
        ? json.sessions
        : undefined;
    if (!posted) throw badRequest("body", "post {sessions: […]} as JSON, or a packed batch");
    const known = await findSessions(c.var.db, [...new Set(posted.map((p) => p.session_id))]);
    const now = Date.now();
    const byFlight = new Map<string, TelemetryRecord[]>();
    const refused: IngestResult["refused"] = [];
    for (const { flight_id, session_id, records, datagrams } of posted) {
      const session = known.get(session_id);
      if (!session || session.flightId !== flight_id) {
        refused.push({ session_id, reason: "unknown_session", records: records.length });
        continue;
      }
      const list = byFlight.get(flight_id) ?? [];
      byFlight.set(flight_id, list);
      let late = 0;
      const implausible: Record<TimeProblem, number> = { before_session: 0, in_future: 0 };
      // An indexed loop reading the rows in place: destructuring each into a fresh values array cost
      // a third of this loop's time per record.
      for (let i = 0; i < records.length; i++) {
        const row = records[i]!;
        const serial = row[0];
        const index = row[1];
        const type = row[2];
        const timestamp = row[3];
        const receivedAt = row[4];
        // Received after its session closed: refused, as the relay's key cache may lag end-comm.
        if (session.closedAt !== null && receivedAt > session.closedAt) {
          late++;
          continue;
        }
        const problem = recordTimeProblem(timestamp, session.openedAt, now);
        if (problem) {
          implausible[problem]++;
          continue;
        }
        const fields = namedFields(recordKinds.byName.get(type)!, row, 5);
        const datagram = datagramIdentity(datagrams, i, serial);
        list.push({ sessionId: session_id, datagram, serial, index, type, timestamp, receivedAt, fields });
      }
      if (late > 0) refused.push({ session_id, reason: "session_closed", records: late });
      for (const [reason, count] of Object.entries(implausible))
        if (count > 0) refused.push({ session_id, reason, records: count });
    }
    const results = await Promise.all(
      [...byFlight]
        .filter(([, list]) => list.length > 0)
        .map(([flightId, list]) => telemetryOf(c.env, flightId).ingest(list)),
    );
    return success(c, {
      stored: results.reduce((sum, r) => sum + r.stored, 0),
      duplicates: results.reduce((sum, r) => sum + r.duplicates, 0),
      refused,
    });
  });

/** A packed batch's sessions, held to the same rules as a JSON post's (PackedIngestRequest). */
function unpackedSessions(bytes: Uint8Array): IngestRequest["sessions"] {
  let sessions: unknown;
  try {
    sessions = unpackBatch(bytes);
  } catch (err) {
    if (err instanceof PackedBatchError) throw badRequest("body", err.message);
    throw err;
  }
  const checked = PackedIngestRequest.safeParse({ sessions });
  if (!checked.success) throw validationError(checked.error.issues);
  return checked.data.sessions;
}

function parseTypes(text: string): string[] {
  const types = [...new Set(text.split(",").map((t) => t.trim()))];
  const unknown = types.find((t) => !recordKinds.byName.has(t));
  if (unknown !== undefined)
    throw badRequest("types", `unknown type "${unknown}"; use ${TYPE_NAMES.join(", ")}`);
  return types;
}
