import { z } from "@hono/zod-openapi";
import { RECORD_TYPES, recordKinds } from "../../proto/records";
import { isoTimeView } from "./common";

/** Telemetry records and conformance events as the API writes them (GET …/telemetry, SSE, webhooks). */

/** Every value field of every record type (proto/records.ts), each present only on its own type. */
const valueFields = Object.fromEntries(
  [...recordKinds.byName.values()].flatMap((kind) =>
    kind.fields.map((field) => [
      field,
      z
        .number()
        .optional()
        .openapi({ description: `\`${kind.name}\` records` }),
    ]),
  ),
) as Record<string, z.ZodOptional<z.ZodNumber>>;

export const TelemetryRecord = z
  .object({
    type: z.string().openapi({ enum: [...RECORD_TYPES], description: "The record's message type" }),
    timestamp: z.number().int().openapi({ description: "UNIX time of the measurement, milliseconds" }),
    serial: z.number().int().openapi({ description: "Serial of the datagram that carried it" }),
    received_at: isoTimeView("When the relay received it"),
    ...valueFields,
  })
  .openapi("TelemetryRecord", {
    description:
      "A decoded record: `type`, `timestamp`, and the message's fields named as in proto/telemetry.proto (position: latitude, longitude, altitude_agl, altitude_msl, horizontal_accuracy; speed: velocity_x/y/z; attitude: yaw, pitch, roll; barometer: pressure)",
    example: {
      type: "position",
      timestamp: 1795255200000,
      serial: 1,
      received_at: "2026-11-21T10:00:00.120Z",
      latitude: 36.3015,
      longitude: -84.119,
      altitude_agl: 42.5,
      altitude_msl: 415.5,
      horizontal_accuracy: 1.5,
    },
  });

export const TelemetryPage = z
  .object({
    results: z.array(TelemetryRecord),
    paging: z.object({
      limit: z.number().int(),
      next: z.string().nullable().openapi({ description: "Cursor of the next page; null on the last" }),
    }),
  })
  .openapi("TelemetryPage");

const metres = (description: string) => z.number().nullable().optional().openapi({ description });

export const ConformanceEvent = z
  .object({
    type: z.enum(["left_area", "above_ceiling", "outside_time", "telemetry_lost", "back_in_conformance"]),
    at: isoTimeView("The record that caused it; for telemetry_lost, when the silence reached 15 s"),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
    altitude_msl: metres("Meters above mean sea level (EGM96)"),
    ground_elevation: metres("Ground below, meters MSL; null where no elevation is loaded"),
    height_agl: metres("Meters above the ground; null without ground elevation"),
    ceiling: metres("The flight's ceiling, meters AGL; null when it has none"),
    elevation: z.string().optional().openapi({ description: "Why the ceiling was not checked" }),
    distance_m: z.number().optional().openapi({ description: "left_area: meters outside the area" }),
    above_by_m: z.number().optional().openapi({ description: "above_ceiling: meters above it" }),
    start_time: isoTimeView("outside_time: the flight's window").optional(),
    end_time: isoTimeView().optional(),
    early_by_s: z.number().optional(),
    late_by_s: z.number().optional(),
    cleared: z
      .array(z.enum(["left_area", "above_ceiling", "outside_time", "telemetry_lost"]))
      .optional()
      .openapi({ description: "back_in_conformance: the problems that ended" }),
    last_record_at: isoTimeView("telemetry_lost: the last record").optional(),
    silent_s: z.number().optional().openapi({ description: "telemetry_lost: seconds without a record" }),
  })
  .openapi("ConformanceEvent", {
    example: {
      type: "above_ceiling",
      at: "2026-11-21T10:04:12.000Z",
      latitude: 36.3015,
      longitude: -84.119,
      altitude_msl: 402.3,
      ground_elevation: 280.1,
      height_agl: 122.2,
      ceiling: 60,
      above_by_m: 62.2,
    },
  });
