import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { flightState } from "../domain/flightState";
import { invalidField } from "../domain/telemetryMessages";
import type { Bindings } from "../env";
import { badRequest, conflict, forbidden, notFound } from "../lib/errors";
import { base64url, fromBase64url } from "../lib/hash";
import { newId } from "../lib/ids";
import { success } from "../lib/jsend";
import { recordId, responses, securityWithToken } from "../lib/openapi";
import { isoTime } from "../lib/time";
import { requireRelayCredential } from "../middleware/relayCredential";
import { requireToken } from "../middleware/token";
import { findFlight } from "../store/flights";
import { closeSessions, findOpenSession, findSessions, openSession } from "../store/telemetrySessions";
import type { TelemetryQuery, TelemetryRecord } from "../telemetry/flightTelemetry";
import { telemetrySchema } from "../telemetry/messages";
import { newSessionKey, sealKey, toBase64, unsealKey } from "../telemetry/sessionKeys";
import { ownFlight } from "./flights";

const MAX_PAGE = 10_000;
const DEFAULT_PAGE = 1000;
/** The relay posts at most this many records at once (well under the 1 MiB body limit). */
const MAX_INGEST_RECORDS = 2000;

const flightParams = z.object({ flight_id: recordId("flight_id") });
const TYPE_NAMES = [...telemetrySchema.byName.keys()];

const startComm = createRoute({
  method: "post",
  path: "/flight/v2/{flight_id}/start-comm",
  tags: ["Telemetry"],
  summary:
    "Open a telemetry session with a fresh AES-256 key (closes the previous one); serials restart at 1",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { params: flightParams },
  responses: responses(z.object({ key: z.string() }), "`key`: base64 of the session's 32-byte AES key"),
});

