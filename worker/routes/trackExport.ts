import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { TRACK_FORMATS, type TrackFormat } from "../domain/trackExport";
import { recordId, responses, securityWithToken } from "../lib/openapi";
import { withAccountWork } from "../middleware/accountWork";
import { flightTrackFile } from "../services/flightArchive";
import { watcher } from "./live";

/**
 * A flight's track as a file (CSV, GPX, KML), for the pilot (API headers) or a browser holding the
 * live page's ticket: the ended flight's page links it.
 */

const trackExport = createRoute({
  method: "get",
  path: "/flight/v2/{flight_id}/track",
  tags: ["Telemetry"],
  summary: "The flight's track as a file: CSV, GPX 1.1 or KML 2.2, every stored position in time order",
  description:
    "Read like the live page: the pilot's API headers, or `?ticket=` from POST /flight/v2/{flight_id}/ticket. Altitudes are meters above mean sea level (EGM96); the CSV adds the height above ground the drone reported and its horizontal accuracy.",
  security: securityWithToken,
  request: {
    params: z.object({ flight_id: recordId("flight_id") }),
    query: z.object({
      format: z.enum(Object.keys(TRACK_FORMATS) as [TrackFormat, ...TrackFormat[]]),
      ticket: z
        .string()
        .optional()
        .openapi({ description: "A ticket from POST /flight/v2/{flight_id}/ticket" }),
    }),
  },
  responses: {
    ...responses(z.null(), "unused"),
    200: {
      content: Object.fromEntries(
        Object.values(TRACK_FORMATS).map((f) => [f.type.split(";")[0], { schema: z.string() }]),
      ),
      description: "The file, as an attachment named after the flight",
    },
  },
});

export const trackExportRoutes = createRouter().openapi(trackExport, async (c) => {
  const { flight } = await watcher(c, c.req.valid("param").flight_id);
  const { format } = c.req.valid("query");
  const body = await withAccountWork(c.env, flight.accountId, () =>
    flightTrackFile(c.env, flight.id, format),
  );
  const name = `${flight.id.replace(/[^A-Za-z0-9_-]/g, "_")}.${TRACK_FORMATS[format].extension}`;
  c.header("Content-Type", TRACK_FORMATS[format].type);
  c.header("Content-Disposition", `attachment; filename="${name}"`);
  c.header("Cache-Control", "no-store");
  return c.body(body, 200) as never;
});
