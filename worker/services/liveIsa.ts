import type { Bindings } from "../env";
import { telemetryOf } from "../telemetry/flightTelemetry";

/**
 * The route side of live flights' Identification Service Areas (worker/telemetry/isaOutbox.ts):
 * end-comm and the flight's end close the flight's open ISA. Only the flight's Durable Object is
 * told (its own storage, no DSS call): the alarm deletes the ISA at the DSS, with retries.
 */
export async function closeLiveIsa(env: Bindings, flightId: string): Promise<void> {
  try {
    await telemetryOf(env, flightId).closeLiveIsa();
  } catch (err) {
    // The session is closed either way; the ISA then lapses at its time_end.
    console.error(
      JSON.stringify({
        level: "error",
        message: "ISA close failed",
        flight_id: flightId,
        error: String(err),
      }),
    );
  }
}
