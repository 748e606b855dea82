import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createLog } from "../../../relay/log";
import { parseAircraftJson, SbsAssembler } from "../../../relay/traffic/adsb";
import { pollAircraftJson } from "../../../relay/traffic/adsbSources";

const FIXTURES = path.join(import.meta.dirname, "../../fixtures/traffic");
const recorded = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");

describe("readsb / dump1090 aircraft.json (recorded sample)", () => {
  const parsed = parseAircraftJson(recorded("readsb-aircraft.recorded.json"))!;

  it("reads the aircraft with a recent position and an altitude, in metres and m/s", () => {
    expect(parsed.tracks.map((t) => t.id)).toEqual([
      "icao:a4b2c1",
      "icao:a0f3d2",
      "icao:~2a01b3",
      "icao:a9e6b0",
    ]);
    expect(parsed.skipped).toBe(3);
    const cessna = parsed.tracks[0]!;
    expect(cessna).toEqual({
      id: "icao:a4b2c1",
      aircraftId: "N401WS",
      aircraftType: "C172",
      latitude: 37.621002,
      longitude: -122.374011,
      altitudeM: expect.closeTo(1625 * 0.3048, 6),
      groundSpeedMs: expect.closeTo(95.3 * 0.514444, 3),
      headingDeg: 271.4,
      recordedAt: Math.round((1764370800.2 - 0.4) * 1000),
    });
  });

  it("reads dump1090's older fields and names an aircraft without a call sign by its address", () => {
    const old = parsed.tracks[3]!;
    expect(old.altitudeM).toBeCloseTo(3500 * 0.3048, 6);
    expect(old.groundSpeedMs).toBeCloseTo(140 * 0.514444, 3);
    expect(parsed.tracks[2]!.aircraftId).toBe("~2A01B3");
  });

  it("refuses what is not an aircraft.json, without throwing", () => {
    expect(parseAircraftJson("{")).toBeNull();
    expect(parseAircraftJson('{"aircraft":[]}')).toBeNull();
    expect(parseAircraftJson('{"now":1,"aircraft":[null,7,{"hex":"zz"}]}')).toEqual({
      tracks: [],
      skipped: 3,
    });
  });
});

describe("SBS-1 BaseStation lines (recorded sample)", () => {
  it("assembles tracks by ICAO address and counts the malformed lines, the others unharmed", () => {
    const sbs = new SbsAssembler();
    const results = recorded("basestation-30003.recorded.txt")
      .split("\n")
      .filter(Boolean)
      .map((line, i) => sbs.line(line, 1_000_000 + i * 100));
    const tracks = results.flatMap((r) => ("track" in r ? [r.track] : []));
    expect(results.filter((r) => "malformed" in r)).toHaveLength(4);
    expect(tracks.map((t) => t.id)).toEqual([
      "icao:a4b2c1",
      "icao:a4b2c1",
      "icao:a0f3d2",
      "icao:a0f3d2",
      "icao:a4b2c1",
    ]);
    expect(tracks[1]).toMatchObject({ aircraftId: "N401WS", headingDeg: 271, latitude: 37.621 });
    expect(tracks[1]!.groundSpeedMs).toBeCloseTo(95 * 0.514444, 3);
    expect(tracks[3]).toMatchObject({ aircraftId: "UAL123", headingDeg: 88 });
    expect(tracks[3]!.altitudeM).toBeCloseTo(32000 * 0.3048, 3);
    // The last line after four bad ones: the Cessna moved on, velocity kept.
    expect(tracks[4]).toMatchObject({ longitude: -122.375, headingDeg: 271 });
    expect(tracks[4]!.altitudeM).toBeCloseTo(1475 * 0.3048, 3);
    // A velocity message's track keeps the time of the position it extends.
    expect(tracks[1]!.recordedAt).toBe(tracks[0]!.recordedAt);
  });

  it("keeps at most as many aircraft as it is told, and forgets the silent ones", () => {
    const sbs = new SbsAssembler(2);
    const line = (hex: string) =>
      `MSG,3,1,1,${hex},1,2026/11/28,23:00:00.412,2026/11/28,23:00:00.412,,1500,,,37.6,-122.3,,,0,0,0,0`;
    for (const [i, hex] of ["A00001", "A00002", "A00003"].entries()) sbs.line(line(hex), i);
    // A00001 was dropped: a velocity alone gives no track for it.
    expect(sbs.line("MSG,4,1,1,A00001,1,,,,,,,90,90,,,0,,,,,0", 10)).toEqual({ ignored: true });
    expect("track" in sbs.line("MSG,4,1,1,A00003,1,,,,,,,90,90,,,0,,,,,0", 10)).toBe(true);
    sbs.forget(100);
    expect(sbs.line("MSG,4,1,1,A00003,1,,,,,,,90,90,,,0,,,,,0", 200)).toEqual({ ignored: true });
  });
});

describe("the receiver's aircraft.json over HTTP", () => {
  it("keeps polling after an answer that is not an aircraft.json, and reads the next one", async () => {
    const good = recorded("readsb-aircraft.recorded.json");
    const answers = ["<html>502 Bad Gateway</html>", '{"now": 1, "aircraft": [', good];
    const server = createServer((_req, res) => {
      const body = answers.shift() ?? good;
      const doc = body === good ? JSON.stringify({ ...JSON.parse(good), now: Date.now() / 1000 }) : body;
      res.writeHead(200, { "content-type": "application/json" }).end(doc);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const counters = { tracks: 0, skipped: 0, malformed: 0, failures: 0 };
    const delivered: string[] = [];
    const source = pollAircraftJson(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/data/aircraft.json`,
      50,
      (tracks) => delivered.push(...tracks.map((t) => t.id)),
      counters,
      createLog("error"),
    );
    try {
      await expect.poll(() => delivered.length, { timeout: 5000 }).toBeGreaterThan(0);
      expect(counters.failures).toBe(2);
      expect(delivered).toContain("icao:a4b2c1");
    } finally {
      source.stop();
      server.close();
    }
  });
});
