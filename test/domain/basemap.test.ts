import { describe, expect, it } from "vitest";
import { basemapOrigin, basemapTiles, readBasemap } from "../../worker/domain/map/basemap";
import { EMPTY_CONTEXT, mapLayers } from "../../worker/domain/map/layers";
import { fitFrame } from "../../worker/domain/map/view";
import { renderMapSvg } from "../../worker/pages/map/svg";

const OSM = {
  template: "https://tiles.example/{z}/{x}/{y}.png",
  attribution: "© OpenStreetMap contributors",
};
// Jacksboro's map: about 3 km across in a 640 px frame.
const frame = fitFrame({ minLng: -84.215, maxLng: -84.185, minLat: 36.29, maxLat: 36.31 }, { width: 640 });

describe("the operator's raster basemap", () => {
  it("reads the template and refuses what would not work", () => {
    expect(readBasemap(undefined, undefined)).toBeUndefined();
    expect(readBasemap(OSM.template, OSM.attribution)).toEqual(OSM);
    expect(readBasemap("http://tiles.example/{z}/{x}/{y}.png", "x")).toMatch(/https/);
    expect(readBasemap("https://tiles.example/{z}/{x}.png", "x")).toMatch(/\{y\}/);
    expect(readBasemap(OSM.template, "")).toMatch(/ATTRIBUTION/);
    expect(basemapOrigin(OSM)).toBe("https://tiles.example");
  });

  it("covers the frame with tiles at the zoom whose pixels match the map's", () => {
    const tiles = basemapTiles(frame, OSM);
    // ~6.3 m a pixel with the padding, at 36° N: zoom 14 (7.7 m), tiles within √2 of their 256 px.
    expect(tiles[0]!.href).toMatch(/^https:\/\/tiles\.example\/14\/\d+\/\d+\.png$/);
    for (const t of tiles) {
      expect(t.width).toBeGreaterThan(256 / Math.SQRT2);
      expect(t.width).toBeLessThan(256 * Math.SQRT2);
    }
    const left = Math.min(...tiles.map((t) => t.x));
    const top = Math.min(...tiles.map((t) => t.y));
    const right = Math.max(...tiles.map((t) => t.x + t.width));
    const bottom = Math.max(...tiles.map((t) => t.y + t.height));
    expect([left <= 0, top <= 0, right >= frame.width, bottom >= frame.height]).toEqual([
      true,
      true,
      true,
      true,
    ]);
    // Neighbours meet: the tile east of another starts where it ends.
    const byX = [...new Set(tiles.map((t) => t.x))].sort((a, b) => a - b);
    const first = tiles.find((t) => t.x === byX[0])!;
    expect(byX[1]).toBeCloseTo(first.x + first.width, 1);
  });

  it("draws under the map, lets it show through the land, and credits its data", () => {
    const layers = mapLayers(
      frame,
      {
        ...EMPTY_CONTEXT,
        boundaries: [
          {
            name: "Tennessee",
            region: "state",
            geometry: {
              type: "Polygon",
              coordinates: [
                [
                  [-85, 35],
                  [-83, 35],
                  [-83, 37],
                  [-85, 37],
                  [-85, 35],
                ],
              ],
            },
          },
        ],
        basemap: OSM,
      },
      new Map(),
      "metric",
    );
    const svg = renderMapSvg({ layers, area: "M0 0Z", markers: [], title: "t" });
    expect(svg.indexOf('class="basemap"')).toBeLessThan(svg.indexOf('class="boundaries"'));
    expect(svg).toMatch(/class="boundary state" d="[^"]+" fill="none"/);
    expect(svg).toContain(">© OpenStreetMap contributors</text>");
  });
});
