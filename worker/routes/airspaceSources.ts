import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { LEVELS } from "../domain/systemStatus";
import { success } from "../lib/jsend";
import { responses, security } from "../lib/openapi";
import { deployedAirspaceSources } from "../services/airspaceSources";

const time = (description: string) =>
  z.string().nullable().openapi({ description, example: "2026-11-27T02:00:00.000Z" });

const AirspaceSource = z
  .object({
    id: z
      .string()
      .openapi({ description: "The feed or dataset name; records' ids start with it", example: "faa_tfr" }),
    kind: z.enum(["feed", "dataset"]).openapi({
      description:
        "`feed`: kept current by the sync (Cron Trigger, `npm run airspace:sync`); `dataset`: loaded once",
    }),
    title: z.string(),
    origin: z.string().openapi({ description: "Where the data comes from: a URL, a package, a file" }),
    format: z.string(),
    version: z.string().nullable().openapi({ description: "The loaded version as the source names it" }),
    cycle: z
      .string()
      .nullable()
      .openapi({ description: "How often a feed is refreshed", example: "every 1 h" }),
    valid_until: time("When the loaded version is older than its cycle (then `degraded`)"),
    last_success_at: time("When the loaded version was fetched or last confirmed current"),
    last_attempt_at: time("When a sync last tried"),
    records: z.number().int().openapi({ description: "Records loaded (facility-map cells count one each)" }),
    last_error: z
      .string()
      .nullable()
      .openapi({ description: "The last sync's error, naming the URL; null once one succeeds" }),
    last_error_at: time("When that error happened"),
    skipped: z
      .array(z.object({ reason: z.string(), count: z.number().int(), examples: z.array(z.string()) }))
      .openapi({ description: "Source records the loaded version left out, by reason, a few named" }),
    enabled: z.boolean().openapi({ description: "Whether the sync runs this feed (AIRSPACE_FEEDS)" }),
    level: z.enum(LEVELS).openapi({ description: "`degraded` when older than its cycle or empty" }),
  })
  .openapi("AirspaceSource");

const sources = createRoute({
  method: "get",
  path: "/airspace/v2/sources",
  tags: ["Airspace"],
  summary: "Where the airspace data comes from and how current each source is",
  security,
  responses: responses(z.array(AirspaceSource), "Every source: the FAA feeds, then the loaded datasets"),
});

export const airspaceSourceRoutes = createRouter().openapi(sources, async (c) =>
  success(c, await deployedAirspaceSources(c.env, Date.now())),
);
