import { type FlightPosition, POSITIONS_PATH } from "../../proto/traffic";
import type { Bindings } from "../env";

/** At most one push a second per flight: the SDKs' traffic is published at most once a second. */
export const PUSH_INTERVAL_MS = 1000;

/** A record counts as current up to this far ahead of the clock (devices' clocks run a little fast). */
const AHEAD_MS = 1000;

/**
 * Pushes the flight's latest position to the traffic broker (TRAFFIC_FEED_URL), which tells the other
 * flights' pilots about it: whatever brought the records (UDP relay, HTTP ingest, RID injection),
 * they all pass here. At most one push per PUSH_INTERVAL_MS; a newer position that arrives within it
 * goes when it ends. A failed push is logged and dropped: the next position replaces it.
 *
 * An injected test flight stores its whole future at once: a position timed later waits in storage
 * and is pushed by the object's alarm when its time comes (nextDue, catchUp).
 */
export class TrafficFeed {
  private latest: FlightPosition | null = null;
  /** Velocity (NED) of the latest speed record, and its time. */
  private velocity: { north: number; east: number; at: number } | null = null;
  private yaw: number | null = null;
  private pushedAt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  /** Set when a stored position is timed in the future: the owner arms the alarm for nextDue. */
  waiting = false;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Bindings,
    private readonly hasRecords: () => boolean,
  ) {}

  stored(records: { type: string; timestamp: number; fields: Record<string, number> }[]): void {
    const url = this.env.TRAFFIC_FEED_URL;
    const flightId = this.ctx.id.name;
    if (!url || !flightId) return;
    const now = Date.now();
    let newest: { timestamp: number; fields: Record<string, number> } | null = null;
    for (const r of records) {
      // Injected test flights store their whole future at once: only what has happened is traffic.
      if (r.timestamp > now + AHEAD_MS) {
        if (r.type === "position") this.waiting = true;
        continue;
      }
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

  /** When the next stored position timed in the future becomes current, or null when none is. */
  nextDue(): number | null {
    if (!this.env.TRAFFIC_FEED_URL || !this.hasRecords()) return null;
    const now = Date.now();
    const [row] = this.ctx.storage.sql
      .exec<{ next: number | null }>(
        "SELECT MIN(timestamp) AS next FROM records WHERE type = 'position' AND timestamp > ?",
        now + AHEAD_MS,
      )
      .toArray();
    this.waiting = row?.next != null;
    if (row?.next == null) return null;
    return Math.max(row.next - AHEAD_MS, this.pushedAt + PUSH_INTERVAL_MS);
  }

  /** Pushes the newest position that has become current since the last push (the alarm's turn). */
  catchUp(): void {
    if (!this.env.TRAFFIC_FEED_URL || !this.hasRecords()) return;
    const upTo = Date.now() + AHEAD_MS;
    const latest = (type: string) =>
      this.ctx.storage.sql
        .exec<{ type: string; timestamp: number; fields: string }>(
          "SELECT type, timestamp, fields FROM records WHERE type = ? AND timestamp <= ? ORDER BY timestamp DESC LIMIT 1",
          type,
          upTo,
        )
        .toArray()
        .map((r) => ({
          type: r.type,
          timestamp: r.timestamp,
          fields: JSON.parse(r.fields) as Record<string, number>,
        }));
    this.stored([...latest("speed"), ...latest("attitude"), ...latest("position")]);
  }

  private push(urls: string): void {
    this.timer = null;
    const position = this.latest;
    if (!position) return;
    this.pushedAt = Date.now();
    const body = JSON.stringify({ positions: [position] });
    // Every broker gets every position: each computes traffic for its own clients (docs/traffic.md).
    for (const url of feedUrls(urls))
      this.ctx.waitUntil(
        fetch(`${url}${POSITIONS_PATH}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${this.env.RELAY_SECRET ?? ""}`,
          },
          body,
        })
          .then((res) => res.body?.cancel())
          .catch((err) =>
            console.error(
              JSON.stringify({ level: "warn", message: "traffic feed push", url, error: String(err) }),
            ),
          ),
      );
  }
}

/** TRAFFIC_FEED_URL's feeds: one per broker, separated by commas. */
export const feedUrls = (value: string): string[] =>
  value
    .split(",")
    .map((url) => url.trim().replace(/\/+$/, ""))
    .filter((url) => url.length > 0);
