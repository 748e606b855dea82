import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createRouter } from "../app";
import type { ConformanceEvent } from "../domain/conformance";
import type { AppEnv } from "../env";
import { tooManyRequests } from "../lib/errors";
import { success } from "../lib/jsend";
import { jsonBody, recordId, responses, securityWithToken } from "../lib/openapi";
import { publicOrigin } from "../lib/publicOrigin";
import { isoTime, parseTime } from "../lib/time";
import { withAccountWork } from "../middleware/accountWork";
import { requireApiKey } from "../middleware/apiKey";
import { optionalToken, requireToken } from "../middleware/token";
import { LIVE_PAGE_SCRIPTS, liveFrame, liveMap, renderLivePage } from "../pages/live";
import { mapPageSources } from "../pages/map/vectorBasemap";
import { ConformanceEvent as ConformanceEventView } from "../schemas/telemetry";
import { recordPostedStates, setFlightMonitoring } from "../services/liveFlights";
import {
  conformanceEvents,
  type KeyCaller,
  type LiveAccess,
  livePage,
  liveTicket,
  openLiveStream,
  watchedFlight,
} from "../services/liveWatch";
import {
  MAX_STREAMS_PER_ACCOUNT,
  MAX_STREAMS_PER_FLIGHT,
  MAX_STREAMS_PER_HOLDER,
  type StreamRefusal,
} from "../telemetry/liveFeed";

/**
 * Live flights: the Server-Sent Events stream of a flight's records and conformance events, its
 * conformance list, short-lived tickets for browsers, HTTP ingest of ASTM F3411 aircraft states,
 * and the live page. Readers are the flight's pilot, and anyone of the account when it is public.
 */

const flightParams = z.object({ flight_id: recordId("flight_id") });
/** What a refused stream is told to wait: streams end when their readers leave. */
const STREAM_RETRY_S = 10;
/** Why a stream was refused, and what to do. */
const STREAM_REFUSALS: Record<StreamRefusal, string> = {
  flight: `This flight already has ${MAX_STREAMS_PER_FLIGHT} streams open, the most one flight may have: close one, or retry later`,
  holder: `This ticket already has ${MAX_STREAMS_PER_HOLDER} streams open, the most one ticket may have: close one, or open it with another ticket`,
  account: `This account already has ${MAX_STREAMS_PER_ACCOUNT} live streams open across its flights, the most one account may have: close some, or retry later`,
};
/** At most this many states in one post: each becomes two records, well under the 1 MiB body limit. */
const MAX_STATES = 1000;

const ticketQuery = z.object({
  ticket: z
    .string()
    .max(1000)
    .optional()
    .openapi({ description: "A ticket from POST /flight/v2/{id}/ticket" }),
});

const streamRoute = createRoute({
  method: "get",
  path: "/flight/v2/{flight_id}/telemetry/stream",
  tags: ["Live"],
  summary:
    "Server-Sent Events: `record` (as GET …/telemetry returns it) and `conformance`; `Last-Event-ID` resumes",
  description:
    "Authenticate with X-API-Key (and the pilot's bearer token for a private flight), or with `?ticket=` from a browser. Without Last-Event-ID only new events follow; with it (or `?last_event_id=`), every later event still kept comes first.",
  security: securityWithToken,
  request: {
    params: flightParams,
    query: ticketQuery.extend({
      last_event_id: z
        .string()
        .regex(/^\d{1,15}$/)
        .optional()
        .openapi({
          description: "Resume after this event id when the client cannot send the Last-Event-ID header",
        }),
    }),
  },
  responses: {
    ...responses(z.null(), "unused"),
    200: {
      content: { "text/event-stream": { schema: z.string() } },
      description: "`id: <n>`, `event: record|conformance`, `data: <JSON>` per event",
    },
  },
});

const ticketRoute = createRoute({
  method: "post",
  path: "/flight/v2/{flight_id}/ticket",
  tags: ["Live"],
  summary:
    "A ticket (valid 5 minutes) that opens the flight's stream, live page or briefing page from a browser",
  security: securityWithToken,
  middleware: [optionalToken] as const,
  request: { params: flightParams },
  responses: responses(
    z.object({
      ticket: z.string(),
      expires_at: z.string(),
      stream_url: z.string(),
      live_url: z.string(),
      briefing_url: z.string().openapi({ description: "The flight's briefing as a page (HTML)" }),
    }),
    "The ticket and the URLs that carry it",
  ),
});

