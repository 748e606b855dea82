import { describe, expect, it } from "vitest";
import { closestApproach, type Kinematics } from "../../../relay/traffic/geometry";
import {
  ALERT_DISTANCE_M,
  ALERT_HORIZON_S,
  kindOf,
  parseTopic,
  SA_RADIUS_M,
  type Track,
  topicOf,
  trafficMessage,
  trafficUpdate,
  VERTICAL_BAND_M,
  withinReach,
} from "../../../relay/traffic/semantics";

const M_PER_DEG = 111_195;
const own: Kinematics = {
  latitude: 37,
  longitude: -122,
  altitudeM: 100,
  groundSpeedMs: 0,
  headingDeg: 0,
  recordedAt: 0,
};
const north = (metres: number, over: Partial<Track> = {}): Track => ({
  id: "flight|other",
  aircraftId: "flight|other",
  aircraftType: "UAV",
  latitude: 37 + metres / M_PER_DEG,
  longitude: -122,
  altitudeM: 100,
  groundSpeedMs: 0,
  headingDeg: 0,
  recordedAt: 0,
  ...over,
});

describe("kinds of traffic", () => {
  it("alerts for traffic that comes within 1,000 m in the next 30 s", () => {
    // 1.5 km north, flying south at 20 m/s: 900 m away in 30 s.
    expect(kindOf(own, north(1500, { groundSpeedMs: 20, headingDeg: 180 }), 0)).toBe("alert");
    // The same, flying north: moving away.
    expect(kindOf(own, north(1500, { groundSpeedMs: 20, headingDeg: 0 }), 0)).toBe("sa");
    // Slower: 1,200 m away after 30 s.
    expect(kindOf(own, north(1500, { groundSpeedMs: 10, headingDeg: 180 }), 0)).toBe("sa");
    // Already within 1,000 m.
    expect(kindOf(own, north(800), 0)).toBe("alert");
    // 800 m away but 700 m above: 1,063 m in three dimensions.
    expect(kindOf(own, north(800, { altitudeM: 800 }), 0)).toBe("sa");
  });

  it("keeps situational awareness to 10 statute miles and 3,000 ft up or down", () => {
    expect(kindOf(own, north(16_000), 0)).toBe("sa");
    expect(kindOf(own, north(16_200), 0)).toBeNull();
    expect(kindOf(own, north(5000, { altitudeM: 100 + 900 }), 0)).toBe("sa");
    expect(kindOf(own, north(5000, { altitudeM: 100 + 930 }), 0)).toBeNull();
  });

  it("dead-reckons both from their reports to now", () => {
    // Reported 2 km north 40 s ago, flying south at 25 m/s: now 1 km north and closing.
    const other = north(2000, { groundSpeedMs: 25, headingDeg: 180, recordedAt: -40_000 });
    expect(kindOf(own, other, 0)).toBe("alert");
  });

  it("skips, by its cheap first test, only pairs that are nothing to each other", () => {
    // A fixed pseudo-random spread of pairs up to 60 km apart, at any speed, heading, height and age.
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const aircraft = (): Kinematics => ({
      latitude: 60 + (random() - 0.5) * 1.1,
      longitude: 10 + (random() - 0.5) * 2,
      altitudeM: random() * 3000,
      groundSpeedMs: random() < 0.3 ? 0 : random() * 300,
      headingDeg: random() * 360,
      recordedAt: -random() * 30_000,
    });
    let skipped = 0;
    for (let i = 0; i < 20_000; i++) {
      const [a, b] = [aircraft(), aircraft()];
      const approach = closestApproach(a, b, 0, ALERT_HORIZON_S);
      const alert = Math.hypot(approach.distanceM, approach.verticalM) < ALERT_DISTANCE_M;
      const sa = approach.rangeM <= SA_RADIUS_M && Math.abs(approach.verticalM) <= VERTICAL_BAND_M;
      if (withinReach(a, b, 0)) continue;
      skipped++;
      expect(alert || sa, JSON.stringify([a, b])).toBe(false);
    }
    expect(skipped).toBeGreaterThan(5000);
  });
});

describe("the SDKs' payload", () => {
  it("has every field in the type and unit the SDKs read", () => {
    const track: Track = {
      id: "icao:a4b2c1",
      aircraftId: "N401WS",
      aircraftType: "C172",
      latitude: 37.0123456789,
      longitude: -121.99,
      altitudeM: 457.2,
      groundSpeedMs: 48.87,
      headingDeg: 271.4,
      recordedAt: 1_764_370_800_750,
    };
    const update = trafficUpdate(own, track, 1_764_370_801_000);
    expect(update).toEqual({
      id: "icao:a4b2c1",
      direction: expect.any(Number),
      latitude: "37.0123457",
      longitude: "-121.9900000",
      altitude: "1500",
      ground_speed_kts: "95",
      true_heading: "271",
      recorded_time: "1764370800",
      timestamp: 1_764_370_801_000,
      properties: { aircraft_id: "N401WS", aircraft_type: "C172" },
    });
    // North-east of us.
    expect(update.direction).toBeGreaterThan(30);
    expect(update.direction).toBeLessThan(45);
    expect(Object.keys(update)).toEqual([
      "id",
      "direction",
      "latitude",
      "longitude",
      "altitude",
      "ground_speed_kts",
      "true_heading",
      "recorded_time",
      "timestamp",
      "properties",
    ]);
  });

  it("makes a message of several tracks as JSON of their updates, members in the same order", () => {
    const tracks: Track[] = [
      { ...north(800), id: 'flight|a"quoted\\', aircraftId: "flight|a" },
      {
        ...north(-3000, { groundSpeedMs: 12.5, headingDeg: 359.7, recordedAt: 1_764_370_800_999 }),
        id: "icao:00ff01",
      },
    ];
    for (const at of [1_764_370_801_000, 1_764_370_802_500]) {
      const text = trafficMessage(own, tracks, at);
      expect(text).toBe(JSON.stringify({ traffic: tracks.map((t) => trafficUpdate(own, t, at)) }));
    }
    expect(trafficMessage(own, [], 0)).toBe('{"traffic":[]}');
  });

  it("names a flight's two topics and reads them back", () => {
    expect(topicOf("sa", "flight|abc")).toBe("uav/traffic/sa/flight|abc");
    expect(topicOf("alert", "flight|abc")).toBe("uav/traffic/alert/flight|abc");
    expect(parseTopic("uav/traffic/alert/flight|abc")).toEqual({ kind: "alert", flightId: "flight|abc" });
    expect(parseTopic("uav/traffic/sa/#")).toBeNull();
    expect(parseTopic("uav/traffic/+/flight|abc")).toBeNull();
    expect(parseTopic("uav/traffic/sa/a/b")).toBeNull();
    expect(parseTopic("$windsock/traffic/positions")).toBeNull();
  });
});
