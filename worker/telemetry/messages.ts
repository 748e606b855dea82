import telemetryProto from "../../proto/telemetry.proto";
import { loadTelemetrySchema } from "../domain/telemetryMessages";

/** The message kinds of proto/telemetry.proto, as the relay decodes them. */
export const telemetrySchema = loadTelemetrySchema(telemetryProto);
