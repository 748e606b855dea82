import { type FlightPosition, POSITIONS_PATH } from "../../proto/traffic";
import type { Bindings } from "../env";

/** At most one push a second per flight: the SDKs' traffic is published at most once a second. */
export const PUSH_INTERVAL_MS = 1000;

/**
 * Pushes the flight's latest position to the traffic broker (TRAFFIC_FEED_URL), which tells the other
 * flights' pilots about it: whatever brought the records (UDP relay, HTTP ingest, RID injection),
 * they all pass here. At most one push per PUSH_INTERVAL_MS; a newer position that arrives within it
 * goes when it ends. A failed push is logged and dropped: the next position replaces it.
 */
export class TrafficFeed {
  private latest: FlightPosition | null = null;
  /** Velocity (NED) of the latest speed record, and its time. */
  private velocity: { north: number; east: number; at: number } | null = null;
  private yaw: number | null = null;
  private pushedAt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Bindings,
  ) {}

  stored(records: { type: string; timestamp: number; fields: Record<string, number> }[]): void {
    const url = this.env.TRAFFIC_FEED_URL;
    const flightId = this.ctx.id.name;
    if (!url || !flightId) return;
    const now = Date.now();
    let newest: { timestamp: number; fields: Record<string, number> } | null = null;
    for (const r of records) {
      // Injected test flights store their whole future at once: only what has happened is traffic.
      if (r.timestamp > now + 1000) continue;
      if (r.type === "speed" && (!this.velocity || r.timestamp >= this.velocity.at))
        this.velocity = { north: r.fields.velocity_x ?? 0, east: r.fields.velocity_y ?? 0, at: r.timestamp };
      else if (r.type === "attitude") this.yaw = r.fields.yaw ?? this.yaw;
      else if (r.type === "position" && (!newest || r.timestamp >= newest.timestamp)) newest = r;
    }
    if (!newest || (this.latest && newest.timestamp <= this.latest.recorded_at)) return;
    const north = this.velocity?.north ?? 0;
    const east = this.velocity?.east ?? 0;
    const moving = Math.hypot(north, east) > 0.1;
    this.latest = {
      flight_id: flightId,
      latitude: newest.fields.latitude!,
      longitude: newest.fields.longitude!,
      altitude_m: newest.fields.altitude_msl ?? 0,
      ground_speed_ms: Math.hypot(north, east),
      heading_deg: moving ? ((Math.atan2(east, north) * 180) / Math.PI + 360) % 360 : (this.yaw ?? 0),
      recorded_at: newest.timestamp,
    };
    const wait = this.pushedAt + PUSH_INTERVAL_MS - now;
    if (wait <= 0) this.push(url);
    else this.timer ??= setTimeout(() => this.push(url), wait);
  }

  private push(url: string): void {
    this.timer = null;
    const position = this.latest;
    if (!position) return;
    this.pushedAt = Date.now();
    const body = JSON.stringify({ positions: [position] });
    this.ctx.waitUntil(
      fetch(`${url.replace(/\/+$/, "")}${POSITIONS_PATH}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${this.env.RELAY_SECRET ?? ""}`,
        },
        body,
      })
        .then((res) => res.body?.cancel())
        .catch((err) =>
          console.error(JSON.stringify({ level: "warn", message: "traffic feed push", error: String(err) })),
        ),
    );
  }
}
