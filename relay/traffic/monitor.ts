import { closestApproach, distanceM, extrapolate } from "./geometry";
import {
  kindOf,
  REPUBLISH_MS,
  SA_RADIUS_M,
  TRACK_TTL_MS,
  type Track,
  type TrafficKind,
  topicOf,
  trafficMessage,
} from "./semantics";
import { TrackGrid } from "./trackGrid";

/**
 * Which monitored flight gets which track on which topic, and when; pure but for the injected clock
 * and publisher. Two paths:
 * - at once: a track's update is weighed against the monitored flights near it, and one that is new
 *   to a flight or changes kind (SA to alert, or back) goes out at the next flush();
 * - once a second per flight (its survey): every track near it whose state is newer than the one it
 *   was sent, in one message per topic. The survey runs when the flight's own position arrives or
 *   at flush(), whichever comes first after a second.
 * So each track reaches a flight's topic at most once a second, and at once when its kind changes;
 * a flight gets at most one message a second per topic besides those changes.
 */

/** Every track near a flight is weighed again at least this often, whatever the flight does. */
const RESCAN_MS = 5000;

/**
 * Whether a flight's new state is not where its earlier one said it would be, within what changes
 * no verdict: 20 m, 1 m/s, 5°.
 */
function departed(earlier: Track, now: Track): boolean {
  const expected = extrapolate(earlier, now.recordedAt);
  const turned = Math.abs(((now.headingDeg - earlier.headingDeg + 540) % 360) - 180);
  return (
    distanceM(expected.latitude, expected.longitude, now.latitude, now.longitude) > 20 ||
    Math.abs(now.groundSpeedMs - earlier.groundSpeedMs) > 1 ||
    (now.groundSpeedMs > 1 && turned > 5) ||
    Math.abs(now.altitudeM - earlier.altitudeM) > 20
  );
}

export interface MonitorOptions {
  now: () => number;
  /** Publishes one message; the monitor never waits for it. */
  publish: (topic: string, payload: string) => void;
}

interface Sent {
  kind: TrafficKind;
  /** The state sent (its recordedAt), and when. */
  recordedAt: number;
  at: number;
  /** A newer state of the same kind is waiting for the flight's next survey. */
  newer: boolean;
}

interface Monitored {
  id: string;
  /** The flight's own latest state, once it has reported one. */
  own: Track | null;
  /** What each track near the flight was last published as. */
  sent: Map<string, Sent>;
  /** Tracks new to the flight or of a new kind since the last flush. */
  urgent: Map<string, TrafficKind>;
  /** When the flight last published its changes (its survey), and last weighed every track near it (its scan). */
  surveyedAt: number;
  scannedAt: number;
  /** The flight's own state at its last scan. */
  ownAtScan: Track | null;
  /** When `sent` was last rid of tracks the monitor has forgotten. */
  prunedAt: number;
}

interface Known {
  track: Track;
  /** When the broker last heard of it (its own clock: receivers' clocks may be off). */
  heardAt: number;
}

export class TrafficMonitor {
  private readonly tracks = new Map<string, Known>();
  private readonly grid = new TrackGrid<Known>();
  private readonly monitored = new Map<string, Monitored>();
  /** Monitored flights with a known position, by place. */
  private readonly monitoredGrid = new TrackGrid<Monitored>();
  private readonly urgent = new Set<Monitored>();

  constructor(private readonly options: MonitorOptions) {}

  /** Starts monitoring for a flight (a client subscribed to one of its topics). */
  watch(flightId: string): void {
    if (this.monitored.has(flightId)) return;
    const own = this.tracks.get(flightId)?.track ?? null;
    const flight: Monitored = {
      id: flightId,
      own,
      sent: new Map(),
      urgent: new Map(),
      surveyedAt: 0,
      scannedAt: 0,
      ownAtScan: null,
      prunedAt: 0,
    };
    this.monitored.set(flightId, flight);
    if (own) this.monitoredGrid.put(flightId, own.latitude, own.longitude, flight);
  }

