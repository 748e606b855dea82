import { describe, expect, it } from "vitest";
import { decodedProperties, withDecodedProperties } from "../../worker/domain/airspace/records";

/** The `properties` the C++ decoder reads without checking: present for every advisory, null where unknown. */
describe("decoded properties", () => {
  it("fills every key the decoders read, null where the data does not say, decoded keys first", () => {
    const filled = decodedProperties("airport", { icao: "KSFO", type: "large_airport", iata: undefined });
    expect(Object.keys(filled)).toEqual([
      "iata",
      "icao",
      "paved",
      "phone",
      "tower",
      "runways",
      "elevation",
      "longest_runway",
      "use",
      "type",
      "longestRunway",
    ]);
    expect(filled).toMatchObject({ iata: null, icao: "KSFO", paved: null, type: "large_airport" });
  });

  it("sends the Android and Swift SDKs' names beside ours, with the same values", () => {
    const controlled = decodedProperties("controlled_airspace", {
      airspace_classification: "D",
      airport_id: "NFL",
      floor_ft: 0,
    });
    // AirMapControlledAirspaceProperties.java 31–32; Swift JSONSerialization.swift 255.
    expect(controlled).toMatchObject({ classAirspace: "D", airportIdentifier: "NFL", floor: 0 });
    expect(decodedProperties("controlled_airspace", {})).toMatchObject({
      classAirspace: null,
      airportIdentifier: null,
      floor: null,
    });
    // AirMapAirportProperties.java 54; AirMapHeliportProperties.java 26.
    expect(decodedProperties("airport", { longest_runway: 3000 })).toMatchObject({ longestRunway: 3000 });
    expect(decodedProperties("heliport", { usage: "private" })).toMatchObject({
      use: "private",
      usage: "private",
    });
  });

  it("sends properties that already hold every decoded key as they are (the same JSON, no copy)", () => {
    const cell = {
      type: "class_b",
      airspace_classification: "B",
      ceiling_ft: 10000,
      classAirspace: "B",
      airportIdentifier: null,
      floor: null,
    };
    expect(decodedProperties("controlled_airspace", cell)).toBe(cell);
    const advisory = { id: "facility_map:SFO:1:2", type: "controlled_airspace", properties: cell };
    expect(withDecodedProperties(advisory)).toBe(advisory);
  });

  it("copies where a decoded key is missing or undefined, and always for a wildfire's date", () => {
    const unclassified = { type: "class_e", airspace_classification: undefined };
    const copied = decodedProperties("controlled_airspace", unclassified);
    expect(copied).not.toBe(unclassified);
    expect(JSON.parse(JSON.stringify(copied))).toEqual({
      airspace_classification: null,
      type: "class_e",
      classAirspace: null,
      airportIdentifier: null,
      floor: null,
    });
    const fire = decodedProperties("wildfire", { date_effective: "x" }, "2026-11-27T00:00:00Z");
    expect(fire).toEqual({ date_effective: "x" });
    expect(decodedProperties("wildfire", {}, "2026-11-27T00:00:00Z")).toEqual({
      date_effective: "2026-11-27T00:00:00Z",
    });
  });
});
