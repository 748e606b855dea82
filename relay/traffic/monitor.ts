import { closestApproach } from "./geometry";
import {
  kindOf,
  REPUBLISH_MS,
  SA_RADIUS_M,
  TRACK_TTL_MS,
  type Track,
  type TrafficKind,
  type TrafficUpdate,
  topicOf,
  trafficUpdate,
} from "./semantics";
import { TrackGrid } from "./trackGrid";

/**
 * Which monitored flight gets which track on which topic, and when; pure but for the injected clock
 * and publisher. A track's update is weighed against the monitored flights near it; a monitored
 * flight's own update against the tracks near it (at most once a second: every track reports about
 * that often anyway). Each track goes to a flight's topic at most once per REPUBLISH_MS, and at once
 * when its kind changes; what waits is sent by flush() with the track's latest state.
 */

export interface MonitorOptions {
  now: () => number;
  /** Publishes one message; the monitor never waits for it. */
  publish: (topic: string, payload: string) => void;
}

interface Sent {
  kind: TrafficKind;
  at: number;
}

interface Monitored {
  id: string;
  /** What each track was last published as, and when. */
  sent: Map<string, Sent>;
  /** Tracks waiting to be published: their kind and when they are due. */
  pending: Map<string, { kind: TrafficKind; due: number }>;
  /** When this flight's own update last made it look at every track near it. */
  surveyedAt: number;
}

export class TrafficMonitor {
  private readonly tracks = new Map<string, Track>();
  /** When the broker last heard of each track (its own clock: receivers' clocks may be off). */
  private readonly heardAt = new Map<string, number>();
  private readonly grid = new TrackGrid();
  private readonly monitored = new Map<string, Monitored>();
  /** Monitored flights with a known position, by place. */
  private readonly monitoredGrid = new TrackGrid();
  private readonly due = new Set<Monitored>();

  constructor(private readonly options: MonitorOptions) {}

  /** Starts monitoring for a flight (a client subscribed to one of its topics). */
  watch(flightId: string): void {
    if (this.monitored.has(flightId)) return;
    const flight: Monitored = { id: flightId, sent: new Map(), pending: new Map(), surveyedAt: 0 };
    this.monitored.set(flightId, flight);
    const own = this.tracks.get(flightId);
    if (own) this.monitoredGrid.put(flightId, own.latitude, own.longitude);
  }

  /** Stops monitoring a flight (its last client left). */
  unwatch(flightId: string): void {
    const flight = this.monitored.get(flightId);
    if (!flight) return;
    this.monitored.delete(flightId);
    this.monitoredGrid.remove(flightId);
    this.due.delete(flight);
  }

  get watching(): number {
    return this.monitored.size;
  }

  get trackCount(): number {
    return this.tracks.size;
  }

  /** A track's new state (a flight's position, a manned aircraft's). Older states than the known one are ignored. */
  update(track: Track): void {
    const now = this.options.now();
    const known = this.tracks.get(track.id);
    if (known && known.recordedAt > track.recordedAt) return;
    this.tracks.set(track.id, track);
    this.heardAt.set(track.id, now);
    this.grid.put(track.id, track.latitude, track.longitude);
    const self = this.monitored.get(track.id);
    if (self) {
      this.monitoredGrid.put(track.id, track.latitude, track.longitude);
      if (now - self.surveyedAt >= REPUBLISH_MS) {
        self.surveyedAt = now;
        for (const id of this.grid.near(track.latitude, track.longitude, SA_RADIUS_M)) {
          const other = this.tracks.get(id);
          if (other) this.weigh(self, track, other, now);
        }
      }
    }
    for (const id of this.monitoredGrid.near(track.latitude, track.longitude, SA_RADIUS_M)) {
      const flight = this.monitored.get(id);
      const own = this.tracks.get(id);
      if (flight && own && flight !== self) this.weigh(flight, own, track, now);
    }
  }

  /** Publishes what is due: one message per flight and kind, each track in its latest state. */
  flush(): void {
    const now = this.options.now();
    for (const flight of this.due) {
      const own = this.tracks.get(flight.id);
      const out: Record<TrafficKind, TrafficUpdate[]> = { alert: [], sa: [] };
      let waiting = false;
      for (const [id, entry] of flight.pending) {
        if (entry.due > now) {
          waiting = true;
          continue;
        }
        flight.pending.delete(id);
        const track = this.tracks.get(id);
        if (!own || !track) continue;
        out[entry.kind].push(trafficUpdate(own, track, now));
        flight.sent.set(id, { kind: entry.kind, at: now });
      }
      if (!waiting) this.due.delete(flight);
      for (const kind of ["alert", "sa"] as const) {
        if (out[kind].length > 0)
          this.options.publish(topicOf(kind, flight.id), JSON.stringify({ traffic: out[kind] }));
      }
    }
  }

  /** Forgets tracks not heard of for TRACK_TTL_MS. */
  expire(): void {
    const before = this.options.now() - TRACK_TTL_MS;
    for (const [id, heard] of this.heardAt) {
      if (heard >= before) continue;
      this.heardAt.delete(id);
      this.tracks.delete(id);
      this.grid.remove(id);
      this.monitoredGrid.remove(id);
      for (const flight of this.monitored.values()) {
        flight.sent.delete(id);
        flight.pending.delete(id);
      }
    }
  }

  /** The closest approach of a track to a monitored flight, for the live page and tests. */
  approach(flightId: string, trackId: string) {
    const own = this.tracks.get(flightId);
    const other = this.tracks.get(trackId);
    return own && other ? closestApproach(own, other, this.options.now(), 30) : null;
  }

  private weigh(flight: Monitored, own: Track, other: Track, now: number): void {
    if (other.id === flight.id) return;
    const kind = kindOf(own, other, now);
    const sent = flight.sent.get(other.id);
    if (kind === null) {
      flight.sent.delete(other.id);
      flight.pending.delete(other.id);
      return;
    }
    const due = sent === undefined || sent.kind !== kind ? now : Math.max(now, sent.at + REPUBLISH_MS);
    const pending = flight.pending.get(other.id);
    // A change of kind is due at once; otherwise an earlier due time stands.
    if (pending && pending.kind === kind && pending.due <= due) return;
    flight.pending.set(other.id, { kind, due });
    this.due.add(flight);
  }
}
