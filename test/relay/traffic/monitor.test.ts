import { beforeEach, describe, expect, it } from "vitest";
import { TrafficMonitor } from "../../../relay/traffic/monitor";
import type { Track, TrafficUpdate } from "../../../relay/traffic/semantics";

const M_PER_DEG = 111_195;
let clock = 0;
let sent: { topic: string; traffic: TrafficUpdate[] }[] = [];
let monitor: TrafficMonitor;

const track = (id: string, northM: number, over: Partial<Track> = {}): Track => ({
  id,
  aircraftId: id,
  aircraftType: "UAV",
  latitude: 37 + northM / M_PER_DEG,
  longitude: -122,
  altitudeM: 100,
  groundSpeedMs: 0,
  headingDeg: 0,
  recordedAt: clock,
  ...over,
});

const step = (ms: number) => {
  clock += ms;
  monitor.flush();
};

beforeEach(() => {
  clock = 1_000_000;
  sent = [];
  monitor = new TrafficMonitor({
    now: () => clock,
    publish: (topic, payload) =>
      sent.push({ topic, traffic: (JSON.parse(payload) as { traffic: TrafficUpdate[] }).traffic }),
  });
});

describe("the traffic monitor", () => {
  it("tells a monitored flight about others near it, never about itself", () => {
    monitor.watch("flight|own");
    monitor.update(track("flight|own", 0));
    monitor.update(track("flight|near", 5000));
    monitor.update(track("flight|far", 20_000));
    monitor.flush();
    expect(sent).toEqual([
      { topic: "uav/traffic/sa/flight|own", traffic: [expect.objectContaining({ id: "flight|near" })] },
    ]);
  });

  it("publishes nothing for flights nobody monitors", () => {
    monitor.update(track("flight|own", 0));
    monitor.update(track("flight|near", 500));
    monitor.flush();
    expect(sent).toEqual([]);
  });

  it("publishes a track at most once a second per topic, with its latest state", () => {
    monitor.watch("flight|own");
    monitor.update(track("flight|own", 0));
    monitor.update(track("flight|near", 5000));
    monitor.flush();
    for (let i = 1; i <= 9; i++) {
      clock += 100;
      monitor.update(track("flight|near", 5000 - i));
      monitor.flush();
    }
    expect(sent).toHaveLength(1);
    step(100);
    expect(sent).toHaveLength(2);
    expect(Number(sent[1]!.traffic[0]!.latitude)).toBeCloseTo(37 + 4991 / M_PER_DEG, 6);
    step(1000);
    expect(sent).toHaveLength(2);
  });

  it("publishes at once on the other topic when a track changes kind", () => {
    monitor.watch("flight|own");
    monitor.update(track("flight|own", 0));
    monitor.update(track("flight|near", 1500));
    monitor.flush();
    clock += 200;
    monitor.update(track("flight|near", 1500, { groundSpeedMs: 20, headingDeg: 180 }));
    monitor.flush();
    expect(sent.map((m) => m.topic)).toEqual(["uav/traffic/sa/flight|own", "uav/traffic/alert/flight|own"]);
    expect(sent[1]!.traffic[0]).toMatchObject({
      id: "flight|near",
      ground_speed_kts: "39",
      true_heading: "180",
    });
  });

  it("weighs the monitored flight's own move against the tracks near it", () => {
    monitor.watch("flight|own");
    monitor.update(track("flight|own", -20_000));
    monitor.update(track("flight|other", 0));
    monitor.flush();
    expect(sent).toEqual([]);
    clock += 1000;
    monitor.update(track("flight|own", -500));
    monitor.flush();
    expect(sent.map((m) => m.topic)).toEqual(["uav/traffic/alert/flight|own"]);
  });

  it("finds a silent track that comes within alert range as time passes (every 5 s at the latest)", () => {
    monitor.watch("flight|own");
    monitor.update(track("flight|own", 0));
    // 3 km north, south at 50 m/s, then silent: within 1,000 m in 30 s from 10 s on (dead-reckoned).
    monitor.update(track("flight|silent", 3000, { groundSpeedMs: 50, headingDeg: 180 }));
    monitor.flush();
    expect(sent.map((m) => m.topic)).toEqual(["uav/traffic/sa/flight|own"]);
    const start = clock;
    while (!sent.some((m) => m.topic.startsWith("uav/traffic/alert/")) && clock - start < 20_000) step(1000);
    expect(clock - start).toBeGreaterThanOrEqual(10_000);
    expect(clock - start).toBeLessThanOrEqual(15_000);
  });

  it("forgets tracks not heard of for 30 s, and flights no longer monitored", () => {
    monitor.watch("flight|own");
    monitor.update(track("flight|own", 0));
    monitor.update(track("flight|near", 3000));
    monitor.flush();
    clock += 31_000;
    monitor.expire();
    expect(monitor.trackCount).toBe(0);
    monitor.unwatch("flight|own");
    monitor.update(track("flight|own", 0));
    monitor.update(track("flight|near", 3000));
    monitor.flush();
    expect(sent).toHaveLength(1);
  });

  it("ignores a state older than the one it has", () => {
    monitor.watch("flight|own");
    monitor.update(track("flight|own", 0));
    monitor.update(track("flight|near", 3000));
    monitor.update(track("flight|near", 500, { recordedAt: clock - 5000 }));
    monitor.flush();
    expect(sent.map((m) => m.topic)).toEqual(["uav/traffic/sa/flight|own"]);
  });
});
