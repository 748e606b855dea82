import { readFileSync } from "node:fs";
import { loadTelemetrySchema } from "../worker/domain/telemetryMessages";

/** The message kinds of proto/telemetry.proto, the schema the worker serves records by. */
export const telemetrySchema = loadTelemetrySchema(
  readFileSync(new URL("../proto/telemetry.proto", import.meta.url), "utf8"),
);
