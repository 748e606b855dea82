import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { recordId, responses, securityWithToken } from "../lib/openapi";
import { withAccountWork } from "../middleware/accountWork";
import { renderBriefingPage } from "../pages/briefing";
import { mapLegend, renderLegend, renderMapSvg } from "../pages/map/svg";
import { briefingWithMap } from "../services/frontPage";
import { watcher } from "./live";

const briefingPageRoute = createRoute({
  method: "get",
  path: "/flight/v2/{flight_id}/briefing",
  tags: ["Live"],
  summary: "The flight's briefing as a page (HTML): advisories, rules and authorizations, in words",
  description:
    "Opened like the live page: with `?ticket=` from POST /flight/v2/{flight_id}/ticket (its `briefing_url`), or with the API headers.",
  security: securityWithToken,
  request: {
    params: z.object({ flight_id: recordId("flight_id") }),
    query: z.object({
      ticket: z
        .string()
        .max(1000)
        .optional()
        .openapi({ description: "A ticket from POST /flight/v2/{id}/ticket" }),
    }),
  },
  responses: {
    ...responses(z.null(), "unused"),
    200: { content: { "text/html": { schema: z.string() } }, description: "The page" },
  },
});

/** The briefing page reads the flight as the live page does: same ticket, same readers. */
export const briefingPageRoutes = createRouter().openapi(briefingPageRoute, async (c) => {
  const { flight } = await watcher(c, c.req.valid("param").flight_id);
  // Opened by a ticket, the evaluation runs in the flight's account's share of expensive work.
  const source = { bucket: c.env.ELEVATION, waitUntil: (p: Promise<unknown>) => c.executionCtx.waitUntil(p) };
  const { page, imageSources } = await withAccountWork(c.env, flight.accountId, async () => {
    const { briefing, layers, area, imageSources } = await briefingWithMap(c.env, c.var.db, source, flight);
    const map =
      renderMapSvg({ layers, area, markers: [], id: "map", title: "The flight's area", scaleId: "scale" }) +
      renderLegend(mapLegend(layers));
    const plan = {
      startTime: flight.startTime,
      endTime: flight.endTime,
      maxAltitude: flight.maxAltitude,
      map,
    };
    return { page: renderBriefingPage(flight.id, briefing, plan), imageSources };
  });
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; style-src 'unsafe-inline'; img-src ${imageSources}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
  );
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", "no-store");
  return c.html(page, 200) as never;
});