const conformanceRoute = createRoute({
  method: "get",
  path: "/flight/v2/{flight_id}/conformance",
  tags: ["Live"],
  summary:
    "The flight's conformance events (area, time window, ceiling above ground, telemetry gaps), oldest first",
  security: securityWithToken,
  middleware: [optionalToken] as const,
  request: { params: flightParams },
  responses: responses(z.object({ results: z.array(ConformanceEventView) }), "The events"),
});

/** ASTM F3411-22a RIDAircraftState: the fields this service reads. */
const RidState = z.object({
  timestamp: z.object({
    value: z.string().refine((v) => parseTime(v) !== undefined, "RFC 3339 with an offset or Z"),
    format: z.literal("RFC3339"),
  }),
  position: z.object({
    lat: z.number().min(-90).max(90),
    lng: z.number().min(-180).max(180),
    alt: z
      .number()
      .min(-999, "-1000 is the standard's unknown altitude, which cannot be monitored")
      .max(100_000)
      .openapi({ description: "WGS84 ellipsoid height, meters; -1000 (unknown) is refused" }),
    accuracy_h: z.string().optional(),
    height: z.object({ distance: z.number(), reference: z.string() }).optional(),
  }),
  track: z
    .number()
    .min(-360)
    .max(361)
    .openapi({ description: "degrees clockwise from true north; 361 unknown" }),
  speed: z.number().min(0).max(255).openapi({ description: "m/s over ground; 255 unknown" }),
  vertical_speed: z.number().min(-63).max(63).openapi({ description: "m/s, up positive; 63 unknown" }),
});

const ingestRoute = createRoute({
  method: "post",
  path: "/flight/v2/{flight_id}/telemetry",
  tags: ["Live"],
  summary:
    "Send telemetry over HTTP: ASTM F3411-22a RIDAircraftState objects, stored as Position and Speed records",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: {
    params: flightParams,
    body: {
      content: {
        "application/json": { schema: z.object({ states: z.array(RidState).min(1).max(MAX_STATES) }) },
      },
      required: true,
    },
  },
  responses: responses(z.object({ stored: z.number(), duplicates: z.number() }), "Records stored"),
});

const monitoringRoute = createRoute({
  method: "post",
  path: "/dev/v1/flights/{flight_id}/monitoring",
  hide: true,
  request: {
    params: flightParams,
    body: jsonBody(z.object({ enabled: z.boolean() })),
  },
  responses: responses(z.object({ enabled: z.boolean() }), "Monitoring switched (development only)"),
});

const livePageRoute = createRoute({
  method: "get",
  path: "/flight/v2/{flight_id}/live",
  tags: ["Live"],
  summary:
    "The live flight page (HTML): area, growing track, height above ground against the ceiling, events",
  security: securityWithToken,
  request: { params: flightParams, query: ticketQuery },
  responses: {
    ...responses(z.null(), "unused"),
    200: { content: { "text/html": { schema: z.string() } }, description: "The page" },
  },
});

