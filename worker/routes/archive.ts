import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { DEFAULT_SAMPLE_INTERVAL_MS, POSITION_FIELDS, sampleInterval } from "../domain/telemetryArchive";
import { badRequest } from "../lib/errors";
import { success } from "../lib/jsend";
import { responses, securityWithToken, timeInput } from "../lib/openapi";
import { parseTime } from "../lib/time";
import { pilotsFlight } from "../middleware/ownFlight";
import { requireToken } from "../middleware/token";
import { flightPositionArchive } from "../services/flightArchive";

const PositionQuery = z.object({
  flight_id: z.string().min(1).max(64),
  start: timeInput
    .optional()
    .openapi({ description: "Only samples at or after this time (ISO 8601 or `now`)" }),
  end: timeInput.optional().openapi({ description: "Only samples at or before this time" }),
  rate: z
    .string()
    .refine((v) => sampleInterval(v) !== undefined, {
      message: "a sample interval: <n>ms, <n>s or <n>m (a bare number is seconds), from 1 ms to 1 day",
    })
    .optional()
    .openapi({
      description: "At most one sample per interval (the first of each): `500ms`, `1s` (default), `5m`",
      example: "1s",
    }),
});

const positions = createRoute({
  method: "get",
  path: "/archive/v1/telemetry/position",
  tags: ["Telemetry"],
  summary: "The flight's stored positions as a table, downsampled to `rate` (the flight's pilot only)",
  security: securityWithToken,
  // The same rule as GET /flight/v2/{id}/telemetry: telemetry is the flight's pilot's alone.
  middleware: [requireToken, pilotsFlight("its telemetry")] as const,
  request: { query: PositionQuery },
  responses: responses(
    z
      .object({
        fields: z.array(z.string()).openapi({ example: [...POSITION_FIELDS] }),
        values: z.array(z.array(z.union([z.string(), z.number()]))),
      })
      .openapi("PositionArchive", {
        description:
          "`values` rows follow `fields`: timestamp (ISO 8601), latitude and longitude (degrees), altitude above mean sea level, altitude above ground and horizontal accuracy (meters)",
      }),
    "Samples ordered by timestamp",
  ),
});

export const archiveRoutes = createRouter().openapi(positions, async (c) => {
  const q = c.req.valid("query");
  const { flight } = c.var;
  const now = Date.now();
  const start = q.start === undefined ? 0 : parseTime(q.start, now)!;
  const end = q.end === undefined ? Number.MAX_SAFE_INTEGER : parseTime(q.end, now)!;
  if (end < start) throw badRequest("end", "must not be before start");
  const rows = await flightPositionArchive(c.env, flight.id, {
    start,
    end,
    intervalMs: q.rate === undefined ? DEFAULT_SAMPLE_INTERVAL_MS : sampleInterval(q.rate)!,
  });
  return success(c, { fields: [...POSITION_FIELDS], values: rows });
});
