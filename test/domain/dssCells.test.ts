import { describe, expect, it } from "vitest";
import {
  AreaTooLarge,
  BadOutline,
  circleCells,
  parsePolygonString,
  polygonCells,
} from "../../worker/dss/cells";

/**
 * Level-13 S2 cells as InterUSS's DSS indexes volumes. The expected tokens were computed with
 * s2sphere (an independent Python port of S2), `CellId.from_lat_lng(...).parent(13).to_token()`.
 */
const KNOWN = [
  { lat: 37.7749, lng: -122.4194, token: "8085809c" },
  { lat: 37.78, lng: -122.41, token: "80858084" },
  { lat: 37.77, lng: -122.43, token: "808580a4" },
  { lat: -33.8688, lng: 151.2093, token: "6b12ae3c" },
  { lat: 46.9481, lng: 7.4474, token: "478e39c4" },
];

/** A triangle of ~0.2 m around a point: inside one level-13 cell. */
const around = ({ lat, lng }: { lat: number; lng: number }) => [
  { lat: lat - 0.000001, lng: lng - 0.000001 },
  { lat: lat - 0.000001, lng: lng + 0.000001 },
  { lat: lat + 0.000001, lng },
];

describe("DSS S2 cells", () => {
  it("puts a small outline in the level-13 cell S2 gives its point", () => {
    for (const known of KNOWN) expect(polygonCells(around(known))).toEqual([known.token]);
  });

  it("covers a rectangle with the cells s2sphere's covering of it gives, whichever the winding", () => {
    const ccw = [
      { lat: 37.77, lng: -122.43 },
      { lat: 37.77, lng: -122.41 },
      { lat: 37.78, lng: -122.41 },
      { lat: 37.78, lng: -122.43 },
    ];
    const expected = ["80858084", "8085809c", "808580a4", "808580bc", "808f7e1c", "808f7e24", "808f7e2c"];
    expect(polygonCells(ccw).sort()).toEqual(expected);
    expect(polygonCells([...ccw].reverse()).sort()).toEqual(expected);
  });

  it("covers a circle with the cell of its center and its neighbours", () => {
    const cells = circleCells({ lat: 37.7749, lng: -122.4194 }, 1500);
    expect(cells).toContain("8085809c");
    expect(cells.length).toBeGreaterThan(4);
    expect(cells.length).toBeLessThan(40);
  });

  it("refuses areas over 2,500 km² and malformed outlines", () => {
    const big = [
      { lat: 37, lng: -123 },
      { lat: 37, lng: -122 },
      { lat: 38, lng: -122 },
      { lat: 38, lng: -123 },
    ];
    expect(() => polygonCells(big)).toThrow(AreaTooLarge);
    expect(() => circleCells({ lat: 37, lng: -122 }, 30_000)).toThrow(AreaTooLarge);
    expect(() => polygonCells(big.slice(0, 2))).toThrow(BadOutline);
    expect(() => polygonCells([big[0]!, big[2]!, big[1]!, big[3]!])).toThrow(BadOutline);
    expect(() => parsePolygonString("1,2,3")).toThrow(BadOutline);
    expect(parsePolygonString("37.1,-122.1,37.2,-122.1,37.2,-122.2")).toHaveLength(3);
  });
});
