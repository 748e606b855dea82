import type { PositionRow } from "../domain/telemetryArchive";
import { type TrackFormat, trackFile } from "../domain/trackExport";
import type { Bindings } from "../env";
import { telemetryOf } from "../telemetry/flightTelemetry";
import { type ArchiveWindow, archivedPositions } from "./telemetryArchive";

/**
 * The flight's archived positions, read from its Durable Object. Apart from telemetryArchive.ts,
 * whose sampling is tested in plain Node, where the Durable Object's module cannot load.
 */
export function flightPositionArchive(
  env: Bindings,
  flightId: string,
  window: ArchiveWindow,
): Promise<PositionRow[]> {
  return archivedPositions((query) => telemetryOf(env, flightId).read(query), window);
}

/** The flight's whole track as a file in `format` (every stored position, time order). */
export async function flightTrackFile(env: Bindings, flightId: string, format: TrackFormat): Promise<string> {
  // Every position the flight kept, each millisecond's first.
  const rows = await flightPositionArchive(env, flightId, {
    start: 0,
    end: Number.MAX_SAFE_INTEGER,
    intervalMs: 1,
  });
  return trackFile(format, rows, { flightId, creator: "Windsock" });
}