  /** Stops monitoring a flight (its last client left). */
  unwatch(flightId: string): void {
    const flight = this.monitored.get(flightId);
    if (!flight) return;
    this.monitored.delete(flightId);
    this.monitoredGrid.remove(flightId);
    this.urgent.delete(flight);
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
    if (known && known.track.recordedAt > track.recordedAt) return;
    if (known) {
      known.track = track;
      known.heardAt = now;
      this.grid.put(track.id, track.latitude, track.longitude, known);
    } else {
      const entry = { track, heardAt: now };
      this.tracks.set(track.id, entry);
      this.grid.put(track.id, track.latitude, track.longitude, entry);
    }
    const self = this.monitored.get(track.id);
    if (self) {
      self.own = track;
      this.monitoredGrid.put(track.id, track.latitude, track.longitude, self);
      if (now - self.surveyedAt >= REPUBLISH_MS) this.survey(self, track, now);
    }
    this.monitoredGrid.forEachNear(track.latitude, track.longitude, SA_RADIUS_M, (flight) => {
      if (flight === self || flight.own === null) return;
      const kind = kindOf(flight.own, track, now);
      const sent = flight.sent.get(track.id);
      // Most visits find the same kind as sent: they only mark the state for the survey.
      if (kind !== null && kind === sent?.kind) {
        sent.newer = true;
        if (flight.urgent.size > 0) flight.urgent.delete(track.id);
      } else if (kind === null) {
        if (sent) flight.sent.delete(track.id);
        if (flight.urgent.size > 0) flight.urgent.delete(track.id);
      } else if (flight.urgent.get(track.id) !== kind) {
        flight.urgent.set(track.id, kind);
        this.urgent.add(flight);
      }
    });
  }

  /** Publishes what is due: tracks new to a flight or of a new kind, then the surveys a second old. */
  flush(): void {
    const now = this.options.now();
    for (const flight of this.urgent) {
      const out: Record<TrafficKind, Track[]> = { alert: [], sa: [] };
      for (const [id, kind] of flight.urgent) {
        const track = this.tracks.get(id)?.track;
        if (!track) continue;
        out[kind].push(track);
        flight.sent.set(id, { kind, recordedAt: track.recordedAt, at: now, newer: false });
      }
      flight.urgent.clear();
      if (flight.own) this.publish(flight, flight.own, out, now);
    }
    this.urgent.clear();
    for (const flight of this.monitored.values()) {
      if (flight.own && now - flight.surveyedAt >= REPUBLISH_MS) this.survey(flight, flight.own, now);
    }
  }

  /** Forgets tracks not heard of for TRACK_TTL_MS. */
  expire(): void {
    const before = this.options.now() - TRACK_TTL_MS;
    for (const [id, known] of this.tracks) {
      if (known.heardAt >= before) continue;
      this.tracks.delete(id);
      this.grid.remove(id);
      const flight = this.monitored.get(id);
      if (flight) {
        flight.own = null;
        this.monitoredGrid.remove(id);
      }
    }
  }

  /** The closest approach of a track to a monitored flight, for the live page and tests. */
  approach(flightId: string, trackId: string) {
    const own = this.tracks.get(flightId)?.track;
    const other = this.tracks.get(trackId)?.track;
    return own && other ? closestApproach(own, other, this.options.now(), 30) : null;
  }

  /**
   * The flight's message a second per topic: the tracks whose state is newer than the one it was sent
   * (and not sent within the second). Their updates marked them (`newer`) as long as the flight flies
   * as it said it would; when it does not (it turned, sped up, stopped), and every few seconds anyway,
   * every track near it is weighed again (its scan).
   */
  private survey(flight: Monitored, own: Track, now: number): void {
    flight.surveyedAt = now;
    const out: Record<TrafficKind, Track[]> = { alert: [], sa: [] };
    const take = (track: Track, kind: TrafficKind) => {
      const last = flight.sent.get(track.id);
      if (last && last.kind === kind && (last.recordedAt >= track.recordedAt || now - last.at < REPUBLISH_MS))
        return;
      out[kind].push(track);
      flight.sent.set(track.id, { kind, recordedAt: track.recordedAt, at: now, newer: false });
      if (flight.urgent.size > 0) flight.urgent.delete(track.id);
    };
    const scanDue =
      flight.ownAtScan === null || now - flight.scannedAt >= RESCAN_MS || departed(flight.ownAtScan, own);
    if (scanDue) {
      flight.scannedAt = now;
      flight.ownAtScan = own;
      this.grid.forEachNear(own.latitude, own.longitude, SA_RADIUS_M, ({ track }) => {
        if (track.id === flight.id) return;
        const kind = kindOf(own, track, now);
        if (kind !== null) return take(track, kind);
        flight.sent.delete(track.id);
      });
    } else {
      for (const [id, last] of flight.sent) {
        if (!last.newer) continue;
        const track = this.tracks.get(id)?.track;
        if (track) take(track, last.kind);
      }
    }
    // Tracks forgotten since (silent for 30 s) leave the flight's records too.
    if (now - flight.prunedAt >= TRACK_TTL_MS) {
      flight.prunedAt = now;
      for (const id of flight.sent.keys()) if (!this.tracks.has(id)) flight.sent.delete(id);
    }
    this.publish(flight, own, out, now);
  }

  private publish(flight: Monitored, own: Track, out: Record<TrafficKind, Track[]>, now: number): void {
    for (const kind of ["alert", "sa"] as const) {
      if (out[kind].length > 0)
        this.options.publish(topicOf(kind, flight.id), trafficMessage(own, out[kind], now));
    }
  }
}
