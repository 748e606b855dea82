import { describe, expect, it } from "vitest";
import type { Position } from "../../worker/domain/geojson";
import { type StreetFeature, streetsLayer, streetTiles } from "../../worker/domain/map/streets";
import { fitFrame } from "../../worker/domain/map/view";

/** About 1.5 km across Gothenburg's centre: zoom 13–14, flight zoom. */
const frame = fitFrame(
  { minLng: 11.955, minLat: 57.702, maxLng: 11.98, maxLat: 57.712 },
  { width: 800, aspect: 0.7, padding: 0 },
);
const square = (w: number, s: number, e: number, n: number): Position[][] => [
  [
    [w, s],
    [e, s],
    [e, n],
    [w, n],
    [w, s],
  ],
];

describe("streetsLayer", () => {
  it("draws water that shows, whether it has a corner in view or covers it all, and none that does not", () => {
    const feature = (parts: Position[][]): StreetFeature => ({
      layer: "water",
      kind: "ocean",
      shape: "area",
      parts,
    });
    expect(streetsLayer(frame, [feature(square(11.9, 57.6, 12.1, 57.8))])?.water).not.toBe("");
    expect(streetsLayer(frame, [feature(square(11.96, 57.7, 11.97, 57.705))])?.water).not.toBe("");
    expect(streetsLayer(frame, [feature(square(12.5, 58, 12.6, 58.1))])).toBeUndefined();
  });

  it("leaves out what shows only closer in, and names each place once without crowding", () => {
    const path: StreetFeature = {
      layer: "roads",
      kind: "path",
      minZoom: 18,
      shape: "line",
      parts: [
        [
          [11.96, 57.705],
          [11.97, 57.706],
        ],
      ],
    };
    const road: StreetFeature = { ...path, kind: "minor_road", minZoom: 12, name: "Avenyn" };
    const place = (name: string, at: Position): StreetFeature => ({
      layer: "places",
      kind: "locality",
      name,
      minZoom: 10,
      shape: "point",
      parts: [[at]],
    });
    const layer = streetsLayer(frame, [
      path,
      road,
      place("Göteborg", [11.967, 57.707]),
      place("Göteborg", [11.9671, 57.7071]),
      place("Inom Vallgraven", [11.9675, 57.7072]),
      place("Majorna", [11.975, 57.71]),
    ])!;
    expect(layer.roads.map((r) => r.name)).toEqual(["Avenyn"]);
    expect(layer.places.map((p) => p.name)).toEqual(["Göteborg", "Majorna"]);
  });
});

describe("streetTiles", () => {
  it("reads the tiles at the frame's zoom, or the archive's deepest beyond it, at most twelve", () => {
    const tiles = streetTiles(frame, 0, 12);
    expect(new Set(tiles.map((t) => t.z))).toEqual(new Set([12]));
    expect(tiles.length).toBeLessThanOrEqual(12);
    const wide = fitFrame({ minLng: 10, minLat: 57, maxLng: 14, maxLat: 58.5 }, { width: 800 });
    const wideTiles = streetTiles(wide, 0, 12);
    expect(wideTiles.length).toBeLessThanOrEqual(12);
    expect(wideTiles[0]!.z).toBeLessThan(9);
  });
});