export const liveRoutes = createRouter()
  .openapi(streamRoute, async (c) => {
    const access = await accessOf(c);
    const header = c.req.header("last-event-id") ?? c.req.valid("query").last_event_id;
    const after = header !== undefined && /^\d{1,15}$/.test(header.trim()) ? Number(header.trim()) : null;
    const { opened, pilotId } = await openLiveStream(
      c.env,
      c.var.db,
      c.req.valid("param").flight_id,
      access,
      after,
    );
    c.set("pilotId", pilotId);
    if ("refused" in opened) throw tooManyRequests(STREAM_REFUSALS[opened.refused], STREAM_RETRY_S);
    return new Response(opened.stream as ReadableStream<Uint8Array>, {
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-store",
        "X-Accel-Buffering": "no",
      },
    }) as never;
  })
  .openapi(ticketRoute, async (c) => {
    const { flight, ticket, exp } = await liveTicket(
      c.env,
      c.var.db,
      keyCaller(c),
      c.req.valid("param").flight_id,
    );
    const base = publicOrigin(c);
    const id = encodeURIComponent(flight.id);
    return success(c, {
      ticket,
      expires_at: isoTime(exp * 1000),
      stream_url: `${base}/flight/v2/${id}/telemetry/stream?ticket=${ticket}`,
      live_url: `${base}/flight/v2/${id}/live?ticket=${ticket}`,
      briefing_url: `${base}/flight/v2/${id}/briefing?ticket=${ticket}`,
    });
  })
  .openapi(conformanceRoute, async (c) => {
    const flightId = c.req.valid("param").flight_id;
    const results = (await conformanceEvents(c.env, c.var.db, keyCaller(c), flightId)) as ConformanceEvent[];
    return success(c, { results });
  })
  .openapi(ingestRoute, async (c) => {
    const caller = { accountId: c.var.account.id, pilotId: c.var.pilotId };
    const flightId = c.req.valid("param").flight_id;
    return success(
      c,
      await recordPostedStates(c.env, c.var.db, caller, flightId, c.req.valid("json").states),
    );
  })
  .openapi(monitoringRoute, async (c) => {
    const { enabled } = c.req.valid("json");
    await setFlightMonitoring(c.env, c.var.db, c.var.account.id, c.req.valid("param").flight_id, enabled);
    return success(c, { enabled });
  })
  .openapi(livePageRoute, async (c) => {
    const access = await accessOf(c);
    const source = {
      bucket: c.env.ELEVATION,
      waitUntil: (p: Promise<unknown>) => c.executionCtx.waitUntil(p),
    };
    const flightId = c.req.valid("param").flight_id;
    const page = await livePage(c.env, c.var.db, source, flightId, access, liveFrame);
    c.set("pilotId", page.pilotId);
    const { flight, state, terrain, map } = page;
    const sources = await mapPageSources(map.vectorBasemap === true, LIVE_PAGE_SCRIPTS);
    c.header(
      "Content-Security-Policy",
      `default-src 'none'; script-src ${sources.script}; style-src ${sources.style}; connect-src ${sources.connect}${trafficOrigin(c.env.TRAFFIC_WS_URL)}; worker-src ${sources.worker}; img-src ${page.imageSources}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
    );
    c.header("Referrer-Policy", "no-referrer");
    c.header("Cache-Control", "no-store");
    // Opened by a ticket, the terrain and the render run in the flight's account's share of expensive work.
    const html = await withAccountWork(c.env, flight.accountId, async () =>
      renderLivePage({
        flightId: flight.id,
        area: flight.geometry,
        ceiling: flight.maxAltitude > 0 ? flight.maxAltitude : null,
        startTime: isoTime(flight.startTime),
        endTime: isoTime(flight.endTime),
        state,
        ticket: page.ticket,
        terrain,
        map: liveMap(flight.geometry, map),
        trafficUrl: c.env.TRAFFIC_WS_URL ?? null,
      }),
    );
    return c.html(html, 200) as never;
  });

/** The traffic broker's WebSocket origin, which the live page's nearby-traffic script connects to. */
function trafficOrigin(url: string | undefined): string {
  if (!url) return "";
  try {
    const { protocol, host } = new URL(url);
    return ` ${protocol}//${host}`;
  } catch {
    return "";
  }
}

/** The caller the API-key middleware let in. */
function keyCaller(c: Context<AppEnv>): KeyCaller {
  const { account } = c.var;
  return {
    accountId: account.id,
    keyId: account.keyId,
    pilotId: c.var.pilotId,
    tokenExpiresAt: c.var.tokenExpiresAt,
  };
}

/**
 * The stream and the pages sit outside the API-key middleware (index.ts): a browser presents a
 * ticket in the URL; any other client the API key (and the pilot's token) as everywhere.
 */
async function accessOf(c: Context<AppEnv>): Promise<LiveAccess> {
  const ticket = c.req.query("ticket");
  if (ticket !== undefined) return { ticket };
  await requireApiKey(c, async () => {});
  await optionalToken(c, async () => {});
  return { caller: keyCaller(c) };
}

/** The flight a page may show, as the live page reads it: same ticket, same readers. */
export async function watcher(c: Context<AppEnv>, flightId: string) {
  const watched = await watchedFlight(c.env, c.var.db, flightId, await accessOf(c));
  c.set("pilotId", watched.pilotId);
  return watched;
}
