import type { Track } from "./semantics";
import { metresOfFeet, msOfKnots } from "./units";

/**
 * Manned aircraft from an operator's ADS-B receiver, in the two formats receivers publish, pure:
 * readsb / dump1090(-fa) `aircraft.json` (served over HTTP, rewritten every second) and SBS-1
 * BaseStation lines (TCP port 30003). Bad input is a value, never an exception: a malformed line or
 * aircraft is counted and skipped, and the rest goes on.
 */

/** Positions older than this at the receiver are not traffic any more (readsb keeps them 60 s). */
const MAX_POSITION_AGE_S = 30;
const ICAO = /^~?[0-9a-f]{6}$/i;

const idOf = (hex: string) => `icao:${hex.toLowerCase()}`;
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

export interface ParsedAircraft {
  tracks: Track[];
  /** Aircraft entries skipped: no position, no altitude, on the ground, malformed or stale. */
  skipped: number;
}

/**
 * The tracks of a readsb / dump1090 `aircraft.json`: `now` (epoch seconds), `aircraft[]` with `hex`,
 * `lat`, `lon`, `seen_pos`, `alt_geom` or `alt_baro` (feet; "ground"), `gs` (knots), `track`,
 * `flight`, `t` or `category`; dump1090's older `altitude` and `speed` are read too. Null when the
 * document is not one.
 */
export function parseAircraftJson(text: string): ParsedAircraft | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof doc !== "object" || doc === null) return null;
  const { now, aircraft } = doc as { now?: unknown; aircraft?: unknown };
  if (!isNumber(now) || !Array.isArray(aircraft)) return null;
  const tracks: Track[] = [];
  let skipped = 0;
  for (const entry of aircraft) {
    const track = typeof entry === "object" && entry !== null ? aircraftTrack(entry, now) : null;
    if (track) tracks.push(track);
    else skipped++;
  }
  return { tracks, skipped };
}

function aircraftTrack(a: Record<string, unknown>, now: number): Track | null {
  const { hex, lat, lon } = a;
  if (typeof hex !== "string" || !ICAO.test(hex) || !isNumber(lat) || !isNumber(lon)) return null;
  if (lat < -90 || lat > 90 || lon < -180 || lon > 180) return null;
  const age = isNumber(a.seen_pos) ? a.seen_pos : isNumber(a.seen) ? a.seen : 0;
  if (age < 0 || age > MAX_POSITION_AGE_S) return null;
  const feet = isNumber(a.alt_geom) ? a.alt_geom : isNumber(a.alt_baro) ? a.alt_baro : a.altitude;
  if (!isNumber(feet)) return null;
  const knots = isNumber(a.gs) ? a.gs : isNumber(a.speed) ? a.speed : 0;
  const heading = isNumber(a.track) ? a.track : isNumber(a.true_heading) ? a.true_heading : 0;
  const callsign = typeof a.flight === "string" ? a.flight.trim() : "";
  const type = typeof a.t === "string" && a.t ? a.t : typeof a.category === "string" ? a.category : "";
  return {
    id: idOf(hex),
    aircraftId: callsign || hex.toUpperCase(),
    aircraftType: type || "manned",
    latitude: lat,
    longitude: lon,
    altitudeM: metresOfFeet(feet),
    groundSpeedMs: msOfKnots(Math.max(0, knots)),
    headingDeg: ((heading % 360) + 360) % 360,
    recordedAt: Math.round((now - age) * 1000),
  };
}

interface SbsAircraft {
  hex: string;
  callsign: string;
  altitudeFt?: number;
  knots?: number;
  track?: number;
  latitude?: number;
  longitude?: number;
  positionAt?: number;
  heardAt: number;
}

export type SbsResult = { track: Track } | { ignored: true } | { malformed: string };

/**
 * SBS-1 BaseStation lines (`MSG,<type>,…`, 22 comma-separated fields) assembled into tracks by ICAO
 * address: type 1 gives the call sign, 3 altitude and position, 4 ground speed and track, 5 and 7
 * altitude. A track comes out when a position or velocity arrives for an aircraft whose position and
 * altitude are known. Receivers write the message times in their local time zone, so a position is
 * timed by its arrival here.
 */
export class SbsAssembler {
  private readonly aircraft = new Map<string, SbsAircraft>();

  constructor(private readonly maxAircraft = 10_000) {}

  line(text: string, nowMs: number): SbsResult {
    const f = text.trim().split(",");
    if (f[0] === "STA" || f[0] === "AIR" || f[0] === "ID" || f[0] === "SEL" || f[0] === "CLK")
      return { ignored: true };
    if (f[0] !== "MSG" || f.length < 22) return { malformed: "not a 22-field MSG line" };
    const type = Number(f[1]);
    const hex = f[4] ?? "";
    if (!Number.isInteger(type) || type < 1 || type > 8) return { malformed: "bad transmission type" };
    if (!ICAO.test(hex)) return { malformed: "bad ICAO address" };
    const number = (i: number): number | undefined | null => {
      const raw = f[i]!.trim();
      if (raw === "") return undefined;
      const v = Number(raw);
      return Number.isFinite(v) ? v : null;
    };
    const values = { alt: number(11), gs: number(12), track: number(13), lat: number(14), lon: number(15) };
    if (Object.values(values).includes(null)) return { malformed: "a field is not a number" };
    const { alt, gs, track, lat, lon } = values as Record<string, number | undefined>;
    if (lat !== undefined && (lat < -90 || lat > 90)) return { malformed: "latitude out of range" };
    if (lon !== undefined && (lon < -180 || lon > 180)) return { malformed: "longitude out of range" };
    const state = this.stateOf(hex.toLowerCase(), nowMs);
    // The call sign comes in type 1, and some receivers repeat it in others.
    if (f[10]!.trim()) state.callsign = f[10]!.trim();
    if (alt !== undefined) state.altitudeFt = alt;
    if (type === 4 && gs !== undefined) state.knots = gs;
    if (type === 4 && track !== undefined) state.track = track;
    const moved = (type === 3 || type === 2) && lat !== undefined && lon !== undefined;
    if (moved) {
      state.latitude = lat;
      state.longitude = lon;
      state.positionAt = nowMs;
    }
    if (!moved && type !== 4) return { ignored: true };
    if (state.latitude === undefined || state.longitude === undefined || state.altitudeFt === undefined)
      return { ignored: true };
    return {
      track: {
        id: idOf(state.hex),
        aircraftId: state.callsign || state.hex.toUpperCase(),
        aircraftType: "manned",
        latitude: state.latitude,
        longitude: state.longitude!,
        altitudeM: metresOfFeet(state.altitudeFt),
        groundSpeedMs: msOfKnots(Math.max(0, state.knots ?? 0)),
        headingDeg: (((state.track ?? 0) % 360) + 360) % 360,
        recordedAt: state.positionAt!,
      },
    };
  }

  /** Forgets aircraft not heard of since `before`. */
  forget(before: number): void {
    for (const [hex, state] of this.aircraft) if (state.heardAt < before) this.aircraft.delete(hex);
  }

  private stateOf(hex: string, nowMs: number): SbsAircraft {
    let state = this.aircraft.get(hex);
    if (!state) {
      // A receiver cannot hear 10,000 aircraft: beyond that, the oldest goes.
      if (this.aircraft.size >= this.maxAircraft) this.aircraft.delete(this.aircraft.keys().next().value!);
      state = { hex, callsign: "", heardAt: nowMs };
      this.aircraft.set(hex, state);
    }
    state.heardAt = nowMs;
    return state;
  }
}
