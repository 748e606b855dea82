import type { PositionRow } from "../domain/telemetryArchive";
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
