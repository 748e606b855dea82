import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { recordTimeProblem, timeWindowText } from "../../proto/recordTime";
import { createRouter } from "../app";
import type { ConformanceEvent } from "../domain/conformance";
import { sampleElevations } from "../domain/elevation/sampling";
import { flightState } from "../domain/flightState";
import { ellipsoidToEgm96 } from "../domain/geoid";
import { bboxOf, type Polygon } from "../domain/geojson";
import type { AppEnv } from "../env";
import { ApiError, badRequest, forbidden, notFound, tooManyRequests, unauthorized } from "../lib/errors";
import { newId } from "../lib/ids";
import { success } from "../lib/jsend";
import { jsonBody, recordId, responses, securityWithToken } from "../lib/openapi";
import { isoTime, parseTime } from "../lib/time";
import { withAccountWork } from "../middleware/accountWork";
import { requireApiKey } from "../middleware/apiKey";
import { takeAccountPageRequest } from "../middleware/publicRateLimit";
import { optionalToken, requireToken } from "../middleware/token";
import { liveFrame, liveMap, renderLivePage, type TerrainGrid } from "../pages/live";
import { mapPageSources } from "../pages/map/vectorBasemap";
import { ConformanceEvent as ConformanceEventView } from "../schemas/telemetry";
import { basemapConfig } from "../services/basemap";
import { keyStillLive } from "../services/liveAccess";
import { mapBasemap, mapImageSources, mapTerrain } from "../services/mapTerrain";
import { chunkLoader, coverage } from "../store/elevationTiles";
import { type FlightRow, findFlight } from "../store/flights";
import { type MapContext, mapContext } from "../store/mapContext";
import { type TelemetryRecord, telemetryOf } from "../telemetry/flightTelemetry";
import {
  MAX_STREAMS_PER_ACCOUNT,
  MAX_STREAMS_PER_FLIGHT,
  MAX_STREAMS_PER_HOLDER,
  type StreamRefusal,
} from "../telemetry/liveFeed";
import { issueTicket, TICKET_LIFETIME_SECONDS, verifyTicket } from "../telemetry/tickets";

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

/** ASTM accuracy_h codes as meters (the bound of each class); unknown as 0. */
const HORIZONTAL_ACCURACY: Record<string, number> = {
  HA10NMPlus: 18_520,
  HA10NM: 18_520,
  HA4NM: 7408,
  HA2NM: 3704,
  HA1NM: 1852,
  HA05NM: 926,
  HA03NM: 555.6,
  HA01NM: 185.2,
  HA005NM: 92.6,
  HA30m: 30,
  HA10m: 10,
  HA3m: 3,
  HA1m: 1,
};

