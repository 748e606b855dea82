import { createRoute, z } from "@hono/zod-openapi";
import { IngestRequest, IngestResult, PackedIngestRequest, RelaySession } from "../../proto/ingest";
import { PACKED_BATCH_TYPE, PackedBatchError, unpackBatch } from "../../proto/packedBatch";
import { RECORD_TYPES, recordKinds } from "../../proto/records";
import { createRouter, validationError } from "../app";
import { decodeCursor, encodeCursor } from "../lib/cursor";
import { badRequest } from "../lib/errors";
import { toBase64 } from "../lib/hash";
import { success } from "../lib/jsend";
import { recordId, responses, securityWithToken } from "../lib/openapi";
import { isoTime } from "../lib/time";
import { ownFlight, pilotsFlight } from "../middleware/ownFlight";
import { requireRelayCredential } from "../middleware/relayCredential";
import { requireToken } from "../middleware/token";
import { TelemetryPage } from "../schemas/telemetry";
import {
  closeTelemetry,
  ingestTelemetry,
  openSessionKey,
  openTelemetrySession,
} from "../services/telemetrySessions";
import { type TelemetryQuery, telemetryOf } from "../telemetry/flightTelemetry";

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
    const key = await openTelemetrySession(c.env, c.var.db, c.var.flight, Date.now());
    return success(c, { key: toBase64(key) });
  })
  .openapi(endComm, async (c) => {
    await closeTelemetry(c.env, c.var.db, c.var.flight.id, Date.now());
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
    const { session, key } = await openSessionKey(c.env, c.var.db, c.req.valid("param").flight_id);
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
    return success(c, await ingestTelemetry(c.env, c.var.db, posted));
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
