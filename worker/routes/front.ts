import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { success } from "../lib/jsend";
import { responses } from "../lib/openapi";
import { AIRSPACE_MAP_SCRIPTS, renderAirspaceMap } from "../pages/airspaceMap";
import { renderFrontPage } from "../pages/front";
import { mapPageSources } from "../pages/map/vectorBasemap";
import { Status } from "../schemas/airspace";
import { statusAtPoint } from "../services/airspaceStatus";
import { airspaceMapAt, frontPage, MAP_SPAN_KM } from "../services/frontPage";

/**
 * What a visitor meets without a key: the front page at `/` (JSend for JSON clients), the airspace
 * map at `/map` and the status it shows on a click, `/map/status`.
 */

const front = createRoute({
  method: "get",
  path: "/",
  tags: ["Service"],
  summary: "The front page: what this service is, who runs it, its status, the public flights under way",
  description:
    "A browser (Accept: text/html) gets the page; any other client this JSend answer. No API key needed.",
  responses: responses(
    z.object({
      service: z.literal("windsock"),
      operator: z.string(),
      status: z.string().openapi({ description: "The overall level, as GET /system/v1/status says" }),
      docs: z.string(),
      openapi: z.string(),
      map: z.string(),
      public_flights_under_way: z.number().int(),
    }),
    "What this service is",
  ),
});

const MapQuery = z.object({
  latitude: z.coerce.number().min(-85).max(85).default(36.3),
  longitude: z.coerce.number().min(-180).max(180).default(-84.12),
  span_km: z.coerce.number().min(MAP_SPAN_KM.min).max(MAP_SPAN_KM.max).default(MAP_SPAN_KM.initial),
});

const map = createRoute({
  method: "get",
  path: "/map",
  tags: ["Service"],
  summary: "The airspace map (HTML): the ground, airspace in its advisory colors, facility-map ceilings",
  description: `Around any point, ${MAP_SPAN_KM.min}–${MAP_SPAN_KM.max} km across, for the next hour. No API key needed.`,
  request: { query: MapQuery },
  responses: {
    200: { content: { "text/html": { schema: z.string() } }, description: "The page" },
  },
});

const mapStatus = createRoute({
  method: "get",
  path: "/map/status",
  tags: ["Service"],
  summary: "The airspace map's status at a point: GET /status/v2/point's answer for the next hour",
  request: {
    query: z.object({
      latitude: z.coerce.number().min(-90).max(90),
      longitude: z.coerce.number().min(-180).max(180),
    }),
  },
  responses: responses(Status, "The status, as GET /status/v2/point gives it"),
});

export const frontRoutes = createRouter()
  .openapi(front, async (c) => {
    const host = new URL(c.req.url).host;
    const model = await frontPage(c.env, c.var.db, host);
    if ((c.req.header("accept") ?? "").includes("text/html")) {
      c.header(
        "Content-Security-Policy",
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
      );
      c.header("Cache-Control", "no-store");
      return c.html(renderFrontPage(model), 200) as never;
    }
    return success(c, {
      service: "windsock" as const,
      operator: model.operator,
      status: model.status.level,
      docs: "/docs",
      openapi: "/openapi.json",
      map: "/map",
      public_flights_under_way: model.flights.length,
    });
  })
  .openapi(map, async (c) => {
    const q = c.req.valid("query");
    const view = { latitude: q.latitude, longitude: q.longitude, spanKm: q.span_km };
    const source = {
      bucket: c.env.ELEVATION,
      waitUntil: (p: Promise<unknown>) => c.executionCtx.waitUntil(p),
    };
    const drawn = await airspaceMapAt(c.env, c.var.db, source, view);
    const sources = await mapPageSources(drawn.vectorBasemap, AIRSPACE_MAP_SCRIPTS);
    c.header(
      "Content-Security-Policy",
      `default-src 'none'; script-src ${sources.script}; style-src ${sources.style}; connect-src 'self'; worker-src ${sources.worker}; img-src ${drawn.imageSources}; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`,
    );
    c.header("Cache-Control", "no-store");
    const page = renderAirspaceMap({ view, layers: drawn.layers, frame: drawn.frame, span: MAP_SPAN_KM });
    return c.html(page, 200) as never;
  })
  .openapi(mapStatus, async (c) => {
    const { latitude, longitude } = c.req.valid("query");
    const now = Date.now();
    const status = await statusAtPoint(c.var.db, c.env, [longitude, latitude], {
      types: undefined,
      window: { start: now, end: now + 3_600_000 },
      buffer: 0,
      weather: false,
    });
    return success(c, status);
  });