export const liveRoutes = createRouter()
  .openapi(streamRoute, async (c) => {
    const { flight, ticket, binding } = await watcher(c, c.req.valid("param").flight_id);
    const header = c.req.header("last-event-id") ?? c.req.valid("query").last_event_id;
    const after = header !== undefined && /^\d{1,15}$/.test(header.trim()) ? Number(header.trim()) : null;
    // A ticket by its signature; API-key readers are capped per flight and account only.
    const holder = ticket ? ticket.slice(ticket.lastIndexOf(".") + 1) : "";
    // The Durable Object's own stream, untouched: a reader who leaves frees its place at once, and
    // the object ends the stream when its key is revoked or its token expires (telemetry/liveFeed.ts).
    const opened = await telemetryOf(c.env, flight.id).stream(after, {
      accountId: flight.accountId,
      holder,
      ...binding,
    });
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
    const flight = await readableFlight(c, c.req.valid("param").flight_id);
    const { ticket, exp } = await ticketFor(c, flight);
    const base = new URL(c.req.url).origin;
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
    const flight = await readableFlight(c, c.req.valid("param").flight_id);
    const results = (await telemetryOf(c.env, flight.id).conformance()) as ConformanceEvent[];
    return success(c, { results });
  })
  .openapi(ingestRoute, async (c) => {
    const flightId = c.req.valid("param").flight_id;
    const flight = await findFlight(c.var.db, c.var.account.id, flightId);
    if (!flight || (!flight.public && flight.pilotId !== c.var.pilotId)) throw notFound("Flight");
    if (flight.pilotId !== c.var.pilotId) throw forbidden("Only the flight's pilot may send its telemetry");
    const { states } = c.req.valid("json");
    const now = Date.now();
    // The flight is the session: states may be dated from its start (or now, if earlier) to its end
    // (or now, if later; states ahead of their time are served once it has come). A state dated 1970
    // or 9999 would raise conformance events (and webhooks) with that date.
    const opened = Math.min(flight.startTime, now);
    const until = Math.max(flight.endTime, now);
    const absurd = states.findIndex(
      (state) => recordTimeProblem(parseTime(state.timestamp.value)!, opened, until) !== undefined,
    );
    if (absurd >= 0)
      throw badRequest(
        `states.${absurd}.timestamp.value`,
        `must lie ${timeWindowText("the flight's start", "its end or now, whichever is later")}`,
      );
    // One session id per post: its states are its serials, so a post is stored whole or (as a repeat) not at all.
    const sessionId = newId("session");
    const records: TelemetryRecord[] = [];
    states.forEach((state, i) => {
      const timestamp = parseTime(state.timestamp.value)!;
      const { lat, lng, alt } = state.position;
      const height = state.position.height;
      records.push({
        sessionId,
        datagram: `state ${i}`,
        serial: i,
        index: 0,
        type: "position",
        timestamp,
        receivedAt: now,
        fields: {
          latitude: lat,
          longitude: lng,
          altitude_agl: height && height.reference === "GroundLevel" ? height.distance : 0,
          altitude_msl: Math.round(ellipsoidToEgm96(lat, lng, alt) * 100) / 100,
          horizontal_accuracy: HORIZONTAL_ACCURACY[state.position.accuracy_h ?? ""] ?? 0,
        },
      });
      if (state.track > 360 || state.speed >= 255) return;
      const radians = (state.track * Math.PI) / 180;
      records.push({
        sessionId,
        datagram: `state ${i}`,
        serial: i,
        index: 1,
        type: "speed",
        timestamp,
        receivedAt: now,
        fields: {
          velocity_x: round3(state.speed * Math.cos(radians)),
          velocity_y: round3(state.speed * Math.sin(radians)),
          velocity_z: state.vertical_speed >= 63 ? 0 : -state.vertical_speed,
        },
      });
    });
    const result = await telemetryOf(c.env, flight.id).ingest(records);
    return success(c, result);
  })
  .openapi(monitoringRoute, async (c) => {
    const flight = await findFlight(c.var.db, c.var.account.id, c.req.valid("param").flight_id);
    if (!flight) throw notFound("Flight");
    const { enabled } = c.req.valid("json");
    await telemetryOf(c.env, flight.id).setMonitoring(enabled);
    return success(c, { enabled });
  })
  .openapi(livePageRoute, async (c) => {
    const { flight, ticket } = await watcher(c, c.req.valid("param").flight_id);
    // Opened with API headers: the page gets its own ticket, so the key never reaches a URL.
    const pageTicket = ticket ?? (await ticketFor(c, flight)).ticket;
    const map = await mapPageSources(basemapConfig(c.env) !== undefined, "inline");
    c.header(
      "Content-Security-Policy",
      `default-src 'none'; script-src ${map.script}; style-src ${map.style}; connect-src ${map.connect}; worker-src ${map.worker}; img-src ${mapImageSources(mapBasemap(c.env))}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
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
        state: flightState(flight, Date.now()),
        ticket: pageTicket,
        terrain: await terrainGrid(c, flight.geometry),
        map: liveMap(flight.geometry, await liveMapContext(c, flight)),
      }),
    );
    return c.html(html, 200) as never;
  });

/** The live map's context from the embedded data and its ground from the elevation tiles. */
async function liveMapContext(c: Context<AppEnv>, flight: FlightRow): Promise<MapContext> {
  const frame = liveFrame(flight.geometry);
  const [context, terrain] = await Promise.all([
    mapContext(c.var.db, frame.box, flight.startTime, flight.endTime),
    mapTerrain(c.env.ELEVATION, frame, (p) => c.executionCtx.waitUntil(p)),
  ]);
  return {
    ...context,
    terrain,
    basemap: mapBasemap(c.env),
    vectorBasemap: basemapConfig(c.env) !== undefined,
  };
}

/** A flight the caller may read: its pilot's, or a public one of the account; otherwise 404. */
async function readableFlight(c: Context<AppEnv>, flightId: string): Promise<FlightRow> {
  const flight = await findFlight(c.var.db, c.var.account.id, flightId);
  if (!flight || (!flight.public && flight.pilotId !== c.var.pilotId)) throw notFound("Flight");
  return flight;
}

/** A ticket bound to the calling key and, when the pilot's own, to the token's expiry. */
async function ticketFor(c: Context<AppEnv>, flight: FlightRow): Promise<{ ticket: string; exp: number }> {
  const own = flight.pilotId === c.var.pilotId;
  const tokenExpiresAt = own ? (c.var.tokenExpiresAt ?? null) : null;
  const lifetimeEnd = Math.floor(Date.now() / 1000) + TICKET_LIFETIME_SECONDS;
  const exp = tokenExpiresAt === null ? lifetimeEnd : Math.min(lifetimeEnd, tokenExpiresAt);
  const ticket = await issueTicket(c.env.TELEMETRY_MASTER_KEY, {
    flightId: flight.id,
    accountId: flight.accountId,
    pilotId: own ? flight.pilotId : null,
    keyId: c.var.account.keyId,
    tokenExpiresAt,
    exp,
  });
  return { ticket, exp };
}

type LiveBinding = { keyId: string; tokenExpiresAt: number | undefined };

/**
 * The stream and the pages sit outside the API-key middleware (index.ts): a browser presents a
 * ticket in the URL; any other client the API key (and the pilot's token) as everywhere.
 */
export async function watcher(
  c: Context<AppEnv>,
  flightId: string,
): Promise<{ flight: FlightRow; ticket: string | undefined; binding: LiveBinding }> {
  const text = c.req.query("ticket");
  if (text === undefined) {
    await requireApiKey(c, async () => {});
    await optionalToken(c, async () => {});
    const binding = { keyId: c.var.account.keyId, tokenExpiresAt: c.var.tokenExpiresAt };
    return { flight: await readableFlight(c, flightId), ticket: undefined, binding };
  }
  const verified = await verifyTicket(c.env.TELEMETRY_MASTER_KEY, text);
  if (!verified.ok) throw unauthorized(`Invalid ticket: ${verified.reason}`);
  const { ticket } = verified;
  if (ticket.flightId !== flightId) throw new ApiError(403, "This ticket is for another flight");
  if (!(await keyStillLive(c.var.db, ticket.keyId)))
    throw unauthorized("Invalid ticket: the API key it was issued with is revoked");
  c.set("pilotId", ticket.pilotId ?? undefined);
  takeAccountPageRequest(c.env, ticket.accountId);
  const flight = await findFlight(c.var.db, ticket.accountId, flightId);
  if (!flight || (!flight.public && flight.pilotId !== ticket.pilotId)) throw notFound("Flight");
  const binding = { keyId: ticket.keyId, tokenExpiresAt: ticket.tokenExpiresAt ?? undefined };
  return { flight, ticket: text, binding };
}

/** Ground below the area and around it, for the page's terrain profile: a 48×48 grid from our tiles. */
async function terrainGrid(c: Context<AppEnv>, area: Polygon): Promise<TerrainGrid | null> {
  const box = bboxOf(area);
  const padLat = Math.max((box.maxLat - box.minLat) * 0.5, 0.002);
  const padLng = Math.max((box.maxLng - box.minLng) * 0.5, 0.002);
  const grid = {
    south: box.minLat - padLat,
    north: box.maxLat + padLat,
    west: box.minLng - padLng,
    east: box.maxLng + padLng,
    rows: 48,
    cols: 48,
  };
  const lats: number[] = [];
  const lngs: number[] = [];
  for (let r = 0; r < grid.rows; r++) {
    for (let col = 0; col < grid.cols; col++) {
      lats.push(grid.south + ((grid.north - grid.south) * r) / (grid.rows - 1));
      lngs.push(grid.west + ((grid.east - grid.west) * col) / (grid.cols - 1));
    }
  }
  const cover = await coverage(c.env.ELEVATION, (p) => c.executionCtx.waitUntil(p));
  const values = await sampleElevations(cover, lats, lngs, "bilinear", chunkLoader(c.env.ELEVATION));
  return values.some((v) => v !== null) ? { ...grid, values } : null;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
