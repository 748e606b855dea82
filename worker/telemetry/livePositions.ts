import type { Bindings } from "../env";
import { CellThrottle, INDEX_RETENTION_MS } from "../rid/liveIndex";
import { deleteLivePositions, writeLivePositions } from "../store/livePositions";

/**
 * The flight's rows in the live-position index that network Remote ID reads a view from
 * (worker/rid/liveIndex.ts): after each stored batch, the cells due are written to D1 in one batch.
 * Most batches write nothing (a cell is rewritten at most every 10 s of record time), so the ingest
 * waits for D1 only when the flight enters a cell or refreshes one, never per record.
 */
export class LivePositionIndex {
  private readonly throttle = new CellThrottle();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Bindings,
  ) {}

  /** Writes the rows due for these newly stored records; a failure is logged and retried next batch. */
  async stored(
    records: { type: string; timestamp: number; fields: Record<string, number> }[],
  ): Promise<void> {
    const flightId = this.ctx.id.name;
    if (!flightId) return;
    const now = Date.now();
    const positions = records
      .filter((r) => r.type === "position")
      .map((r) => ({ latitude: r.fields.latitude!, longitude: r.fields.longitude!, timestamp: r.timestamp }));
    const due = this.throttle.due(positions, now - INDEX_RETENTION_MS);
    if (due.length === 0) return;
    this.throttle.wrote(due);
    try {
      await writeLivePositions(this.env.DB, flightId, due, now, now - INDEX_RETENTION_MS);
    } catch (err) {
      // The records stay stored; Remote ID misses this flight's new cell until the next batch writes it.
      this.throttle.failed(due);
      console.error(JSON.stringify({ level: "error", message: "live position index", error: String(err) }));
    }
    this.throttle.prune(now - INDEX_RETENTION_MS);
  }

  /**
   * The flight's telemetry was erased: its rows go too. Ending or deleting the flight removed them
   * already (schema/migrations/0012); this covers a flight erased after its window had passed.
   */
  async erased(): Promise<void> {
    this.throttle.reset();
    const flightId = this.ctx.id.name;
    if (!flightId) return;
    try {
      await deleteLivePositions(this.env.DB, flightId);
    } catch (err) {
      // Only rows no view asks for can be left: the flight has ended or is gone; they expire.
      console.error(JSON.stringify({ level: "error", message: "live position erase", error: String(err) }));
    }
  }
}