const endComm = createRoute({
  method: "post",
  path: "/flight/v2/{flight_id}/end-comm",
  tags: ["Telemetry"],
  summary: "Close the open telemetry session (also 200 when none is open)",
  security: securityWithToken,
  middleware: [requireToken] as const,
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

const TelemetryRecordView = z
  .looseObject({ type: z.string(), timestamp: z.number(), serial: z.number(), received_at: z.string() })
  .openapi("TelemetryRecord", { description: "Plus the message's fields (numbers), named as in the proto" });

const readTelemetry = createRoute({
  method: "get",
  path: "/flight/v2/{flight_id}/telemetry",
  tags: ["Telemetry"],
  summary: "The flight's stored telemetry, ordered by timestamp (the flight's pilot only)",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { params: flightParams, query: TelemetryReadQuery },
  responses: responses(
    z.object({
      results: z.array(TelemetryRecordView),
      paging: z.object({ limit: z.number(), next: z.string().nullable() }),
    }),
    "A page of records",
  ),
});

const relaySession = createRoute({
  method: "get",
  path: "/internal/v1/flights/{flight_id}/session",
  hide: true,
  middleware: [requireRelayCredential] as const,
  request: { params: z.object({ flight_id: z.string().min(1).max(255) }) },
  responses: responses(z.object({ session_id: z.string(), key: z.string() }), "The flight's open session"),
});

const IngestRecord = z.object({
  flight_id: z.string().min(1).max(255),
  session_id: z.string().min(1).max(64),
  serial: z.number().int().min(0).max(0xffffffff),
  index: z.number().int().min(0).max(0xffff),
  type: z.enum(TYPE_NAMES as [string, ...string[]]),
  timestamp: z.number(),
  received_at: z.number().int().min(0),
  fields: z.record(z.string(), z.number()),
});

const IngestBody = z.object({
  records: z
    .array(IngestRecord)
    .max(MAX_INGEST_RECORDS)
    .superRefine((records, ctx) => {
      records.forEach((record, i) => {
        const field = invalidField(telemetrySchema.byName.get(record.type)!, record);
        if (field) ctx.addIssue({ code: "custom", path: [i, field], message: "missing or out of range" });
      });
    }),
});

const ingest = createRoute({
  method: "post",
  path: "/internal/v1/telemetry",
  hide: true,
  middleware: [requireRelayCredential] as const,
  request: { body: { content: { "application/json": { schema: IngestBody } }, required: true } },
  responses: responses(
    z.object({
      stored: z.number(),
      duplicates: z.number(),
      refused: z.array(z.object({ session_id: z.string(), reason: z.string(), records: z.number() })),
    }),
    "What was stored; records of unknown or already closed sessions are refused",
  ),
});

type Refusal = "unknown_session" | "session_closed";

export const telemetryRoutes = createRouter()
  .openapi(startComm, async (c) => {
    const now = Date.now();
    const flight = await ownFlight(c, c.req.valid("param").flight_id);
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
    const flight = await ownFlight(c, c.req.valid("param").flight_id);
    await closeSessions(c.var.db, flight.id, Date.now());
    return success(c, null);
  })
  .openapi(readTelemetry, async (c) => {
    const { flight_id: flightId } = c.req.valid("param");
    const q = c.req.valid("query");
    const flight = await findFlight(c.var.db, c.var.account.id, flightId);
    if (!flight || (!flight.public && flight.pilotId !== c.var.pilotId)) throw notFound("Flight");
    if (flight.pilotId !== c.var.pilotId) throw forbidden("Only the flight's pilot may read its telemetry");
    const query: TelemetryQuery = {
      since: q.since ?? 0,
      types: q.types === undefined ? undefined : parseTypes(q.types),
      limit: q.limit ?? DEFAULT_PAGE,
      after: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
    };
    const page = await flightTelemetry(c.env, flight.id).read(query);
    const last = page.records.at(-1);
    return success(c, {
      results: page.records.map(({ type, timestamp, serial, receivedAt, fields }) => ({
        type,
        timestamp,
        serial,
        received_at: isoTime(receivedAt),
        ...fields,
      })),
      paging: { limit: query.limit, next: page.more && last ? encodeCursor(last) : null },
    });
  })
  .openapi(relaySession, async (c) => {
    const session = await findOpenSession(c.var.db, c.req.valid("param").flight_id);
    if (!session) throw notFound("Open telemetry session");
    const key = await unsealKey(c.env.TELEMETRY_MASTER_KEY, session.id, session.sealedKey);
    return success(c, { session_id: session.id, key: toBase64(key) });
  })
  .openapi(ingest, async (c) => {
    const { records } = c.req.valid("json");
    const sessions = await findSessions(c.var.db, [...new Set(records.map((r) => r.session_id))]);
    const byFlight = new Map<string, TelemetryRecord[]>();
    const refused = new Map<string, { reason: Refusal; records: number }>();
    for (const r of records) {
      const session = sessions.get(r.session_id);
      // A record received after its session closed is refused: the relay's key cache may lag end-comm.
      const reason: Refusal | undefined =
        !session || session.flightId !== r.flight_id
          ? "unknown_session"
          : session.closedAt !== null && r.received_at > session.closedAt
            ? "session_closed"
            : undefined;
      if (reason) {
        const entry = refused.get(r.session_id) ?? { reason, records: 0 };
        entry.records++;
        refused.set(r.session_id, entry);
        continue;
      }
      const list = byFlight.get(r.flight_id) ?? [];
      list.push({
        sessionId: r.session_id,
        serial: r.serial,
        index: r.index,
        type: r.type,
        timestamp: r.timestamp,
        receivedAt: r.received_at,
        fields: r.fields,
      });
      byFlight.set(r.flight_id, list);
    }
    const results = await Promise.all(
      [...byFlight].map(([flightId, list]) => flightTelemetry(c.env, flightId).ingest(list)),
    );
    return success(c, {
      stored: results.reduce((sum, r) => sum + r.stored, 0),
      duplicates: results.reduce((sum, r) => sum + r.duplicates, 0),
      refused: [...refused].map(([session_id, entry]) => ({ session_id, ...entry })),
    });
  });

function flightTelemetry(env: Bindings, flightId: string) {
  return env.FLIGHT_TELEMETRY.get(env.FLIGHT_TELEMETRY.idFromName(flightId));
}

function parseTypes(text: string): string[] {
  const types = [...new Set(text.split(",").map((t) => t.trim()))];
  const unknown = types.find((t) => !telemetrySchema.byName.has(t));
  if (unknown !== undefined)
    throw badRequest("types", `unknown type "${unknown}"; use ${TYPE_NAMES.join(", ")}`);
  return types;
}

function encodeCursor(record: { timestamp: number; id: number }): string {
  return base64url(new TextEncoder().encode(JSON.stringify([record.timestamp, record.id])));
}

function decodeCursor(cursor: string): TelemetryQuery["after"] {
  try {
    const [timestamp, id] = JSON.parse(new TextDecoder().decode(fromBase64url(cursor)));
    if (Number.isSafeInteger(timestamp) && Number.isSafeInteger(id)) return { timestamp, id };
  } catch {
    // falls through to the 400 below
  }
  throw badRequest("cursor", "not a cursor of this listing; pass paging.next unchanged");
}
